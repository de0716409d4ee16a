import path from 'node:path';
import { getConfig } from '../../../../config';
import { runWorker } from '../../../../workers/run-worker';

// The upgrade test's version B: workers/main.ts with today's workflows plus interceptors.ts, a
// change behind patched(). Its build ID comes from KRAKEN_BUILD_ID, as an image's would.
runWorker(getConfig(), { workflowInterceptorModules: [path.join(__dirname, 'interceptors.ts')] }).catch((e) => {
  process.stderr.write(`worker failed: ${(e as Error).message}\n`);
  process.exit(1);
});
