import { Command } from 'commander';
import { EXAMPLES_PER_CODE } from '../../ledger/report-limits';
import { declareOptions } from '../option-table';
import { REPORT_OPTIONS } from '../options/report';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const reportBuild = (): typeof import('../report/build') => require('../report/build');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the summary alone: the ledger's counters, no files, no Temporal
const reportSummary = (): typeof import('../report/summary') => require('../report/summary');

export function reportCommand(): Command {
  return declareOptions(new Command('report'), REPORT_OPTIONS)
    .description("write a run's failed-accounts.csv and a self-contained report.html")
    .argument('<runId>')
    .addHelpText(
      'after',
      `
failed-accounts.csv has one row per error of every failed or not-attempted account, ready for the
source-data team (written as it is read from the ledger: any size of run). report.html needs no
network (inline CSS and charts): counts by error code and stage, and at most ${EXAMPLES_PER_CODE} example
accounts per code, each linked to its workflow in the Temporal UI; the CSV has the rest.

--summary prints the summary alone, read from the ledger's per-run counters: no files, no example
rows, and no Temporal (for a run still going, \`run status\` lists the accounts being retried).

Examples:
  $ kraken-migrate report run-20250601-120000-ab12
  $ kraken-migrate report run-20250601-120000-ab12 --out ./reports/june
  $ kraken-migrate report run-20250601-120000-ab12 --summary --json | jq .failuresByCode`,
    )
    .action(async (runId: string, opts) => (opts.summary ? reportSummary().reportSummaryAction(runId, opts) : reportBuild().reportAction(runId, opts)));
}
