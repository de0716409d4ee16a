import { buildProgram } from './program';
import { exitSoon, runCli } from './run-cli';

// `npx tsx cli/main.ts …` and the bin/ entry point (bin/kraken-migrate.js) land here.
// A reader that stops early (`run reconcile --list | head`) closes the pipe: that ends the command, as for any Unix filter.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
void runCli(buildProgram(), process.argv).then(exitSoon);
