import { Command } from 'commander';

const DEMO_DIR = '.data/demo';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const demoActions = (): typeof import('../actions/demo') => require('../actions/demo');

export function demoCommand(): Command {
  return new Command('demo')
    .description('the whole story in one command: stack up, 200 generated accounts, a run with live progress, the report')
    .option('--keep', 'leave the stack running for exploration until Ctrl-C')
    .option('--accounts <n>', 'accounts to generate', (v) => Number.parseInt(v, 10), 200)
    .option('--seed <s>', 'generator seed', (v) => Number.parseInt(v, 10), 42)
    .option('--concurrency <n>', 'accounts in flight', (v) => Number.parseInt(v, 10), 50)
    .option('--free-ports', 'pick free ports instead of the configured ones (when a dev stack is already up)')
    .option('--data-dir <dir>', 'where the demo keeps its stack, data and reports (deleted first)', DEMO_DIR)
    .addHelpText(
      'after',
      `
Starts fresh in --data-dir (${DEMO_DIR}) every time (deletes it first). Exit code 0 when every account ends
completed, failed or not attempted (failures are part of the story: the data has planted defects).

Examples:
  $ npm run demo
  $ npm run demo -- --keep`,
    )
    .action(async (opts) => demoActions().demoAction(opts));
}
