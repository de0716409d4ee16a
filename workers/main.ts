import { getConfig } from '../config';
import { runWorker } from './run-worker';

// A worker process: `npx tsx workers/main.ts` (the embedded stack's); `kraken-migrate worker` runs the same.
runWorker(getConfig()).catch((e) => {
  process.stderr.write(`worker failed: ${(e as Error).message}\n`);
  process.exit(1);
});
