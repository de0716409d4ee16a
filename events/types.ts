import { z } from 'zod';
import type pino from 'pino';
import type { Pool } from '../clients/db';
import type { ImportEventSignal } from '../workflows/inputs';

export const MATCH_STATUSES = ['pending', 'matched', 'unmatched', 'ambiguous', 'late', 'unknown_type'] as const;
export const matchStatusSchema = z.enum(MATCH_STATUSES);
export type MatchStatus = z.infer<typeof matchStatusSchema>;

export const RECEIVED_VIA = ['webhook', 'sqs', 'test'] as const;
export type ReceivedVia = (typeof RECEIVED_VIA)[number];

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
