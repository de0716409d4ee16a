import type { ImportEventSignal, SupplierStatus } from './inputs';

/**
 * What the account workflow's steps answer (activities/types.ts), here so the outcome functions
 * (outcomes.ts) that read them stand in this layer with the rest of the outcome's decisions.
 */

export type PrepareResult =
  /** `staged`: prepare staged the documents itself (absent from answers recorded before it did). */
  | { ok: true; documentCount: number; supplierStatus: SupplierStatus; staged?: StageDocumentsResult }
  | { ok: false; stage: 'source' | 'transform' | 'validate'; code: string; attr?: string; errorCount: number };

export type StageDocumentsResult = { ok: true; uploaded: number; alreadyPresent: number } | { ok: false; code: string; attr?: string };

/** The detail a step's failure carries when it failed while staging documents (activities/stage-documents.ts). */
export const STAGING_FAILED = { stage: 'documents' } as const;

/** Whether an activity's failure details say it failed while staging documents. */
export function failedWhileStaging(details: readonly unknown[] | null | undefined): boolean {
  const first: unknown = details?.[0];
  return typeof first === 'object' && first !== null && (first as { stage?: unknown }).stage === STAGING_FAILED.stage;
}

export type ScheduleOutcome =
  /**
   * In processing at the tenant. When the workflow asked the activity to wait for the event
   * (domain/event-wait.ts): `event` when it came, `waited` when the wait ran out without one.
   */
  | { kind: 'accepted'; event?: ImportEventSignal; waited?: true }
  | { kind: 'already_imported'; accountNumber: string }
  | { kind: 'validation_failed'; code: string; attr?: string; errorCount: number }
  /** The tariff pre-flight: the platform's catalogue does not know a tariff the account uses. */
  | { kind: 'catalogue_failed'; code: string; attr?: string; errorCount: number }
  /** The platform refused, or the ledger's mirror says the supplier is paused or complete. */
  | { kind: 'supplier_not_ongoing' };

export interface ImportStatusSummary {
  status: string;
  accountNumber?: string;
  errorCode?: string;
}
