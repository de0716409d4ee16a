import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { PLATFORM_ERROR_CODES, PlatformFinalError, PlatformTransientError, toActivityFailure } from '../../../clients/platform';

// The workflow records an account that ends on an activity failure with the failure's type: it must
// be the platform error's code, never a class name such as PlatformFinalError.
describe('toActivityFailure', () => {
  it('a final error becomes a non-retryable failure typed with its code', () => {
    const f = toActivityFailure(new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, { method: 'POST', path: '/v2/data-import/accounts/', status: 400 }, 'x'));
    expect(f).toBeInstanceOf(ApplicationFailure);
    expect((f as ApplicationFailure).type).toBe('platform_rejected');
    expect((f as ApplicationFailure).nonRetryable).toBe(true);
  });

  it('a transient error stays retryable, typed with its code, with Retry-After as the next delay', () => {
    const f = toActivityFailure(
      new PlatformTransientError(PLATFORM_ERROR_CODES.rateLimited, { method: 'GET', path: '/x', status: 429, reason: 'http_status', retryAfterMs: 2000 }),
    ) as ApplicationFailure;
    expect(f.type).toBe('platform_rate_limited');
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBe(2000);
  });

  it('other errors pass through', () => {
    const e = new Error('boom');
    expect(toActivityFailure(e)).toBe(e);
  });
});
