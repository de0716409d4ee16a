import { defineConfig } from 'vitest/config';
import DurationSequencer from './test/setup/duration-sequencer';

// Temporal's native bridge is not worker-thread safe: forks only. Stack start-up (Temporal,
// Postgres, S3) takes tens of seconds on 2 cores, hence the long hook timeout. Unit tests need
// no services; the global setup brings up one end-to-end stack per fork, and each e2e file uses its
// worker's (test/e2e/helpers.ts `stackEnv`). Three forks by default on the developers' 2 cores
// (vitest's default there is one, cores - 1); `npm test` runs e2e on four: most e2e time is waiting
// on timers (activity timeouts after a kill, plan windows, held imports), which a fourth stack
// overlaps rather than queueing for CPU. VITEST_MAX_FORKS sets the count.
export default defineConfig({
  test: {
    pool: 'forks',
    // Longest e2e files first (test/setup/duration-sequencer.ts): the run ends when its last file does.
    sequence: { sequencer: DurationSequencer },
    poolOptions: { forks: { maxForks: Number(process.env.VITEST_MAX_FORKS ?? 3), minForks: 1 } },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        // The proving ground's own tests (harness/test/): like unit, no shared stack (a few start their own sandbox or Postgres).
        extends: true,
        test: { name: 'harness', include: ['harness/test/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/setup/global-stack.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // One stack per fork, files in parallel (test/setup/global-stack.ts). E2E_SERIAL=1 runs one
          // stack and the files one after another, for telling an order-dependent failure from a real one.
          poolOptions: { forks: { singleFork: process.env.E2E_SERIAL === '1' } },
        },
      },
      {
        // `npm run replay:record`: writes test/replay/histories on the e2e stack (never part of npm test).
        extends: true,
        test: {
          name: 'replay-record',
          include: ['test/replay/record.corpus.ts'],
          globalSetup: ['test/setup/global-stack.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
