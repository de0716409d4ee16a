import { PlatformTransientError } from './errors';

/**
 * Retries for platform calls made outside an activity (a CLI command reading a list), where no
 * Temporal retry policy stands behind them: the activities' own shape (exponential from
 * `initialMs`, capped at `maxMs`, a bounded number of attempts); a `Retry-After` the platform sent
 * is the next delay instead, as in the activities (docs/design.md). Only transient failures are retried; a final one is thrown at once.
 */
export interface RetryPolicy {
  attempts: number;
  initialMs: number;
  maxMs: number;
}

/** A whole list read again from its start: 6 attempts over about a minute. */
export const LIST_READ_RETRY: RetryPolicy = { attempts: 6, initialMs: 2000, maxMs: 30_000 };

/** The wait before attempt `attempt + 1` (attempt counts from 1). */
export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined): number {
  const backoff = Math.min(policy.maxMs, policy.initialMs * 2 ** (attempt - 1));
  return retryAfterMs ?? backoff;
}

export async function retryTransient<T>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  opts: { sleep?: (ms: number) => Promise<void>; onRetry?: (e: PlatformTransientError, attempt: number, delayMs: number) => void } = {},
): Promise<T> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (!(e instanceof PlatformTransientError) || attempt >= policy.attempts) throw e;
      const delay = retryDelayMs(policy, attempt, e.retryAfterMs);
      opts.onRetry?.(e, attempt, delay);
      await sleep(delay);
    }
  }
}
