// The options of `report` and `plan report` (cli/commands/ declares them, cli/report/ parses them).
import { jsonOption, optionTable } from '../option-table';

export const REPORT_OPTIONS = optionTable({
  out: { flags: '--out <dir>', description: 'output directory (default: <DATA_DIR>/reports/<runId>)', schema: (k) => k.text('a folder').optional() },
  json: jsonOption('print the paths and totals as JSON (with --summary: the summary)'),
  summary: {
    flags: '--summary',
    description: "print the report's summary (counts by outcome, code and stage, throughput, reconciliation) and write no files",
    schema: (k) => k.flag,
  },
});

export const PLAN_REPORT_OPTIONS = optionTable({
  out: { flags: '--out <dir>', description: 'output directory (default: <DATA_DIR>/reports/plan-<planId>)', schema: (k) => k.text('a folder').optional() },
  json: jsonOption('print the paths and the numbers as JSON'),
});
