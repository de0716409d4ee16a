import type pino from 'pino';
import type { Pool } from '../clients/db';
import type { ImportEventSignal } from '../domain/inputs';

// What the inbox row records of a delivery: defined with the row (ledger/inbox-record.ts).
export { MATCH_STATUSES, matchStatusSchema, RECEIVED_VIA, type MatchStatus, type ReceivedVia } from '../ledger/inbox-record';
import type { MatchStatus } from '../ledger/inbox-record';

/** Why a signal could not be delivered: `workflow_gone` is final, `signal_failed` is retried by rematch. */
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

export interface EventsDeps {
  pool: Pool;
  signal: WorkflowSignaller;
  logger: pino.Logger;
}

export type IngestResult =
  | { status: 'recorded'; eventId: string; matchStatus: MatchStatus; workflowId?: string }
  | { status: 'duplicate'; eventId: string; deliveries: number }
  | { status: 'rejected'; code: 'malformed_json' | 'unstorable_body' };
