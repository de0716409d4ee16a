import { z } from 'zod';
import { sourceSpecSchema } from './source-spec';
import { TIMING_DEFAULTS } from './timing-defaults';
import { STOP_LINE_DEFAULTS } from './stop-line-defaults';

/**
 * Workflow inputs, outputs and messages. Small by design: references and summaries only, never an
 * account payload (personal data stays in Postgres). Workflow code imports these as types only;
 * clients validate with the schemas before starting anything.
 */

export type SourceSpecRef = z.infer<typeof sourceSpecSchema>;

export const selectionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all'), limit: z.number().int().positive().optional() }),
  /** Accounts listed in a file the run reads page by page (one external account number a line). */
  z.object({ kind: z.literal('list'), path: z.string().min(1) }),
  z.object({ kind: z.literal('failed_of_run'), runId: z.string().min(1), codes: z.array(z.string()).optional() }),
]);
export type Selection = z.infer<typeof selectionSchema>;

export const scheduleWindowSchema = z.object({
  start: z.string().optional(),
  end: z.string().optional(),
  /** Used when `end` is absent: end = start + hours (the platform allows at most 4 days). */
  hours: z.number().positive().max(96).default(24),
});
export type ScheduleWindow = z.infer<typeof scheduleWindowSchema>;

export const timingsSchema = z.object({
  /** How long to wait for the outcome event before polling the import-status endpoint. */
  eventWaitSeconds: z.number().positive().default(TIMING_DEFAULTS.eventWaitSeconds),
  /** Longest time an account waits for its outcome, polling with backoff. */
  pollMaxSeconds: z.number().positive().default(TIMING_DEFAULTS.pollMaxSeconds),
  /** How often a paused run or waiting account rechecks the supplier status without a signal. */
  supplierRecheckSeconds: z.number().positive().default(TIMING_DEFAULTS.supplierRecheckSeconds),
  /** On a switch: the back-off between reads of the meter point statuses (SUPPLY_POLL_MIN_SECONDS … SUPPLY_POLL_MAX_SECONDS). */
  supplyPollMinSeconds: z.number().positive().default(TIMING_DEFAULTS.supplyPollMinSeconds),
  supplyPollMaxSeconds: z.number().positive().default(TIMING_DEFAULTS.supplyPollMaxSeconds),
});
export type Timings = z.infer<typeof timingsSchema>;

export const runTotalsSchema = z.object({
  enumerated: z.number().int().default(0),
  dispatched: z.number().int().default(0),
  completed: z.number().int().default(0),
  failed: z.number().int().default(0),
  notAttempted: z.number().int().default(0),
  alreadyCompletedElsewhere: z.number().int().default(0),
  failedByCode: z.record(z.string(), z.number().int()).default({}),
  /** Of `completed`: accounts whose read-back differed from what was sent. */
  completedWithDifferences: z.number().int().optional(),
  outcomeSources: z.record(z.string(), z.number().int()).default({}),
});
export type RunTotals = z.infer<typeof runTotalsSchema>;

/** Stop the line (domain/stop-line.ts): the run pauses its own dispatch when the platform keeps failing accounts. */
export const stopLineSchema = z.object({
  enabled: z.boolean().default(true),
  maxFailureRate: z.number().min(0).max(1).default(STOP_LINE_DEFAULTS.maxFailureRate),
  overLast: z.number().int().min(1).max(1000).default(STOP_LINE_DEFAULTS.overLast),
  maxSameCode: z.number().int().min(1).default(STOP_LINE_DEFAULTS.maxSameCode),
});
export type StopLineSettings = z.infer<typeof stopLineSchema>;

const stopLineSampleSchema = z.object({ externalAccountNumber: z.string(), code: z.string() });
const stopLineStateSchema = z.object({
  recent: z.array(z.string()),
  streak: z.object({ code: z.string(), count: z.number().int() }),
  samples: z.array(stopLineSampleSchema),
  dataErrors: z.number().int(),
  platformFailures: z.number().int(),
  tripped: z
    .object({
      rule: z.enum(['max_same_code', 'max_failure_rate']),
      code: z.string(),
      count: z.number().int(),
      over: z.number().int().optional(),
      samples: z.array(stopLineSampleSchema),
      message: z.string(),
    })
    .optional(),
});

