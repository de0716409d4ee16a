import { ApplicationFailure } from '@temporalio/common';
import { PlatformFinalError, PlatformTransientError } from './errors';

/**
 * A platform client error as the Temporal failure an activity throws. The failure's type is the
 * error's stable code (`platform_rejected`, `platform_auth_failed`, `platform_unavailable`,
 * `platform_rate_limited`), so an account that ends on it is recorded with that code, never with a
 * class name. Transient errors stay retryable (with the platform's Retry-After as the next delay);
 * final ones are marked non-retryable. Anything else is returned unchanged.
 */
export function toActivityFailure(e: unknown): unknown {
  if (e instanceof PlatformTransientError) {
    return ApplicationFailure.create({
      message: e.message,
      type: e.code,
      nonRetryable: false,
      ...(e.retryAfterMs !== undefined ? { nextRetryDelay: e.retryAfterMs } : {}),
      details: [{ code: e.code, status: e.status }],
    });
  }
  if (e instanceof PlatformFinalError) {
    return ApplicationFailure.create({ message: e.message, type: e.code, nonRetryable: true, details: [{ code: e.code, status: e.status }] });
  }
  return e;
}
