import type pino from 'pino';
import type { Pool } from '../clients/db';
import type { ImportEventSignal } from '../domain/inputs';
import type { Accepted } from '../domain/event-wait';

// What the inbox row records of a delivery: defined with the row (ledger/inbox-record.ts).
export { MATCH_STATUSES, matchStatusSchema, RECEIVED_VIA, type MatchStatus, type ReceivedVia } from '../ledger/inbox-record';
import type { MatchStatus } from '../ledger/inbox-record';

/** Why a signal (or an activity's completion) could not be delivered: `workflow_gone` is final, `signal_failed` is retried by rematch. */
export class SignalError extends Error {
  constructor(
    readonly code: 'workflow_gone' | 'signal_failed',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SignalError';
  }
}

/** Delivers `importEventSignal` to one account workflow; throws {@link SignalError}. */
export type WorkflowSignaller = (workflowId: string, signal: ImportEventSignal) => Promise<void>;

/**
 * Completes a schedule activity waiting for its account's event (domain/event-wait.ts); throws
 * {@link SignalError} (`workflow_gone`: the activity is no longer there).
 */
export type ActivityCompleter = (activity: { workflowId: string; activityId: string }, result: Accepted) => Promise<void>;

export interface EventsDeps {
  pool: Pool;
  signal: WorkflowSignaller;
  complete: ActivityCompleter;
  logger: pino.Logger;
}

export type IngestResult =
  | { status: 'recorded'; eventId: string; matchStatus: MatchStatus; workflowId?: string }
  | { status: 'duplicate'; eventId: string; deliveries: number }
  | { status: 'rejected'; code: 'malformed_json' | 'unstorable_body' };