export const migrationRunInputSchema = z.object({
  runId: z.string().min(1),
  supplierCode: z.string().min(1),
  source: sourceSpecSchema,
  selection: selectionSchema,
  dryRun: z.boolean().default(false),
  concurrency: z.number().int().min(1).max(500).default(50),
  /** The run's fairness weight beside other suppliers' runs (domain/priority.ts); absent in runs started before it: 1. */
  weight: z.number().min(0.001).max(1000).optional(),
  pageSize: z.number().int().min(1).max(1000).default(200),
  window: scheduleWindowSchema.default({ hours: 24 }),
  timings: timingsSchema.default({ ...TIMING_DEFAULTS }),
  /** History length at which the run continues as new: well under Temporal's 51,200-event limit. */
  continueAsNewAtEvents: z.number().int().min(50).max(40_000).default(8_000),
  /** After `complete`, read the account back and compare it with what was sent. */
  reconcile: z.boolean().default(true),
  /** After creation, carry over what changed in the source since extraction (post-import endpoints). */
  carryOverChanges: z.boolean().default(false),
  /**
   * The migration type, named after the tenant's import configuration flag: on an on-market switch
   * each created account's meter points are sent for registration and followed to supply
   * (workflows/supply.ts); otherwise no flow is ever sent and agents to appoint fail locally.
   */
  sendRegistrationFlows: z.boolean().default(false),
  /** Absent in runs started before stop-the-line existed: they get the defaults. */
  stopLine: stopLineSchema.default({ enabled: true, ...STOP_LINE_DEFAULTS }),
  /** Set by a cutover plan (workflows/cutover-plan.ts): dispatch nothing until the plan's first window opens. */
  dispatch: z.object({ limit: z.number().int().min(0).nullable(), until: z.number().nullable() }).optional(),
  /** Carried across continue-as-new. */
  state: z
    .object({
      cursor: z.string().optional(),
      exhausted: z.boolean(),
      buffer: z.array(z.string()),
      inFlight: z.array(z.string()),
      totals: runTotalsSchema,
      paused: z.boolean(),
      cancelled: z.boolean(),
      completeSupplier: z.boolean(),
      stopLine: stopLineStateSchema.optional(),
      dispatch: z.object({ limit: z.number().int().min(0).nullable(), until: z.number().nullable() }).optional(),
    })
    .optional(),
});
export type MigrationRunInput = z.input<typeof migrationRunInputSchema>;
export type MigrationRunArgs = z.infer<typeof migrationRunInputSchema>;
export type RunState = NonNullable<MigrationRunArgs['state']>;

export const accountImportInputSchema = z.object({
  runId: z.string(),
  runWorkflowId: z.string().optional(),
  supplierCode: z.string(),
  externalAccountNumber: z.string(),
  source: sourceSpecSchema,
  dryRun: z.boolean(),
  window: scheduleWindowSchema,
  timings: timingsSchema,
  reconcile: z.boolean().optional(),
  carryOverChanges: z.boolean().optional(),
  /** The run's migration type (absent in accounts started before it: not a switch). */
  sendRegistrationFlows: z.boolean().optional(),
});
export type AccountImportInput = z.infer<typeof accountImportInputSchema>;

export const accountOutcomeSchema = z.object({
  externalAccountNumber: z.string(),
  outcome: z.enum(['completed', 'completed_with_differences', 'failed', 'not_attempted']),
  stage: z.string(),
  code: z.string().optional(),
  attr: z.string().optional(),
  accountNumber: z.string().optional(),
  source: z.enum(['event', 'poll', 'already_imported', 'local', 'platform_response']).optional(),
});
export type AccountOutcome = z.infer<typeof accountOutcomeSchema>;

/** What the events router signals to a waiting account workflow. */
export const importEventSignalSchema = z.object({
  eventId: z.string(),
  type: z.string(),
  identifier: z.string().optional(),
  errorCode: z.string().optional(),
  /** `post_import.*` events: what kind of item (NOTE, TRANSACTION, …). */
  resourceType: z.string().optional(),
});
export type ImportEventSignal = z.infer<typeof importEventSignalSchema>;

/** An event as the ledger's inbox keeps it (ledger/inbox.ts, ledger/post-import-items.ts): nulls for what it lacks. */
export interface InboxEventRow {
  eventId: string;
  eventType: string;
  identifier?: string | null;
  errorCode?: string | null;
  resourceType?: string | null;
}

/**
 * The one mapping from an inbox row to the signal a waiting workflow receives: whether the router
 * signals it at once or the workflow claims it from the inbox later, it sees the same value. Empty
 * fields are left out (not `null`), as the signal's schema above says.
 */
export function importEventSignalOf(row: InboxEventRow): ImportEventSignal {
  const signal: ImportEventSignal = { eventId: row.eventId, type: row.eventType };
  if (row.identifier) signal.identifier = row.identifier;
  if (row.errorCode) signal.errorCode = row.errorCode;
  if (row.resourceType) signal.resourceType = row.resourceType;
  return signal;
}

export { SUPPLIER_STATUSES, type SupplierStatus } from './supplier-status';
