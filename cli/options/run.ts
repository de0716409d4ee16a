// The options of `run …` (cli/commands/run.ts declares them, cli/actions/ parse them): each stated once.
import { STOP_LINE_DEFAULTS } from '../../domain/stop-line';
import { jsonOption, optionTable } from '../option-table';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the resendable statuses, loaded when `run resend-registration` runs
const supplyDomain = (): typeof import('../../domain/supply') => require('../../domain/supply');

export const START_RUN_OPTIONS = optionTable({
  supplier: {
    flags: '--supplier <code>',
    description: 'import supplier code (default: IMPORT_SUPPLIER_CODE)',
    schema: (k) => k.text('an import supplier code').optional(),
  },
  source: {
    flags: '--source <source>',
    description: '"postgres" (the legacy schema) or a .jsonl file of legacy records',
    default: 'postgres',
    schema: (k) => k.text('"postgres" or a .jsonl file'),
  },
  payloads: {
    flags: '--payloads <file>',
    description: "the team's own EnergyAccount payloads, one a line (.jsonl or .jsonl.gz), sent as they are",
    schema: (k) => k.text('a payload file').optional(),
  },
  payloadsTable: {
    flags: '--payloads-table <schema.table>',
    description: 'the same from a Postgres table or view (external_account_number, payload jsonb)',
    schema: (k) => k.text('schema.table').optional(),
  },
  documents: {
    flags: '--documents <dir|s3://bucket/prefix>',
    description: "where the payloads' document paths are read (default SOURCE_DOCUMENTS_DIR)",
    schema: (k) => k.text('a folder or s3://bucket/prefix').optional(),
  },
  limit: { flags: '--limit <n>', description: 'migrate at most N accounts', schema: (k) => k.positiveInt.optional() },
  accounts: {
    flags: '--accounts <file>',
    description: 'migrate the accounts listed in FILE (one external account number a line)',
    schema: (k) => k.text('a file of account numbers').optional(),
  },
  dryRun: { flags: '--dry-run', description: 'validate and schedule as a platform dry run; nothing is imported', schema: (k) => k.flag },
  concurrency: {
    flags: '--concurrency <n>',
    description: 'accounts in flight at once (a ceiling: the tenant sets the pace unless PLATFORM_PACE=fixed)',
    default: '50',
    schema: (k) => k.positiveInt,
  },
  weight: {
    flags: '--weight <w>',
    description: "this run's share of the workers and the tenant's window beside other suppliers' runs (fairness weight, default 1)",
    schema: (k) => k.weight.optional(),
  },
  windowStart: { flags: '--window-start <iso>', description: 'earliest time the platform may process the imports', schema: (k) => k.dateTime.optional() },
  windowEnd: { flags: '--window-end <iso>', description: 'latest time the platform may process the imports', schema: (k) => k.dateTime.optional() },
  runId: { flags: '--run-id <id>', description: 'run id (default: run-YYYYMMDD-HHMMSS-xxxx)', schema: (k) => k.runId.optional() },
  sendRegistrationFlows: {
    flags: '--send-registration-flows',
    description: "an on-market switch: send each created account's registration flows and follow its meter points to supply (run supply)",
    schema: (k) => k.flag,
  },
  stopLine: { flags: '--no-stop-line', description: 'do not pause the run when the platform keeps failing accounts', schema: (k) => k.z.boolean() },
  maxSameCode: {
    flags: '--max-same-code <n>',
    description: 'stop the line after N platform-side failures with one code in a row',
    default: String(STOP_LINE_DEFAULTS.maxSameCode),
    schema: (k) => k.positiveInt,
  },
  maxFailureRate: {
    flags: '--max-failure-rate <share>',
    description: 'stop the line when more than this share of the last --over-last platform-side outcomes failed (0.5 or 50%)',
    default: String(STOP_LINE_DEFAULTS.maxFailureRate),
    schema: (k) => k.share,
  },
  overLast: {
    flags: '--over-last <n>',
    description: 'the window --max-failure-rate is measured over',
    default: String(STOP_LINE_DEFAULTS.overLast),
    schema: (k) => k.positiveInt,
  },
  watch: { flags: '--watch', description: 'then watch it until it ends (exit code as `run watch`)', schema: (k) => k.flag },
  json: jsonOption('print {runId, workflowId, uiUrl}'),
});

export const RUN_STATUS_OPTIONS = optionTable({ json: jsonOption() });

export const SUPPLY_OPTIONS = optionTable({
  json: jsonOption('print {runId, meterPoints: [{account, accountNumber, mpxn, status, final, outcome, since, detail, flowsSent}], funnel}'),
});

export const RESEND_REGISTRATION_OPTIONS = optionTable({
  status: {
    flags: '--status <status...>',
    description: 'the statuses to send again: REGISTRATION_OBJECTED, REGISTRATION_REJECTED, UNABLE_TO_REGISTER, REGISTRATION_FLOW_ERROR, …',
    required: true,
    schema: (k) => {
      // Read when the action runs: domain/supply.ts loads zod, which declaring the CLI must not (cli/program.ts).
      const statuses = supplyDomain().RESENDABLE_STATUSES as [string, ...string[]];
      return k.z.array(k.z.enum(statuses, { error: `one of ${statuses.join(', ')}` })).min(1, 'at least one status');
    },
  },
  json: jsonOption('print {runId, accounts}'),
});

export const COMPARE_OPTIONS = optionTable({
  plan: {
    flags: '--plan <id>',
    description: "with --wave: the wave's trial loads (defect count of each; the last two compared)",
    schema: (k) => k.text('a plan id').optional(),
  },
  wave: { flags: '--wave <name>', description: 'the wave of --plan', schema: (k) => k.text("a wave's name").optional() },
  json: jsonOption(),
});

export const LIST_RUNS_OPTIONS = optionTable({
  supplier: { flags: '--supplier <code>', description: 'only runs of this supplier', schema: (k) => k.z.string().optional() },
  limit: { flags: '--limit <n>', description: 'at most N runs', default: '20', schema: (k) => k.positiveInt },
  json: jsonOption(),
});

/** `run pause|cancel` take a reason; `run resume` does not. */
export const controlRunOptions = (action: 'pause' | 'resume' | 'cancel') =>
  optionTable({
    json: jsonOption('print the resulting progress as JSON'),
    ...(action === 'resume'
      ? {}
      : { reason: { flags: '--reason <text>', description: 'why (kept in the run history)', schema: (k) => k.z.string().optional() } }),
  });

export const RERUN_FAILED_OPTIONS = optionTable({
  code: {
    flags: '--code <code...>',
    description: 'only accounts that failed with these error codes',
    schema: (k) => k.z.array(k.text('an error code')).optional(),
  },
  stage: {
    flags: '--stage <stage>',
    description: '"post-import": retry only the items carried over after import that failed (the accounts are not re-imported)',
    schema: (k) => k.z.literal('post-import', { error: 'only "post-import" is supported' }).optional(),
  },
  concurrency: {
    flags: '--concurrency <n>',
    description: 'accounts in flight at once (default: as the original run)',
    schema: (k) => k.positiveInt.optional(),
  },
  runId: { flags: '--run-id <id>', description: 'id of the new run', schema: (k) => k.z.string().optional() },
  watch: { flags: '--watch', description: 'watch the new run until it ends', schema: (k) => k.flag },
  json: jsonOption('print {runId, workflowId, uiUrl} of the new run'),
  list: {
    flags: '--list',
    description: 'print the accounts it would rerun, one a line (the count on stderr), and start nothing',
    schema: (k) => k.flag,
  },
});
