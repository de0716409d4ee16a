import fs from 'node:fs';
import { getConfig } from '../config';
import { workerIdentity } from '../clients/temporal';
import { createWorkers } from './worker';

// A worker process: `npx tsx workers/main.ts` (or `kraken-migrate worker`). Temporal's runtime
// stops the workers gracefully on SIGINT / SIGTERM; in-flight activities finish or time out.
async function main() {
  const cfg = getConfig();
  const w = await createWorkers(cfg, { identity: workerIdentity() });
  w.logger.info({ taskQueue: cfg.TEMPORAL_TASK_QUEUE, pid: process.pid, deploymentName: w.version.deploymentName, buildId: w.version.buildId }, 'worker ready');
  if (cfg.WORKER_READY_FILE) fs.writeFileSync(cfg.WORKER_READY_FILE, String(process.pid));
  await w.run();
  await w.close();
  w.logger.info('worker stopped');
}

main().catch((e) => {
  process.stderr.write(`worker failed: ${(e as Error).message}\n`);
  process.exit(1);
});
