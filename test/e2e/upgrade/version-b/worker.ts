import fs from 'node:fs';
import path from 'node:path';
import { workerIdentity } from '../../../../clients/temporal';
import { getConfig } from '../../../../config';
import { createWorkers } from '../../../../workers/worker';

// The upgrade test's version B: workers/main.ts with today's workflows plus interceptors.ts, a
// change behind patched(). Its build ID comes from KRAKEN_BUILD_ID, as an image's would.
async function main() {
  const cfg = getConfig();
  const w = await createWorkers(cfg, { identity: workerIdentity(), workflowInterceptorModules: [path.join(__dirname, 'interceptors.ts')] });
  w.logger.info({ taskQueue: cfg.TEMPORAL_TASK_QUEUE, pid: process.pid, buildId: w.version.buildId }, 'worker ready');
  if (cfg.WORKER_READY_FILE) fs.writeFileSync(cfg.WORKER_READY_FILE, String(process.pid));
  await w.run();
  await w.close();
}

main().catch((e) => {
  process.stderr.write(`worker failed: ${(e as Error).message}\n`);
  process.exit(1);
});
