import { describe, expect, it } from 'vitest';
import { admitsSchedule, capacityPerSecond, concurrencyLimitBody } from '../../sandbox/concurrency-limit';

describe("the tenant's concurrency limit", () => {
  it('admits a new account while fewer than the limit are in processing, and refuses it at the limit', () => {
    expect(admitsSchedule({ limit: 20, live: 0, alreadyLive: false })).toBe(true);
    expect(admitsSchedule({ limit: 20, live: 19, alreadyLive: false })).toBe(true);
    expect(admitsSchedule({ limit: 20, live: 20, alreadyLive: false })).toBe(false);
    expect(admitsSchedule({ limit: 20, live: 25, alreadyLive: false })).toBe(false);
  });

  it('answers a repeat of an account already in processing as before (it adds none), whatever the load', () => {
    expect(admitsSchedule({ limit: 20, live: 20, alreadyLive: true })).toBe(true);
  });

  it('has no limit at 0', () => {
    expect(admitsSchedule({ limit: 0, live: 1_000_000, alreadyLive: false })).toBe(true);
  });

  it('has a capacity of limit ÷ processing time', () => {
    expect(capacityPerSecond(20, 2_000)).toBe(10);
    expect(capacityPerSecond(80, 4_000)).toBe(20);
    expect(capacityPerSecond(0, 2_000)).toBe(Number.POSITIVE_INFINITY);
    expect(capacityPerSecond(20, 0)).toBe(Number.POSITIVE_INFINITY);
  });

  it("answers in the spec's ErrorResponse shape, saying to retry once other accounts have finished", () => {
    const body = concurrencyLimitBody(20);
    expect(Object.keys(body).sort()).toEqual(['code', 'detail']);
    expect(body.code).toBe('concurrency_limit_exceeded');
    expect(body.detail).toContain('20 accounts being processed at once');
    expect(body.detail).toContain('Retry once other ongoing accounts have finished processing');
  });
});
