import type { AccountOutcome, ImportEventSignal, MigrationRunArgs, RunTotals, ScheduleWindow, Selection, SourceSpecRef, SupplierStatus } from '../workflows/inputs';

/** Identifies one account attempt: everything else (payload, documents, errors) is in the ledger. */
export interface AttemptRef {
  runId: string;
  externalAccountNumber: string;
  supplierCode: string;
  dryRun: boolean;
}

export type PrepareResult =
  | { ok: true; documentCount: number }
  | { ok: false; stage: 'source' | 'transform' | 'validate' | 'catalogue'; code: string; attr?: string; errorCount: number };

export type StageDocumentsResult = { ok: true; uploaded: number; alreadyPresent: number } | { ok: false; code: string; attr?: string };

export type ScheduleOutcome =
  | { kind: 'accepted' }
  | { kind: 'already_imported'; accountNumber: string }
  | { kind: 'validation_failed'; code: string; attr?: string; errorCount: number }
  | { kind: 'supplier_not_ongoing' };

export interface ImportStatusSummary {
  status: string;
  accountNumber?: string;
  errorCode?: string;
}

export interface AccountPage {
  accounts: string[];
  nextCursor?: string;
  exhausted: boolean;
}

/** Activities on the main task queue (ledger, source, S3). */
export interface MainActivities {
  registerRun(input: MigrationRunArgs): Promise<void>;
  finishRun(input: { runId: string; status: 'completed' | 'cancelled'; totals: RunTotals }): Promise<void>;
  listAccounts(input: { runId: string; selection: Selection; source: SourceSpecRef; cursor?: string; limit: number }): Promise<AccountPage>;
  prepareAccount(input: AttemptRef & { source: SourceSpecRef; workflowId: string }): Promise<PrepareResult>;
  stageDocuments(input: AttemptRef): Promise<StageDocumentsResult>;
  getSupplierStatus(input: { supplierCode: string }): Promise<SupplierStatus>;
  recordSupplierNotOngoing(input: { supplierCode: string }): Promise<void>;
  findInboxEvent(input: AttemptRef): Promise<ImportEventSignal | undefined>;
  recordOutcome(input: AttemptRef & { outcome: AccountOutcome }): Promise<void>;
  findRecordedOutcomes(input: { runId: string; externalAccountNumbers: string[] }): Promise<AccountOutcome[]>;
  recordExistingAccountWorkflow(input: AttemptRef): Promise<AccountOutcome>;
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

/** Activities on the rate-limited platform task queue. */
export interface PlatformActivities {
  scheduleAccountCreation(input: AttemptRef & { window: ScheduleWindow }): Promise<ScheduleOutcome>;
  getImportStatus(input: AttemptRef): Promise<ImportStatusSummary>;
  /** After `import_process_failed_validation` by event or status: records the validate endpoint's field errors. */
  explainFailedValidation(input: AttemptRef): Promise<{ attr?: string; errorCount: number }>;
}
