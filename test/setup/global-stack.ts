import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadEnv } from '../../config';
import { startStack, type RunningStack } from '../../stack/stack';

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
  const dataDir = path.resolve('.data/e2e');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const started = Date.now();
  stack = await startStack({
    env: {
      ...loadEnv(),
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      SANDBOX_PROCESSING_DELAY_MS: '200',
      OUTCOME_EVENT_WAIT_SECONDS: '10',
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
}
