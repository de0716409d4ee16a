// Apart from ledger/report-data.ts so the CLI's help text (cli/commands/report.ts) names it without loading the ledger.
/**
 * Everything the HTML report shows, loaded once from the ledger; the renderers are pure functions of
 * it. Counts for every account, but only a page of example accounts per error code: a run of a
 * million accounts has tens of thousands of failures, and those go to the CSV, streamed from the
 * ledger (ledger/report-csv.ts), never held here.
 */
export const EXAMPLES_PER_CODE = 20;
