import { exitSoon, runCli } from '../../cli/run-cli';
import { buildHarnessProgram } from './program';

// `npm run demo|dev|chaos|rehearsal` and `npm run harness -- <command>` land here.
void runCli(buildHarnessProgram(), process.argv).then(exitSoon);
