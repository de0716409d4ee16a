import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mean, median, passFigures, percentile, ratio, steadyRate } from '../../bench/stats';

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted on purpose

  it('returns observed values: p50 of 1..100 is 50, p95 is 95, p100 the max, p0 the min', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 95)).toBe(95);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile(hundred, 0)).toBe(1);
  });

  it('on small samples rounds the rank up (p95 of 10 values is the 10th)', () => {
    const ten = [7, 3, 9, 1, 5, 10, 2, 8, 4, 6];
    expect(percentile(ten, 95)).toBe(10);
    expect(percentile(ten, 50)).toBe(5);
    expect(percentile([42], 95)).toBe(42);
  });

  it('is undefined for no values and rejects p outside 0..100', () => {
    expect(percentile([], 50)).toBeUndefined();
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });

  it('does not reorder its input', () => {
    const input = [3, 1, 2];
    percentile(input, 50);
    expect(input).toEqual([3, 1, 2]);
  });

  it('is always a member of the sample, monotonic in p, and at least p% of values are <= it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        (xs, p, q) => {
          const v = percentile(xs, p)!;
          expect(xs).toContain(v);
          expect(xs.filter((x) => x <= v).length).toBeGreaterThanOrEqual(Math.ceil((p / 100) * xs.length));
          const [lo, hi] = p <= q ? [p, q] : [q, p];
          expect(percentile(xs, lo)!).toBeLessThanOrEqual(percentile(xs, hi)!);
        },
      ),
    );
  });
});

describe('median, mean, ratio', () => {
  it('median averages the middle pair of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([5, 1, 3])).toBe(3);
    expect(median([])).toBeUndefined();
  });

  it('mean of nothing is undefined, not 0', () => {
    expect(mean([2, 4, 9])).toBe(5);
    expect(mean([])).toBeUndefined();
  });

  it('ratio is undefined when a side is missing or the divisor is 0', () => {
    expect(ratio(3, 12)).toBe(0.25);
    expect(ratio(3, 0)).toBeUndefined();
    expect(ratio(undefined, 2)).toBeUndefined();
    expect(ratio(2, undefined)).toBeUndefined();
  });
});

describe('passFigures', () => {
  it('derives throughput, nearest-rank latencies and mean history length from the raw measurements', () => {
    const f = passFigures({
      accounts: 5,
      concurrency: 2,
      completed: 4,
      wallMs: 2000,
      latenciesMs: [100.4, 300, 200, 400.6],
      historyLengths: [10, 11],
      loadAvg1: 1.234,
    });
    expect(f).toEqual({
      accounts: 5,
      concurrency: 2,
      completed: 4,
      notCompleted: 1,
      wallSeconds: 2,
      accountsPerSecond: 2,
      latency: { p50Ms: 200, p95Ms: 401, maxMs: 401 },
      // 1,001 ms of accounts in 2 slots × 2,000 ms.
      slotsBusy: 0.25,
      loadAvg1: 1.23,
      historyEventsPerAccount: 10.5,
    });
  });
});

/** When each account of a sliding window finishes: the next starts on the earliest free slot. */
function slidingWindowEnds(latenciesMs: readonly number[], concurrency: number): number[] {
  const free = Array.from({ length: concurrency }, () => 0);
  return latenciesMs.map((ms) => {
    free.sort((a, b) => a - b);
    free[0] += ms;
    return free[0];
  });
}

describe('steadyRate', () => {
  it('is the window-full pace: 100 slots of 1 s accounts finish 100 a second, whatever the drain does', () => {
    const even = Array.from({ length: 600 }, () => 1000);
    // The same pass with its last ten accounts stuck 10 s: the wall-clock rate falls by almost half.
    const stuck = even.map((ms, i) => (i >= 590 ? 11_000 : ms));
    for (const latencies of [even, stuck]) expect(steadyRate(slidingWindowEnds(latencies, 100), 100)).toBeCloseTo(100, 6);
    expect(600 / (Math.max(...slidingWindowEnds(stuck, 100)) / 1000)).toBeLessThan(55);
  });

  it('follows the steady part: accounts twice as slow there halve it', () => {
    const latencies = Array.from({ length: 600 }, (_, i) => (i >= 100 && i < 500 ? 2000 : 1000));
    expect(steadyRate(slidingWindowEnds(latencies, 100), 100)).toBeCloseTo(50, 0);
  });

  it('takes the finishes in any order, and is undefined when the steady part is shorter than the window', () => {
    const ends = slidingWindowEnds(
      Array.from({ length: 300 }, (_, i) => 500 + (i % 7) * 100),
      50,
    );
    const shuffled = [...ends].reverse();
    expect(steadyRate(shuffled, 50)).toBe(steadyRate(ends, 50));
    expect(steadyRate(ends.slice(0, 149), 50)).toBeUndefined();
    expect(steadyRate(ends.slice(0, 150), 50)).toBeGreaterThan(0);
    expect(
      steadyRate(
        Array.from({ length: 9 }, () => 5),
        3,
      ),
    ).toBeUndefined();
  });

  it('passFigures reports it beside the wall-clock rate when the finishes are given', () => {
    const ends = slidingWindowEnds(
      Array.from({ length: 30 }, () => 1000),
      10,
    );
    const f = passFigures({
      accounts: 30,
      concurrency: 10,
      completed: 30,
      wallMs: 3000,
      latenciesMs: ends.map(() => 1000),
      endsMs: ends,
      historyLengths: [],
      loadAvg1: 0,
    });
    expect(f.steadyAccountsPerSecond).toBe(10);
    expect(
      passFigures({ accounts: 30, concurrency: 10, completed: 30, wallMs: 3000, latenciesMs: [], historyLengths: [], loadAvg1: 0 }).steadyAccountsPerSecond,
    ).toBeUndefined();
  });
});
