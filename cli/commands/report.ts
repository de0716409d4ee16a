import { Command } from 'commander';
import { EXAMPLES_PER_CODE } from '../../ledger/report-limits';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const reportBuild = (): typeof import('../report/build') => require('../report/build');

export function reportCommand(): Command {
  return new Command('report')
    .description("write a run's failed-accounts.csv and a self-contained report.html")
    .argument('<runId>')
    .option('--out <dir>', 'output directory (default: <DATA_DIR>/reports/<runId>)')
    .option('--json', 'print the paths and totals as JSON')
    .addHelpText(
      'after',
      `
failed-accounts.csv has one row per error of every failed or not-attempted account, ready for the
source-data team (written as it is read from the ledger: any size of run). report.html needs no
network (inline CSS and charts): counts by error code and stage, and at most ${EXAMPLES_PER_CODE} example
accounts per code, each linked to its workflow in the Temporal UI; the CSV has the rest.

Examples:
  $ kraken-migrate report run-20250601-120000-ab12
  $ kraken-migrate report run-20250601-120000-ab12 --out ./reports/june`,
    )
    .action(async (runId: string, opts) => reportBuild().reportAction(runId, opts));
}
