import fs from 'node:fs';
import type { Config } from '../config';
import { workerIdentity } from '../clients/temporal';
import { createWorkers } from './worker';

/**
 * A worker process's life, whichever way it is started (`workers/main.ts` in the embedded stack,
 * `kraken-migrate worker` in the image): ready (logged, and WORKER_READY_FILE written for the stack
 * and the compose health check), then run until Temporal's runtime stops it gracefully on SIGINT /
 * SIGTERM; in-flight activities finish or time out.
 */
export async function runWorker(cfg: Config, opts: { workflowInterceptorModules?: readonly string[] } = {}): Promise<void> {
  const w = await createWorkers(cfg, { identity: workerIdentity(), ...opts });
  w.logger.info({ taskQueue: cfg.TEMPORAL_TASK_QUEUE, pid: process.pid, deploymentName: w.version.deploymentName, buildId: w.version.buildId }, 'worker ready');
  if (cfg.WORKER_READY_FILE) fs.writeFileSync(cfg.WORKER_READY_FILE, String(process.pid));
  await w.run();
  await w.close();
  w.logger.info('worker stopped');
}
