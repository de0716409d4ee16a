import type { ScheduleAccountCreation } from '../../schemas/account';
import type { ImportStatusResponse } from '../../schemas/import-status';
import type { DataImportApi, ScheduleResult } from './data-import';

/** What the status endpoint says about an earlier schedule call whose answer we did not see. */
export type UnseenAnswerVerdict =
  /** No import, or only one that ended without creating anything: scheduling (again) cannot create a second account. */
  | { kind: 'schedule' }
  /** An import is live (or in a state we do not know): it is ours to wait for; scheduling again could duplicate it. */
  | { kind: 'wait'; status: string }
  /** The account exists. */
  | { kind: 'imported'; accountNumber: string };

// Terminal states that created no account: a new schedule starts a new import (the documented rerun).
const ENDED_WITHOUT_ACCOUNT = new Set(['ERRORED', 'CANCELLED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED']);

/**
 * Reads the latest import of the account after a schedule call whose answer was lost. It does not
 * matter whether the import shown is the one our lost call created or an older one (a rerun after
 * ERRORED shows the older process until ours lands): a live one must not be scheduled over, an
 * ended one without an account may be, and an account that exists is the outcome.
 */
export function afterUnseenAnswer(status: Pick<ImportStatusResponse, 'status' | 'kraken_identifier'> | undefined): UnseenAnswerVerdict {
  if (!status) return { kind: 'schedule' };
  const s: string = status.status;
  if (s === 'PROCESSED' && status.kraken_identifier) return { kind: 'imported', accountNumber: status.kraken_identifier };
  if (ENDED_WITHOUT_ACCOUNT.has(s)) return { kind: 'schedule' };
  // PENDING, IN_PROGRESS, PROCESSED without an identifier yet, or a status the spec's free string may
  // add: the import is the platform's to finish; the caller waits for its outcome (event or polling).
  return { kind: 'wait', status: s };
}

export type ScheduleOnceResult = ScheduleResult & {
  /** Set when the status endpoint answered for a lost call (what the platform already had). */
  learnedFromStatus?: string;
};

export interface ScheduleOnceInput {
  request: ScheduleAccountCreation;
  /**
   * True when an earlier schedule call for this account may have reached the platform without its
   * answer reaching us: a timeout, a dropped connection, a 5xx, a crash mid-call (in the activity:
   * every retry attempt). Then the status endpoint is asked before anything is sent again.
   */
  answerUnseen: boolean;
}

/**
 * Schedules an account's import at most once per lost answer's worth of doubt: after a call whose
 * answer was not seen, the platform's status decides (see `afterUnseenAnswer`). Correct whichever way
 * a tenant treats a second schedule while one is pending (201 again, a 400, or a second process):
 * the client never sends one. Errors of either call propagate (transient ones are retried by the
 * caller, which then passes `answerUnseen: true`).
 */
export async function scheduleOnce(
  api: Pick<DataImportApi, 'scheduleAccountCreation' | 'getImportStatus'>,
  input: ScheduleOnceInput,
): Promise<ScheduleOnceResult> {
  const { payload } = input.request;
  if (input.answerUnseen) {
    const supplier = payload.import_supplier;
    const ext = payload.external_account_number;
    if (typeof supplier !== 'string' || typeof ext !== 'string') {
      // Without both the status cannot be asked; the platform refuses such a payload anyway.
      return api.scheduleAccountCreation(input.request);
    }
    const status = await api.getImportStatus(supplier, ext);
    const verdict = afterUnseenAnswer(status);
    if (verdict.kind === 'wait') return { kind: 'accepted', body: undefined, learnedFromStatus: verdict.status };
    if (verdict.kind === 'imported') return { kind: 'already_imported', accountNumber: verdict.accountNumber, learnedFromStatus: 'PROCESSED' };
  }
  return api.scheduleAccountCreation(input.request);
}
