import { Command, Option } from 'commander';
import { positiveInt } from '../../../cli/output';
import type { RehearsalCliOptions } from '../actions/rehearsal';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const rehearsalActions = (): typeof import('../actions/rehearsal') => require('../actions/rehearsal');

const nonNegativeInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number ≥ 0, got ${JSON.stringify(v)}`);
  return n;
};

export function rehearsalCommand(): Command {
  return new Command('rehearsal')
    .description('rehearse a real migration: one long run on a slow platform with a worker kill -9, a Temporal restart and a platform outage; a table by tenth')
    .option('--smoke', 'the CI preset: 200 accounts, a 30 s outage, a 20,000-row ledger (a few minutes on 2 cores)')
    .option('--accounts <n>', 'accounts in the run (default 50000; 200 with --smoke)', positiveInt('--accounts'))
    .addOption(
      new Option('--engine <engine>', 'Temporal engine: dev (CLI dev server, SQLite) or server (Temporal server on Postgres)').choices(['dev', 'server']),
    )
    .option('--concurrency <n>', 'accounts in flight (default 300)', positiveInt('--concurrency'))
    .option('--seed <n>', 'data and sandbox draws (default 2026)', nonNegativeInt('--seed'))
    .option('--outage-seconds <n>', 'how long the platform is down mid-run (default 240; 0: no outage)', nonNegativeInt('--outage-seconds'))
    .option(
      '--max-cached-workflows <n>',
      "the workers' workflow cache (≥ 2; small: most workflow tasks replay their history)",
      nonNegativeInt('--max-cached-workflows'),
    )
    .option('--stall-seconds <n>', 'SIGSTOP a worker this long once (past the workflow-task timeout): a forced task timeout', nonNegativeInt('--stall-seconds'))
    .option('--replay-check', 'read every workflow history afterwards: nondeterminism errors and task timeouts')
    .option('--ledger-rows <n>', 'then seed the ledger with this many attempts and time the operator commands (e.g. 1000000)', nonNegativeInt('--ledger-rows'))
    .option('--window-accounts <n>', 'accounts for the expired-window / never-answered phase (default 30; 0: none)', nonNegativeInt('--window-accounts'))
    .option('--out <file>', 'results file (default bench/rehearsal.json; bench/rehearsal-smoke.json with --smoke)')
    .option('--data-dir <dir>', 'where the embedded stack keeps its data (default .data/rehearsal/<pid>; emptied first)')
    .addHelpText(
      'after',
      `
Brings up its own embedded stack on free ports, generates accounts with ground truth (5% with a
planted defect), and runs one migration with the platform at a tenant's pace (150 ms a call, 2-20 s
to process, 1% of events lost). In the middle: a worker kill -9 (the first worker is never killed,
so its memory is the run's curve), a Temporal server restart and a platform outage (the sandbox
down; no account may fail for it). Prints per tenth of the run accounts/s, p50/p95, worker RSS and
CPU per account by process; storage per 1,000 accounts; the verdict from the sandbox's ground truth.
Exit 0 only when nothing was lost, duplicated or wrong and every fault happened.

Examples:
  $ npm run rehearsal -- --smoke
  $ npm run rehearsal -- --accounts 50000
  $ npm run rehearsal -- --engine server --accounts 10000
  $ npm run rehearsal -- --engine server --accounts 2000 --max-cached-workflows 2 --stall-seconds 15 --replay-check`,
    )
    .action(async (opts: RehearsalCliOptions) => rehearsalActions().rehearsalAction(opts));
}
