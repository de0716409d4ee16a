import { describe, expect, it } from 'vitest';
import { DEFAULT_PACE, initialPace, nextPace, takeTurn, throttledShare, type PaceParams, type PaceState } from '../../../domain/platform-pace';

const p: PaceParams = { minRate: 0.5, maxRate: 50, initialRate: 2, increase: 1, decrease: 0.5, holdMs: 2_000, slowLatencyMs: 5_000 };
const at = (rate: number, over: Partial<PaceState> = {}): PaceState => ({ rate, probing: false, holdUntilMs: 0, ...over });

describe('the pace of schedule calls (AIMD)', () => {
  it('starts probing at the initial rate, clamped to the ceiling and floor', () => {
    expect(initialPace(p)).toEqual({ rate: 2, probing: true, holdUntilMs: 0 });
    expect(initialPace({ ...p, initialRate: 80 }).rate).toBe(50);
    expect(initialPace({ ...p, initialRate: 0.1 }).rate).toBe(0.5);
  });

  it('while probing, each accepted call adds `increase` (a doubling a second)', () => {
    expect(nextPace(at(4, { probing: true }), { kind: 'accepted', latencyMs: 100, waited: true }, p, 0)).toEqual(at(5, { probing: true }));
  });

  it('after the first refusal, each accepted call adds increase / rate (increase a second)', () => {
    expect(nextPace(at(4), { kind: 'accepted', latencyMs: 100, waited: true }, p, 0)).toEqual(at(4.25));
  });

  it('never rises past the ceiling', () => {
    expect(nextPace(at(50, { probing: true }), { kind: 'accepted', latencyMs: 100, waited: true }, p, 0).rate).toBe(50);
    expect(nextPace(at(49.99), { kind: 'accepted', latencyMs: 100, waited: true }, p, 0).rate).toBe(50);
  });

  it('an accepted call that did not wait for its turn holds the rate (the callers, not the rate, held it back)', () => {
    const s = at(4, { probing: true });
    expect(nextPace(s, { kind: 'accepted', latencyMs: 100, waited: false }, p, 0)).toBe(s);
    expect(nextPace(at(4), { kind: 'accepted', latencyMs: 100, waited: false }, p, 0)).toEqual(at(4));
  });

  it('a slow accepted call holds the rate where it is', () => {
    const s = at(4, { probing: true });
    expect(nextPace(s, { kind: 'accepted', latencyMs: 5_001, waited: true }, p, 0)).toBe(s);
    expect(nextPace(s, { kind: 'accepted', latencyMs: 5_000, waited: true }, p, 0).rate).toBe(5);
  });

  it('a 429 multiplies the rate by `decrease`, ends probing and holds for holdMs', () => {
    expect(nextPace(at(10, { probing: true }), { kind: 'throttled' }, p, 1_000)).toEqual({ rate: 5, probing: false, holdUntilMs: 3_000 });
  });

  it("a 429's Retry-After longer than the hold is the hold", () => {
    expect(nextPace(at(10), { kind: 'throttled', retryAfterMs: 7_000 }, p, 1_000).holdUntilMs).toBe(8_000);
    expect(nextPace(at(10), { kind: 'throttled', retryAfterMs: 500 }, p, 1_000).holdUntilMs).toBe(3_000);
  });

  it('a 5xx lowers the rate as a 429 does', () => {
    expect(nextPace(at(10), { kind: 'server_error' }, p, 1_000)).toEqual({ rate: 5, probing: false, holdUntilMs: 3_000 });
  });

  it('refusals during the hold change nothing but end probing; at its end they lower the rate again', () => {
    const held = at(5, { probing: true, holdUntilMs: 3_000 });
    expect(nextPace(held, { kind: 'throttled' }, p, 2_999)).toEqual({ ...held, probing: false });
    expect(nextPace(held, { kind: 'server_error' }, p, 2_999)).toEqual({ ...held, probing: false });
    expect(nextPace(held, { kind: 'throttled' }, p, 3_000)).toEqual({ rate: 2.5, probing: false, holdUntilMs: 5_000 });
  });

  it('never falls below the floor', () => {
    expect(nextPace(at(0.6), { kind: 'throttled' }, p, 0).rate).toBe(0.5);
  });

  it('finds and holds a capacity it is not told: a simulated tenant with a limit of 20 in processing, 2 s each (10/s)', () => {
    // Each accepted account occupies a place for 2 s; the client sends at its rate and learns from each answer.
    let s = initialPace(DEFAULT_PACE);
    const done: number[] = [];
    let accepted = 0;
    let refused = 0;
    let next = 0;
    for (let now = 0; now < 120_000;) {
      now = Math.max(now, next);
      while (done.length && done[0] <= now) done.shift();
      if (done.length < 20) {
        done.push(now + 2_000);
        if (now >= 60_000) accepted += 1;
        s = nextPace(s, { kind: 'accepted', latencyMs: 150, waited: true }, DEFAULT_PACE, now);
      } else {
        if (now >= 60_000) refused += 1;
        s = nextPace(s, { kind: 'throttled' }, DEFAULT_PACE, now);
      }
      next = now + 1000 / s.rate;
    }
    // Over the second minute: at least 0.9 of capacity, at most 10% refused.
    expect(accepted / 60).toBeGreaterThanOrEqual(9);
    expect(throttledShare(accepted, refused)).toBeLessThanOrEqual(0.1);
  });
});

describe('turns at the shared rate', () => {
  it('goes now when the next turn is free, and spaces the next one 1/rate after', () => {
    expect(takeTurn(0, 4, 1_000, 5_000)).toEqual({ waitMs: 0, nextFreeAtMs: 1_250 });
  });

  it('waits for a turn taken ahead of it', () => {
    expect(takeTurn(1_500, 4, 1_000, 5_000)).toEqual({ waitMs: 500, nextFreeAtMs: 1_750 });
  });

  it('does not take a turn further away than maxWaitMs', () => {
    expect(takeTurn(7_000, 4, 1_000, 5_000)).toBeNull();
    expect(takeTurn(6_000, 4, 1_000, 5_000)).toEqual({ waitMs: 5_000, nextFreeAtMs: 6_250 });
  });
});

describe('throttled share', () => {
  it('is refused ÷ all calls, 0 with none', () => {
    expect(throttledShare(0, 0)).toBe(0);
    expect(throttledShare(9, 1)).toBe(0.1);
    expect(throttledShare(0, 3)).toBe(1);
  });
});
