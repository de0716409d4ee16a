import { Command } from 'commander';
import { positiveInt } from '../../../cli/output';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const chaosActions = (): typeof import('../actions/chaos') => require('../actions/chaos');

export function chaosCommand(): Command {
  return new Command('chaos')
    .description('prove 0 lost / 0 duplicated / 0 wrong / 0 early under worker kills, server and sandbox restarts and platform faults')
    .option('--smoke', 'the CI preset: 150 accounts, 3 worker kills, one server and one sandbox restart, faults on (~2.5-6 min on 2 cores)')
    .option('--plan', 'a cutover plan instead of a run: two waves (windows with a gap, a daily cap) under worker kill -9s and a Temporal restart (~2-3 min)')
    .option('--seed <n>', 'replay the fault schedule, data and sandbox draws of an earlier run', (v) => Number.parseInt(v, 10))
    .option('--accounts <n>', 'accounts to generate (default 1000; 150 with --smoke)', positiveInt('--accounts'))
    .option('--concurrency <n>', 'accounts in flight (default 50)', positiveInt('--concurrency'))
    .option('--data-dir <dir>', 'where the embedded stack keeps its data (default .data/chaos/<pid>; emptied first)')
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      `
Brings up its own embedded stack on free ports, generates accounts with ground truth, runs a
migration while it kill -9s worker processes (some while a schedule call is in flight), kill -9s and
restarts the Temporal server (same database) and the sandbox, with 5xx, 429 bursts with
Retry-After, lost schedule answers and dropped / duplicated / reordered / late events. The verdict
comes from the sandbox's ground truth and the ledger only. Exit 0 only when lost, duplicated,
wrong and early are all 0 (and the harness delivered the faults it claims).

Examples:
  $ npm run chaos -- --smoke
  $ npm run chaos -- --plan
  $ npm run chaos -- --seed 1234567 --json > chaos.json`,
    )
    .action(async (opts) => chaosActions().chaosAction(opts));
}
