import { describe, expect, it } from 'vitest';
import { paceSignalOf } from '../../../activities/schedule';
import { PLATFORM_ERROR_CODES, PlatformTransientError } from '../../../clients/platform';

const transient = (status: number | undefined, retryAfterMs?: number) =>
  new PlatformTransientError(status === 429 ? PLATFORM_ERROR_CODES.rateLimited : PLATFORM_ERROR_CODES.unavailable, {
    method: 'POST',
    path: '/v2/data-import/accounts/',
    status,
    reason: status === undefined ? 'network' : 'http_status',
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

describe("what a failed schedule call tells the tenant's pace", () => {
  it('a 429 is a refusal, with its Retry-After when the tenant sent one', () => {
    expect(paceSignalOf(transient(429))).toEqual({ kind: 'throttled' });
    expect(paceSignalOf(transient(429, 3_000))).toEqual({ kind: 'throttled', retryAfterMs: 3_000 });
  });

  it('a 5xx is a server error', () => {
    expect(paceSignalOf(transient(500))).toEqual({ kind: 'server_error' });
    expect(paceSignalOf(transient(503))).toEqual({ kind: 'server_error' });
    expect(paceSignalOf(transient(503, 4_000))).toEqual({ kind: 'server_error', retryAfterMs: 4_000 });
  });

  it('a network failure, another status or another error tells it nothing', () => {
    expect(paceSignalOf(transient(undefined))).toBeUndefined();
    expect(paceSignalOf(transient(408))).toBeUndefined();
    expect(paceSignalOf(transient(499))).toBeUndefined();
    expect(paceSignalOf(new Error('boom'))).toBeUndefined();
  });
});
