import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadEnv } from '../../config';
import { removeOrphanedData, SHARED_RUNTIME } from '../../harness/stack/postgres';
import { startStack, type RunningStack } from '../../harness/stack/stack';

declare module 'vitest' {
  export interface ProvidedContext {
    stackEnv: Record<string, string>;
  }
}

let stack: RunningStack | undefined;

/**
 * Brings up the real stack (Temporal dev server, embedded Postgres, local S3/SQS, sandbox, events
 * receiver, one worker process) on free ports in a fresh data directory, for the end-to-end tests.
 */
export async function setup(project: TestProject) {
  // One data directory per test process, so two runs on one machine never share a stack; those of
  // processes that are gone are cleared (a failed run's logs stay until the next run).
  const root = path.resolve('.data/e2e');
  fs.mkdirSync(root, { recursive: true });
  for (const d of fs.readdirSync(root)) if (!isAlive(Number(d))) fs.rmSync(path.join(root, d), { recursive: true, force: true });
  const dataDir = path.join(root, String(process.pid));
  const started = Date.now();
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
  stack = await startStack({
    env: {
      ...env,
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      SANDBOX_PROCESSING_DELAY_MS: '200',
      OUTCOME_EVENT_WAIT_SECONDS: '10',
      // The sandbox checks every request against the contract (tests assert zero violations).
      SANDBOX_STRICT: 'true',
    },
    freePorts: true,
    workers: 1,
    log: (l) => process.stderr.write(`[e2e stack] ${l}\n`),
  });
  process.stderr.write(`[e2e stack] up in ${Math.round((Date.now() - started) / 1000)} s; Temporal UI ${stack.info.temporalUiUrl}\n`);
  project.provide('stackEnv', stack.env);
}

export async function teardown() {
  await stack?.stop();
  // Postgres data relocated for data dirs that are gone (this run's deleted temporary ones, earlier
  // runs' cleared above) goes now, not at the next start: npm test leaves no orphan in $TMPDIR.
  removeOrphanedData(SHARED_RUNTIME);
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
