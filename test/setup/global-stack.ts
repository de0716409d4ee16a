import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadEnv } from '../../config';
import { removeOrphanedData, SHARED_RUNTIME } from '../../harness/stack/postgres';
import { killStartedOnSignals } from '../../harness/stack/child-process';
import { startStack, type RunningStack } from '../../harness/stack/stack';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One stack's environment per test worker: a file reads its worker's (test/e2e/helpers.ts `stackEnv`). */
    stackEnvs: Record<string, string>[];
  }
}

let stacks: RunningStack[] = [];

/**
 * Brings up one real stack (Temporal, embedded Postgres, local S3/SQS, sandbox, events receiver, one
 * worker process) per test worker, each on free ports in a fresh data directory of its own, so e2e
 * files run in parallel and a test that truncates tables or resets the sandbox touches only its own.
 */
export async function setup(project: TestProject) {
  // One data directory per test process and stack, so two runs on one machine never share a stack;
  // those of processes that are gone are cleared (a failed run's logs stay until the next run).
  const root = path.resolve('.data/e2e');
  fs.mkdirSync(root, { recursive: true });
  for (const d of fs.readdirSync(root)) if (!isAlive(Number(d.split('-')[0]))) fs.rmSync(path.join(root, d), { recursive: true, force: true });
  // The stacks run detached: a signal that ends the runner before its teardown must not leave them.
  killStartedOnSignals();
  const count = await stacksNeeded(project);
  const started = Date.now();
  const results = await Promise.allSettled(Array.from({ length: count }, (_, i) => startOne(path.join(root, `${process.pid}-${i + 1}`), i + 1)));
  stacks = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    await teardown();
    throw failed.reason;
  }
  process.stderr.write(
    `[e2e stack] ${count} up in ${Math.round((Date.now() - started) / 1000)} s; Temporal UI ${stacks.map((s) => s.info.temporalUiUrl).join(', ')}\n`,
  );
  project.provide(
    'stackEnvs',
    stacks.map((s) => s.env),
  );
}

export async function teardown() {
  await Promise.all(stacks.map((s) => s.stop()));
  stacks = [];
  // Postgres data relocated for data dirs that are gone (this run's deleted temporary ones, earlier
  // runs' cleared above) goes now, not at the next start: npm test leaves no orphan in $TMPDIR.
  removeOrphanedData(SHARED_RUNTIME);
}

/** As many stacks as files can run at once: one per fork, one for a single file or a single-fork project. */
async function stacksNeeded(project: TestProject): Promise<number> {
  if (project.config.poolOptions?.forks?.singleFork) return 1;
  const forks = project.config.poolOptions?.forks?.maxForks ?? project.vitest.config.poolOptions?.forks?.maxForks;
  const workers = typeof forks === 'number' ? forks : 1;
  // The CLI's file filters (`vitest run --project e2e test/e2e/cli`), internal to vitest, so read loosely.
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const { testFiles } = await project.globTestFiles(filters);
  return Math.max(1, Math.min(workers, testFiles.length));
}

function startOne(dataDir: string, n: number): Promise<RunningStack> {
  // The e2e stack is always the embedded one: never the developer's DATABASE_URL, S3, SQS or
  // Temporal (tests truncate tables and reset the sandbox).
  const env = loadEnv();
  for (const k of [
    'DATABASE_URL',
    'S3_ENDPOINT',
    'SQS_ENDPOINT',
    'EVENTS_QUEUE_URL',
    'TEMPORAL_ADDRESS',
    'PLATFORM_BASE_URL',
    'PLATFORM_V2_BASE_URL',
    'PLATFORM_GRAPHQL_URL',
  ])
    delete env[k];
  return startStack({
    env: {
      ...env,
      DATA_DIR: dataDir,
      // Each stack's legacy documents beside its own legacy schema (account ids restart per stack).
      SOURCE_DOCUMENTS_DIR: path.join(dataDir, 'source-documents'),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      SANDBOX_PROCESSING_DELAY_MS: '200',
      OUTCOME_EVENT_WAIT_SECONDS: '10',
      // The sandbox checks every request against the contract (tests assert zero violations).
      SANDBOX_STRICT: 'true',
    },
    freePorts: true,
    workers: 1,
    log: (l) => process.stderr.write(`[e2e stack ${n}] ${l}\n`),
  });
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
