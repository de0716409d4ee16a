import type { RunPriority } from '../domain/priority';
import type { PaceView } from '../domain/platform-pace';
import type { OutcomeFacts } from '../domain/final-outcome';
import type { AttemptRef } from '../ledger/types';
import type { ImportStatusSummary, PrepareResult, ScheduleOutcome, StageDocumentsResult } from '../domain/step-results';
import type {
  AccountImportInput,
  AccountOutcome,
  ImportEventSignal,
  MigrationRunArgs,
  RunTotals,
  ScheduleWindow,
  Selection,
  SourceSpecRef,
  SupplierStatus,
} from '../domain/inputs';

export type { AttemptRef, ImportStatusSummary, PrepareResult, ScheduleOutcome, StageDocumentsResult };

export interface AccountPage {
  accounts: string[];
  nextCursor?: string;
  exhausted: boolean;
}

/** Per account the run asked to start: started, or settled at once (it exists from another run). */
export type StartResult = { externalAccountNumber: string; started: true } | { externalAccountNumber: string; started: false; outcome: AccountOutcome };

/** The account workflow's steps on the main task queue (local activities: short ledger, source and S3 work). */
export interface AccountActivities {
  prepareAccount(input: AttemptRef & { source: SourceSpecRef; workflowId: string; sendRegistrationFlows?: boolean }): Promise<PrepareResult>;
  stageDocuments(input: AttemptRef): Promise<StageDocumentsResult>;
  getSupplierStatus(input: { supplierCode: string }): Promise<SupplierStatus>;
  recordSupplierNotOngoing(input: { supplierCode: string }): Promise<void>;
  claimInboxEvent(input: AttemptRef): Promise<ImportEventSignal | undefined>;
  /**
   * The one recorded outcome. With `readBack`, a created account is first read back from the platform
   * and compared (one best-effort GET; `run reconcile` re-checks what it could not); returns the
   * outcome as recorded, `completed_with_differences` when the read-back differs.
   */
  recordOutcome(input: AttemptRef & OutcomeFacts): Promise<AccountOutcome>;
}

/** The run workflow's activities on the main task queue. */
export interface RunActivities {
  registerRun(input: MigrationRunArgs): Promise<void>;
  finishRun(input: { runId: string; status: 'completed' | 'cancelled'; totals: RunTotals }): Promise<void>;
  listAccounts(input: { runId: string; selection: Selection; source: SourceSpecRef; cursor?: string; limit: number }): Promise<AccountPage>;
  startAccounts(input: {
    taskQueue: string;
    account: Omit<AccountImportInput, 'externalAccountNumber'>;
    externalAccountNumbers: string[];
    /** Absent in runs started before priorities: the supplier as fairness key, Temporal's default priority. */
    priority?: RunPriority;
  }): Promise<StartResult[]>;
  /** The run's view of its accounts: which of these have a recorded outcome, and the supplier's status. */
  settleAccounts(input: {
    runId: string;
    supplierCode: string;
    externalAccountNumbers: string[];
  }): Promise<{ outcomes: AccountOutcome[]; supplierStatus: SupplierStatus; platform?: PaceView }>;
  wakeAccounts(input: { supplierCode: string; runId: string; dryRun: boolean; externalAccountNumbers: string[]; status: SupplierStatus }): Promise<void>;
  recordRemainingNotAttempted(input: {
    runId: string;
    supplierCode: string;
    selection: Selection;
    source: SourceSpecRef;
    cursor?: string;
    exhausted: boolean;
    buffer: string[];
    code: string;
    dryRun: boolean;
  }): Promise<number>;
}

export type MainActivities = AccountActivities & RunActivities;

/** Activities on the rate-limited platform task queue. */
export interface PlatformActivities {
  /** `awaitEventSeconds`: after an accepted answer, wait this long for the event (domain/event-wait.ts). */
  scheduleAccount(input: AttemptRef & { window: ScheduleWindow; awaitEventSeconds?: number }): Promise<ScheduleOutcome>;
  getImportStatus(input: AttemptRef): Promise<ImportStatusSummary>;
  /** After `import_process_failed_validation` by event or status: records the validate endpoint's field errors. */
  explainFailedValidation(input: AttemptRef): Promise<{ attr?: string; errorCount: number }>;
}
