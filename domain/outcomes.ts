import type { ImportStatusSummary, PrepareResult, ScheduleOutcome, StageDocumentsResult } from './step-results';
import type { AccountOutcome, ImportEventSignal } from './inputs';

/**
 * How an account's import ended, step by step, or why the run settled it without one; `outcomeOf`
 * turns it into the one outcome the ledger records, and `finalOutcome` (final-outcome.ts) adds what
 * the record step read. Every outcome is built here: the workflows, activities and ledger writes only
 * say what happened. Pure: the caller decides what happened, this decides what it means.
 */
export type Ending =
  | { step: 'prepare'; result: Extract<PrepareResult, { ok: false }> }
  | { step: 'documents'; result: Extract<StageDocumentsResult, { ok: false }> }
  | { step: 'guard'; supplier: 'COMPLETE' }
  | { step: 'schedule'; result: Exclude<ScheduleOutcome, { kind: 'accepted' } | { kind: 'supplier_not_ongoing' }> }
  | { step: 'event'; event: ImportEventSignal }
  | { step: 'poll'; status: ImportStatusSummary }
  | { step: 'timeout' }
  | { step: 'activity_failed'; stage: string; code: string }
  /** The run never started the account: it was cancelled (`run_cancelled`) or its supplier completed. */
  | { step: 'not_reached'; code: string }
  /** The account's workflow belongs to another run: its Temporal status there, and the account an earlier run created. */
  | { step: 'elsewhere'; status: string; accountNumber: string | undefined };

/** Import-status values that end the wait (`DRY_RUN_SUCCEEDED` only for a dry run). */
export function isTerminalStatus(status: ImportStatusSummary, dryRun: boolean): boolean {
  if (status.status === 'DRY_RUN_SUCCEEDED') return dryRun;
  return ['PROCESSED', 'ERRORED', 'DRY_RUN_ERRORED', 'CANCELLED'].includes(status.status);
}

export function outcomeOf(externalAccountNumber: string, e: Ending): AccountOutcome {
  const base = { externalAccountNumber };
  switch (e.step) {
    case 'prepare':
      return { ...base, outcome: 'failed', stage: e.result.stage, code: e.result.code, attr: e.result.attr, source: 'local' };
    case 'documents':
      return { ...base, outcome: 'failed', stage: 'documents', code: e.result.code, attr: e.result.attr, source: 'local' };
    case 'guard':
      return { ...base, outcome: 'not_attempted', stage: 'guard', code: 'import_supplier_migration_not_ongoing', source: 'local' };
    case 'schedule':
      switch (e.result.kind) {
        case 'already_imported':
          return { ...base, outcome: 'completed', stage: 'schedule', accountNumber: e.result.accountNumber, source: 'already_imported' };
        case 'catalogue_failed':
          return { ...base, outcome: 'failed', stage: 'catalogue', code: e.result.code, attr: e.result.attr, source: 'local' };
        case 'validation_failed':
          return { ...base, outcome: 'failed', stage: 'schedule', code: e.result.code, attr: e.result.attr, source: 'platform_response' };
      }
      break;
    case 'event': {
      const t = e.event.type;
      if (t.endsWith('.complete') || t.endsWith('.dry_run_complete'))
        return { ...base, outcome: 'completed', stage: 'await', accountNumber: e.event.identifier, source: 'event' };
      if (t.endsWith('.cancelled')) return { ...base, outcome: 'failed', stage: 'await', code: 'import_cancelled', source: 'event' };
      return { ...base, outcome: 'failed', stage: 'platform', code: e.event.errorCode ?? 'import_error', source: 'event' };
    }
    case 'poll':
      switch (e.status.status) {
        case 'PROCESSED':
          return { ...base, outcome: 'completed', stage: 'await', accountNumber: e.status.accountNumber, source: 'poll' };
        case 'DRY_RUN_SUCCEEDED':
          return { ...base, outcome: 'completed', stage: 'await', source: 'poll' };
        case 'CANCELLED':
          return { ...base, outcome: 'failed', stage: 'await', code: 'import_cancelled', source: 'poll' };
        default:
          return { ...base, outcome: 'failed', stage: 'platform', code: e.status.errorCode ?? 'import_error', source: 'poll' };
      }
    case 'timeout':
      return { ...base, outcome: 'failed', stage: 'await', code: 'outcome_timeout', source: 'poll' };
    case 'activity_failed':
      return { ...base, outcome: 'failed', stage: e.stage, code: e.code, source: 'local' };
    case 'not_reached':
      return { ...base, outcome: 'not_attempted', stage: 'guard', code: e.code, source: 'local' };
    case 'elsewhere':
      // Completed there: created once, by that run. Otherwise still in flight there (a failed one
      // would have let this run start it again).
      return e.status === 'COMPLETED'
        ? { ...base, outcome: 'completed', stage: 'done', accountNumber: e.accountNumber, source: 'already_imported' }
        : { ...base, outcome: 'not_attempted', stage: 'guard', code: 'account_in_flight_in_another_run', source: 'local' };
  }
  throw new Error(`unhandled ending ${JSON.stringify(e)}`);
}
