import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/workflow';
import { FINAL_PLATFORM_ERROR_CODES } from '../domain/platform-error-codes';
import { EVENT_WAIT_SWEEP_SECONDS } from '../domain/event-wait';

/**
 * Every workflow's activity options and retry policies, stated once: the workflows proxy their
 * activities with these (adding only a task queue or a summary).
 */

/** Ledger, source and S3 work: a quick backoff, capped at a minute. */
const LOCAL_BACKOFF = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' } as const satisfies RetryPolicy;

/**
 * Platform calls: transient failures (network, 5xx, 429) retry with backoff; the activity marks
 * final answers (a final 4xx) non-retryable, and these types are never retried.
 */
const PLATFORM_RETRY = {
  initialInterval: '2s',
  backoffCoefficient: 2,
  maximumInterval: '5 minutes',
  nonRetryableErrorTypes: FINAL_PLATFORM_ERROR_CODES,
} as const satisfies RetryPolicy;

/** An account's short ledger, source and S3 work: local activities, a marker in history, not six events. */
export const ACCOUNT_LOCAL: LocalActivityOptions = { startToCloseTimeout: '2 minutes', retry: { ...LOCAL_BACKOFF, maximumAttempts: 20 } };

/** Recording an account's outcome must happen whatever it takes: retried until the ledger answers. */
export const RECORD_OUTCOME: LocalActivityOptions = { startToCloseTimeout: '30 seconds', retry: LOCAL_BACKOFF };

/** A platform call's start-to-close: the permit wait (activities/schedule.ts, at most 25 s) and the call. */
const PLATFORM_CALL_SECONDS = 45;

/**
 * A platform call on the rate-limited task queue (schedule, import status, read-back, post-import
 * sends: each safe to repeat): transient failures retry for up to a day.
 */
export const PLATFORM_CALL: ActivityOptions = {
  startToCloseTimeout: `${PLATFORM_CALL_SECONDS} seconds`,
  scheduleToCloseTimeout: '24 hours',
  retry: PLATFORM_RETRY,
};

/**
 * The schedule call when it also waits for the account's event (domain/event-wait.ts): its
 * start-to-close covers the call, the event wait and the events process's sweep of waits that ran
 * out. No heartbeat: the wait holds no worker, and a heartbeat is a billed action.
 */
export function scheduleAwaitingEvent(eventWaitSeconds: number): ActivityOptions {
  return { ...PLATFORM_CALL, startToCloseTimeout: `${PLATFORM_CALL_SECONDS + eventWaitSeconds + EVENT_WAIT_SWEEP_SECONDS} seconds` };
}

/**
 * A switch's follow (workflows/supply.ts): a read of the meter points' statuses and, when due, the
 * account's registration flows. A platform call like the others, retried for a day on transient
 * failures; a worker or tenant down for longer only delays the next read.
 */
export const SUPPLY_READ: ActivityOptions = PLATFORM_CALL;

/** Asking the validate endpoint why a process failed validation: it explains, never decides the outcome. */
export const EXPLAIN_CALL: ActivityOptions = {
  startToCloseTimeout: '45 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: { ...PLATFORM_RETRY, maximumInterval: '1 minute' },
};

/** A run's or a plan's ledger work: short, one marker (or one event) each in its history. */
export const RUN_LEDGER: LocalActivityOptions & ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { ...LOCAL_BACKOFF, maximumAttempts: 30 },
};

/** Recording every account a cancelled run never reached can take a while: a heartbeating activity. */
export const RUN_SWEEP: ActivityOptions = { ...RUN_LEDGER, startToCloseTimeout: '30 minutes', heartbeatTimeout: '1 minute' };

/** The after-import workflows' ledger work on the main queue. */
export const POST_IMPORT_LEDGER: ActivityOptions = { startToCloseTimeout: '30 seconds', retry: { ...LOCAL_BACKOFF, maximumAttempts: 20 } };

/** A supplier census (a plan wave's exit gate): it reads the tenant's whole list, minutes at a million accounts, heartbeating as it streams. */
export const CENSUS_READ: ActivityOptions = {
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
};
