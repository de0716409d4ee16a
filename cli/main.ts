import { buildProgram } from './program';
import { exitSoon, runCli } from './run-cli';

// `npx tsx cli/main.ts …` and the bin/ entry point (bin/kraken-migrate.js) land here.
void runCli(buildProgram(), process.argv).then(exitSoon);
