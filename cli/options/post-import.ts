// The options of `run reconcile` and `run delta` (cli/commands/post-import.ts declares them, cli/actions/ parse them).
import { jsonOption, optionTable } from '../option-table';

export const RECONCILE_OPTIONS = optionTable({
  concurrency: { flags: '--concurrency <n>', description: 'accounts read at once', default: '8', schema: (k) => k.positiveInt },
  json: jsonOption(),
  list: {
    flags: '--list',
    description: 'print the accounts it would read back, one a line (the count on stderr), and read nothing from the platform',
    schema: (k) => k.flag,
  },
});

export const DELTA_OPTIONS = optionTable({
  concurrency: { flags: '--concurrency <n>', description: 'accounts at once', default: '20', schema: (k) => k.positiveInt },
  deltaId: { flags: '--delta-id <id>', description: 'id of this delta (default: delta-YYYYMMDD-HHMMSS-xxxx)', schema: (k) => k.z.string().optional() },
  wait: { flags: '--no-wait', description: 'start it and return', schema: (k) => k.z.boolean() },
  json: jsonOption(),
});
