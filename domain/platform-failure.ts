import { ApplicationFailure } from '@temporalio/common';
import { PLATFORM_ERROR_CODES } from './platform-error-codes';

/** What a platform error carries that Temporal needs (clients/platform/errors.ts's classes have it all). */
export interface PlatformFailureCause {
  readonly message: string;
  readonly code: string;
  readonly retryable: boolean;
  readonly status: number | undefined;
  /** From the platform's `Retry-After`, when it sent one. */
  readonly retryAfterMs?: number | undefined;
}

/**
 * The one mapping from a platform error to the Temporal failure an activity throws. The failure's
 * type is the error's stable code (`platform_rejected`, `platform_auth_failed`,
 * `platform_unavailable`, `platform_rate_limited`), never a class name. Transient errors stay
 * retryable, with the platform's Retry-After as the next delay; final ones are non-retryable.
 * Details carry the code and HTTP status only (no bodies: personal data stays out of history).
 */
export function platformFailure(e: PlatformFailureCause): ApplicationFailure {
  return ApplicationFailure.create({
    message: e.message,
    type: e.code,
    nonRetryable: !e.retryable,
    ...(e.retryable && e.retryAfterMs !== undefined ? { nextRetryDelay: e.retryAfterMs } : {}),
    details: [{ code: e.code, status: e.status }],
  });
}

/**
 * An attempt that starts before the platform's Retry-After has passed sends nothing: it fails as
 * rate-limited (retryable) and asks Temporal to come back when the wait is over.
 */
export function retryAfterFailure(waitMs: number): ApplicationFailure {
  return platformFailure({
    message: `${PLATFORM_ERROR_CODES.rateLimited}: waiting for the Retry-After the platform gave`,
    code: PLATFORM_ERROR_CODES.rateLimited,
    retryable: true,
    status: 429,
    retryAfterMs: waitMs,
  });
}
