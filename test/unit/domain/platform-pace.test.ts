import { describe, expect, it } from 'vitest';
import {
  capLeads,
  choosePermitHolders,
  grantRound,
  DEFAULT_PACE,
  FAIR_LEAD_WINDOWS,
  freePermits,
  initialPace,
  nextPace,
  paceLine,
  paceWatchPart,
  permitsToCheck,
  PROBE_IDLE_MS,
  probesBeyondWindow,
  sweepFrees,
  throttledShare,
  windowThroughput,
  type PaceParams,
  type PaceSignal,
  type PaceState,
  type PaceView,
  type Waiter,
} from '../../../domain/platform-pace';

const p: PaceParams = { minWindow: 1, maxWindow: 50, initialWindow: 4, decrease: 0.5, holdMs: 2_000, slowLatencyMs: 5_000 };
const at = (window: number, over: Partial<PaceState> = {}): PaceState => ({ window, probing: false, holdUntilMs: 0, ...over });
const ok = (full = true, latencyMs = 100) => ({ kind: 'accepted' as const, latencyMs, full });

describe('the window of accounts in processing (AIMD)', () => {
  it('starts probing at the initial window, clamped to the ceiling and floor', () => {
    expect(initialPace(p)).toEqual({ window: 4, probing: true, holdUntilMs: 0 });
    expect(initialPace({ ...p, initialWindow: 80 }).window).toBe(50);
    expect(initialPace({ ...p, initialWindow: 0 }).window).toBe(1);
  });

  it('while probing, each accepted call adds one (a doubling per processing time)', () => {
    expect(nextPace(at(4, { probing: true }), ok(), p, 0)).toEqual(at(5, { probing: true }));
  });

  it('after the first refusal, each accepted call adds 1 / window (one per processing time)', () => {
    expect(nextPace(at(4), ok(), p, 0)).toEqual(at(4.25));
  });

  it('never widens past the ceiling', () => {
    expect(nextPace(at(50, { probing: true }), ok(), p, 0).window).toBe(50);
    expect(nextPace(at(49.99), ok(), p, 0).window).toBe(50);
  });

  it('an accepted call that found permits to spare holds the window (the callers, not the window, held it back)', () => {
    const s = at(4, { probing: true });
    expect(nextPace(s, ok(false), p, 0)).toBe(s);
    expect(nextPace(at(4), ok(false), p, 0)).toEqual(at(4));
  });

  it('a slow accepted call holds the window where it is', () => {
    const s = at(4, { probing: true });
    expect(nextPace(s, ok(true, 5_001), p, 0)).toBe(s);
    expect(nextPace(s, ok(true, 5_000), p, 0).window).toBe(5);
  });

  it('a 429 multiplies the window by `decrease`, ends probing and holds for holdMs', () => {
    expect(nextPace(at(10, { probing: true }), { kind: 'throttled' }, p, 1_000)).toEqual({ window: 5, probing: false, holdUntilMs: 3_000 });
  });

  it("a 429's Retry-After longer than the hold is the hold", () => {
    expect(nextPace(at(10), { kind: 'throttled', retryAfterMs: 7_000 }, p, 1_000).holdUntilMs).toBe(8_000);
    expect(nextPace(at(10), { kind: 'throttled', retryAfterMs: 500 }, p, 1_000).holdUntilMs).toBe(3_000);
  });

  it('a 429 narrows the window to the accounts the tenant held of ours when it refused, if that is fewer', () => {
    expect(nextPace(at(10, { probing: true }), { kind: 'throttled', inProcessing: 3 }, p, 1_000)).toEqual({ window: 3, probing: false, holdUntilMs: 3_000 });
    expect(nextPace(at(10), { kind: 'throttled', inProcessing: 6 }, p, 1_000).window).toBe(5);
    expect(nextPace(at(10), { kind: 'throttled', inProcessing: 0 }, p, 1_000).window).toBe(1);
  });

  it('a 429 during the hold is not a second decrease, but leaves no permit free while the tenant is full of ours', () => {
    const held = (w: number) => at(w, { holdUntilMs: 2_000 });
    // Not decreased again: the tenant held more of ours than the window (or did not say).
    expect(nextPace(held(10), { kind: 'throttled', inProcessing: 12 }, p, 1_000)).toEqual({ window: 10, probing: false, holdUntilMs: 2_000 });
    expect(nextPace(held(10), { kind: 'throttled' }, p, 1_000).window).toBe(10);
    // Refused with 3 of ours in processing and the window at 4.4: left there, the refused account would
    // get the fourth permit back at once and be refused again until the hold ends.
    const next = nextPace(held(4.4), { kind: 'throttled', inProcessing: 3, unanswered: 0 }, p, 1_000);
    expect(next).toEqual({ window: 3, probing: false, holdUntilMs: 2_000 });
    expect(freePermits(next.window, 3)).toBe(0);
    // Calls still unanswered may be in processing too: not narrowed below them.
    expect(nextPace(held(10), { kind: 'throttled', inProcessing: 3, unanswered: 4 }, p, 1_000).window).toBe(7);
  });

  it('a 429 with fewer than half the window in processing is not the limit on accounts in processing: narrowed to them, it probes again', () => {
    // A window of 20 (10 after the decrease): 4 in processing is under half of it, 5 is not.
    expect(nextPace(at(20), { kind: 'throttled', inProcessing: 4 }, p, 1_000)).toEqual({ window: 4, probing: true, holdUntilMs: 3_000 });
    expect(nextPace(at(20), { kind: 'throttled', inProcessing: 5 }, p, 1_000)).toEqual({ window: 5, probing: false, holdUntilMs: 3_000 });
    expect(nextPace(at(20), { kind: 'throttled', inProcessing: 0 }, p, 1_000)).toEqual({ window: 1, probing: true, holdUntilMs: 3_000 });
    // A 429 without the count ends probing as before.
    expect(nextPace(at(20, { probing: true }), { kind: 'throttled' }, p, 1_000).probing).toBe(false);
  });

  it('a refusal recorded before the acceptances sent beside it: narrowed to those recorded, no probing again', () => {
    // A first round of 4 at a tenant limited to 3: the refusal is recorded first, 3 calls still unanswered.
    expect(nextPace(at(4, { probing: true }), { kind: 'throttled', inProcessing: 0, unanswered: 3 }, p, 1_000)).toEqual({
      window: 1,
      probing: false,
      holdUntilMs: 3_000,
    });
    // A window of 20 (10 after the decrease): 4 in processing and 1 unanswered is 5, not under half.
    expect(nextPace(at(20), { kind: 'throttled', inProcessing: 4, unanswered: 1 }, p, 1_000).probing).toBe(false);
    expect(nextPace(at(20), { kind: 'throttled', inProcessing: 4, unanswered: 0 }, p, 1_000).probing).toBe(true);
  });

  it('a refusal is decreased from the window its call was sent under, not one its round widened since', () => {
    // A first round of 4 at a tenant limited to 3, every permit full: the 3 acceptances recorded first
    // took the probing window to 7. From 7, the 3 in processing were "under half" and it probed again.
    const after = nextPace(at(7, { probing: true }), { kind: 'throttled', inProcessing: 3, unanswered: 0, sentUnder: 4 }, DEFAULT_PACE, 1_000);
    expect(after).toEqual({ window: 3, probing: false, holdUntilMs: 2_000 });
    // Sent under a wider window than now (an earlier decrease came between): the current one is decreased.
    expect(nextPace(at(10), { kind: 'throttled', sentUnder: 20 }, p, 1_000).window).toBe(5);
  });

  it('after a burst of 429s that collapsed the window, it is back near the limit within a few processing times', () => {
    // A tenant limited to 20 in processing, 1 s each; a rate-limit burst left the window at 1.
    let s = nextPace(at(19), { kind: 'throttled', inProcessing: 0 }, DEFAULT_PACE, 0);
    const ends: number[] = [];
    for (let now = 1_000; now < 8_000; now += 200) {
      while (ends.length && ends[0] <= now) ends.shift();
      for (let free = freePermits(s.window, ends.length); free > 0; free = freePermits(s.window, ends.length)) {
        if (ends.length >= 20) {
          s = nextPace(s, { kind: 'throttled', inProcessing: ends.length }, DEFAULT_PACE, now);
          break;
        }
        ends.push(now + 1_000);
        s = nextPace(s, ok(true), DEFAULT_PACE, now);
      }
    }
    expect(s.window).toBeGreaterThanOrEqual(18);
    expect(s.window).toBeLessThanOrEqual(21);
  });

  it('a 5xx is not the limit on accounts in processing: the window, its probing and its hold stay as they are', () => {
    const s = at(10, { probing: true, holdUntilMs: 500 });
    expect(nextPace(s, { kind: 'server_error' }, p, 1_000)).toBe(s);
    expect(nextPace(s, { kind: 'server_error', retryAfterMs: 9_000 }, p, 1_000)).toBe(s);
    const withCount = { kind: 'server_error', inProcessing: 2 } as unknown as PaceSignal;
    expect(nextPace(at(10), withCount, p, 1_000)).toEqual(at(10));
  });

  it('refusals during the hold change nothing but end probing; at its end they narrow the window again', () => {
    const held = at(5, { probing: true, holdUntilMs: 3_000 });
    expect(nextPace(held, { kind: 'throttled' }, p, 2_999)).toEqual({ ...held, probing: false });
    expect(nextPace(held, { kind: 'throttled' }, p, 3_000)).toEqual({ window: 2.5, probing: false, holdUntilMs: 5_000 });
  });

  it('never falls below the floor', () => {
    expect(nextPace(at(1.5), { kind: 'throttled' }, p, 0).window).toBe(1);
  });

  it('the defaults: start at 4, ceiling 500, decrease 0.95', () => {
    expect(DEFAULT_PACE).toEqual({ minWindow: 1, maxWindow: 500, initialWindow: 4, decrease: 0.95, holdMs: 1_000, slowLatencyMs: 5_000 });
  });
});

/**
 * A tenant with a limit on accounts in processing (processing `processingMs` each) and a client
 * that always has accounts to send: permits from the window, each kept until the account's outcome
 * is recorded (`lagMs` after the tenant finished: the event's way back), given back on a 429.
 * Returns the tenant's use of its limit and the share of calls refused, over the second half.
 */
function simulate(limit: number, processingMs: number, lagMs: number, durationMs: number) {
  // Processing times spread ±20% (a fixed sequence: the test is repeatable).
  let seed = 41;
  const spread = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return 0.8 + 0.4 * (seed / 2 ** 31);
  };
  let s = initialPace(DEFAULT_PACE);
  const platformEnds: number[] = [];
  const permitEnds: number[] = [];
  let accepted = 0;
  let refused = 0;
  let busyMs = 0;
  const stepMs = 200; // a worker's round (activities/platform-permits.ts)
  for (let now = 0; now < durationMs; now += stepMs) {
    while (platformEnds.length && platformEnds[0] <= now) platformEnds.shift();
    while (permitEnds.length && permitEnds[0] <= now) permitEnds.shift();
    const counting = now >= durationMs / 2;
    for (let free = freePermits(s.window, permitEnds.length); free > 0; free = freePermits(s.window, permitEnds.length)) {
      if (platformEnds.length < limit) {
        const ends = now + Math.round(processingMs * spread());
        platformEnds.push(ends);
        platformEnds.sort((a, b) => a - b);
        permitEnds.push(ends + lagMs);
        permitEnds.sort((a, b) => a - b);
        if (counting) accepted += 1;
        s = nextPace(s, ok(true), DEFAULT_PACE, now);
      } else {
        if (counting) refused += 1;
        s = nextPace(s, { kind: 'throttled', inProcessing: permitEnds.length }, DEFAULT_PACE, now);
        break; // the refused account asks again at the next round
      }
    }
    if (counting) busyMs += platformEnds.length * stepMs;
  }
  return { ofCapacity: busyMs / (limit * (durationMs / 2)), refusedShare: throttledShare(accepted, refused), accepted };
}

describe('finds and holds a capacity it is not told', () => {
  it.each([
    [20, 8_000, 500],
    [80, 32_000, 500],
    [20, 8_000, 200],
    [80, 4_000, 0],
  ])('limit %i, %i ms each, outcome recorded %i ms after: ≥ 0.9 of capacity, ≤ 10%% of calls refused', (limit, processingMs, lagMs) => {
    const r = simulate(limit, processingMs, lagMs, 60 * processingMs);
    expect(r.ofCapacity).toBeGreaterThanOrEqual(0.9);
    expect(r.refusedShare).toBeLessThanOrEqual(0.1);
  });

  it('a fixed window past the limit (what --concurrency 50 is at a limit of 20) has most calls refused: the simulation can fail', () => {
    const r = simulate(20, 2_000, 0, 60_000);
    expect(r.refusedShare).toBeLessThan(0.1);
    // Without the decrease the window would stay past the limit and every surplus call would be refused.
    const noDecrease = { ...DEFAULT_PACE, decrease: 1 };
    let s = initialPace(noDecrease);
    let refused = 0;
    let accepted = 0;
    const ends: number[] = [];
    for (let now = 0; now < 60_000; now += 10) {
      while (ends.length && ends[0] <= now) ends.shift();
      const want = freePermits(Math.max(s.window, 50), ends.length);
      for (let i = 0; i < want; i++) {
        if (ends.length < 20) {
          ends.push(now + 2_000);
          accepted += 1;
          s = nextPace(s, ok(), noDecrease, now);
        } else {
          refused += 1;
          s = nextPace(s, { kind: 'throttled' }, noDecrease, now);
        }
      }
    }
    expect(throttledShare(accepted, refused)).toBeGreaterThan(0.5);
  });
});

describe('free permits', () => {
  it('are the whole window beyond those held, never negative', () => {
    expect(freePermits(5.9, 3)).toBe(2);
    expect(freePermits(5, 5)).toBe(0);
    expect(freePermits(4.5, 7)).toBe(0);
  });
});

describe('who gets the free permits', () => {
  const w = (holder: string, fairnessKey: string, weight: number, sinceMs: number, priorityKey = 3): Waiter => ({
    holder,
    fairnessKey,
    weight,
    sinceMs,
    priorityKey,
  });

  it('nobody when none is free; everybody when there are fewer waiters than permits', () => {
    expect(choosePermitHolders(0, [w('a', 'A', 1, 0)], new Map())).toEqual([]);
    expect(choosePermitHolders(5, [w('a', 'A', 1, 1), w('b', 'B', 1, 0)], new Map())).toEqual(['b', 'a']);
  });

  it("a worker's round: only its own waiters chosen, each counted to its key; the changed shares; full when the window held accounts back", () => {
    // Two workers' waiters; this worker's are a1 and b1. A has a lead of 2.
    const waiters = [w('a1', 'A', 1, 0), w('b1', 'B', 1, 1), w('b2', 'B', 1, 2), w('c1', 'C', 1, 3)];
    const mine = new Map([
      ['a1', 'A'],
      ['b1', 'B'],
    ]);
    const shares = new Map([
      ['A', 2],
      ['C', 0],
    ]);
    // Two free: B (share 0, waited longer than C) and C (0) go first; of those, b1 is this worker's.
    expect(grantRound({ free: 2, window: 4, waiters, shares, mine })).toEqual({
      given: ['b1'],
      changed: [['B', 1]],
      full: true,
    });
    // Enough for all: a1 and b1 both, A counted from its stored 2; as many free as waiting is still full, one more is not.
    expect(grantRound({ free: 4, window: 4, waiters, shares, mine })).toEqual({
      given: ['b1', 'a1'],
      changed: [
        ['A', 3],
        ['B', 1],
      ],
      full: true,
    });
    expect(grantRound({ free: 5, window: 4, waiters, shares, mine }).full).toBe(false);
    // None of this worker's chosen: nothing given, only a new key's 0 stored; a lead capped by the window is stored lowered.
    expect(grantRound({ free: 1, window: 4, waiters: [w('c1', 'C', 1, 0), w('a1', 'A', 1, 1)], shares: new Map([['A', 50]]), mine })).toEqual({
      given: [],
      changed: [
        ['A', 12],
        ['C', 0],
      ],
      full: true,
    });
  });

  it('the lowest priorityKey first, however long the others waited and whatever they hold', () => {
    const waiters = [w('bulk', 'A', 3, 0), w('rerun', 'A', 1, 50, 1), w('named', 'B', 1, 40, 2)];
    expect(choosePermitHolders(1, waiters, new Map())).toEqual(['rerun']);
    expect(choosePermitHolders(2, waiters, new Map([['A', 10]]))).toEqual(['rerun', 'named']);
  });

  it('within a priority, the key granted the fewest permits for its weight', () => {
    // A was granted 6 at weight 3 (2 per weight), B 1 at weight 1 (1 per weight): B first, then A (2 ≤ 2, earlier waiter wins the tie).
    const waiters = [w('a1', 'A', 3, 0), w('a2', 'A', 3, 1), w('b1', 'B', 1, 5), w('b2', 'B', 1, 6)];
    expect(
      choosePermitHolders(
        1,
        waiters,
        new Map([
          ['A', 6],
          ['B', 1],
        ]),
      ),
    ).toEqual(['b1']);
    expect(
      choosePermitHolders(
        2,
        waiters,
        new Map([
          ['A', 6],
          ['B', 1],
        ]),
      ),
    ).toEqual(['b1', 'a1']);
  });

  it('the same priority, share and wait: by holder, whatever order they were read in', () => {
    expect(choosePermitHolders(1, [w('b', 'A', 1, 0), w('a', 'A', 1, 0)], new Map())).toEqual(['a']);
    expect(choosePermitHolders(1, [w('a', 'A', 1, 0), w('b', 'A', 1, 0)], new Map())).toEqual(['a']);
  });

  it('ties go to whoever waited longest; within a key, first come', () => {
    expect(choosePermitHolders(1, [w('b', 'B', 1, 10), w('a', 'A', 1, 5)], new Map())).toEqual(['a']);
    expect(choosePermitHolders(2, [w('a2', 'A', 1, 7), w('a1', 'A', 1, 3)], new Map())).toEqual(['a1', 'a2']);
  });

  it('counts the permits given in the same round: 3:1 weights share 8 permits 6:2 from nothing', () => {
    const waiters = [...Array.from({ length: 10 }, (_, i) => w(`b${i}`, 'B', 1, i)), ...Array.from({ length: 10 }, (_, i) => w(`a${i}`, 'A', 3, 100 + i))];
    const chosen = choosePermitHolders(8, waiters, new Map());
    expect(chosen.filter((h) => h.startsWith('a'))).toHaveLength(6);
    expect(chosen.filter((h) => h.startsWith('b'))).toHaveLength(2);
  });

  it('does not change the granted counts it is given', () => {
    const held = new Map([['A', 1]]);
    choosePermitHolders(3, [w('a', 'A', 1, 0), w('b', 'B', 1, 0)], held);
    expect([...held]).toEqual([['A', 1]]);
  });

  it('two runs always waiting, permits freed one at a time: they are granted them 3:1 whoever came first', () => {
    const granted = new Map<string, number>();
    const holders: string[] = [];
    let n = 0;
    const waiters = () => [
      ...Array.from({ length: 5 }, (_, i) => w(`b${n}-${i}`, 'B', 1, i)),
      ...Array.from({ length: 5 }, (_, i) => w(`a${n}-${i}`, 'A', 3, 1000 + i)),
    ];
    for (; n < 400; n++) {
      // The window has 20; the oldest holder frees its permit before each round once it is full.
      if (holders.length === 20) holders.shift();
      for (const h of choosePermitHolders(20 - holders.length, waiters(), granted)) {
        holders.push(h);
        const key = h.slice(0, 1).toUpperCase();
        granted.set(key, (granted.get(key) ?? 0) + 1);
      }
    }
    expect(holders.filter((h) => h.startsWith('a'))).toHaveLength(15);
    // 419 granted: 3:1 to within the last round's permit.
    expect(Math.abs(granted.get('A')! - 3 * granted.get('B')!)).toBeLessThanOrEqual(3);
  });
});

describe('what a key counts as granted: its lead bounded by three windows', () => {
  const w = (holder: string, fairnessKey: string, weight: number): Waiter => ({ holder, fairnessKey, weight, sinceMs: 0, priorityKey: 3 });

  it('three windows', () => expect(FAIR_LEAD_WINDOWS).toBe(3));

  it("a leader's count is lowered to the floor (lowest granted ÷ weight of the keys waiting) × its weight + three windows", () => {
    // Floor: B at 10 / 1 = 10. A (weight 3) may count at most 10 × 3 + 60 = 90; C (weight 1) at most 10 + 60 = 70.
    const out = capLeads(
      new Map([
        ['A', 100],
        ['B', 10],
        ['C', 71],
      ]),
      [w('a', 'A', 3), w('b', 'B', 1), w('c', 'C', 1)],
      20.9,
    );
    expect(Object.fromEntries(out)).toEqual({ A: 90, B: 10, C: 70 });
    // The floor is a share: A granted 10 at weight 2 is 5 per weight, so B (weight 1) may count 5 + 60.
    const byShare = capLeads(
      new Map([
        ['A', 10],
        ['B', 100],
      ]),
      [w('a', 'A', 2), w('b', 'B', 1)],
      20,
    );
    expect(Object.fromEntries(byShare)).toEqual({ A: 10, B: 65 });
  });

  it('a lead within three windows is kept whole (it is paid back in full)', () => {
    const granted = new Map([
      ['A', 80],
      ['B', 20],
    ]);
    expect(Object.fromEntries(capLeads(granted, [w('a', 'A', 1), w('b', 'B', 1)], 20))).toEqual({ A: 80, B: 20 });
    // A newcomer never granted one counts 0: the floor is 0, the others keep three windows.
    expect(Object.fromEntries(capLeads(granted, [w('a', 'A', 1), w('b', 'B', 1), w('n', 'N', 2)], 20))).toEqual({ A: 60, B: 20, N: 0 });
  });

  it('keys not waiting now neither set the floor nor are lowered; a key alone is left as it is', () => {
    const granted = new Map([
      ['A', 500],
      ['B', 0],
      ['C', 900],
    ]);
    expect(Object.fromEntries(capLeads(granted, [w('a', 'A', 1), w('c', 'C', 1)], 20))).toEqual({ A: 500, B: 0, C: 560 });
    expect(Object.fromEntries(capLeads(granted, [w('c', 'C', 1)], 20))).toEqual({ A: 500, B: 0, C: 900 });
    expect(Object.fromEntries(capLeads(granted, [], 20))).toEqual({ A: 500, B: 0, C: 900 });
    expect([...granted]).toEqual([
      ['A', 500],
      ['B', 0],
      ['C', 900],
    ]);
  });
});

/**
 * Two runs of one tenant, as the bench runs them: a window of 20, 8 s of processing each, each run
 * with `accounts` waiting from its arrival, a round of permits every 200 ms. Returns what the other
 * run had completed when the weight-3 run completed its `first`-th account.
 */
function twoRuns(o: { lateMs: { A: number; B: number }; byHeld?: boolean; accounts?: number; first?: number; aloneMs?: number }) {
  const weights = { A: 3, B: 1 } as const;
  const window = 20;
  const processingMs = 8_000;
  const accounts = o.accounts ?? 240;
  const first = o.first ?? 200;
  const next = { A: 0, B: 0 };
  const done = { A: 0, B: 0 };
  let granted = new Map<string, number>();
  const held = new Map<string, number>();
  let holding: Array<{ key: 'A' | 'B'; until: number }> = [];
  const grantsAfter: Array<'A' | 'B'> = [];
  for (let t = 0; t < 3_600_000; t += 200) {
    for (const h of holding.filter((x) => x.until <= t)) {
      done[h.key]++;
      held.set(h.key, held.get(h.key)! - 1);
      if (h.key === 'A' && done.A === first) return { other: done.B, grantsAfter };
    }
    holding = holding.filter((x) => x.until > t);
    const waiters: Waiter[] = [];
    for (const key of ['A', 'B'] as const)
      if (t >= o.lateMs[key])
        for (let i = next[key]; i < Math.min(accounts, next[key] + 50); i++)
          waiters.push({ holder: `${key}${i}`, fairnessKey: key, weight: weights[key], sinceMs: o.lateMs[key] + i, priorityKey: 3 });
    if (!o.byHeld) granted = capLeads(granted, waiters, window);
    for (const h of choosePermitHolders(window - holding.length, waiters, o.byHeld ? held : granted)) {
      const key = h.slice(0, 1) as 'A' | 'B';
      next[key]++;
      granted.set(key, (granted.get(key) ?? 0) + 1);
      held.set(key, (held.get(key) ?? 0) + 1);
      holding.push({ key, until: t + processingMs });
      if (t >= Math.max(o.lateMs.A, o.lateMs.B)) grantsAfter.push(key);
    }
  }
  throw new Error('the weight-3 run never completed its first accounts');
}

describe('two runs, weights 3:1, counted from the start (the issue: within 20% of 3 at the 200th)', () => {
  it.each([
    ['the weight-1 run at the window a processing time first: its lead is paid back', { A: 8_000, B: 0 }],
    ['the weight-1 run 20 s first (2.5 processing times: what the bench saw under load): paid back too', { A: 20_000, B: 0 }],
    ['the weight-1 run there last, by a processing time', { A: 0, B: 8_000 }],
  ])('%s', (_, lateMs) => {
    const { other } = twoRuns({ lateMs });
    expect(200 / other).toBeGreaterThanOrEqual(2.4);
    expect(200 / other).toBeLessThanOrEqual(3.6);
  });

  it('a head start past three windows is paid back three windows only (the bound)', () => {
    const { other } = twoRuns({ lateMs: { A: 32_000, B: 0 } });
    // 4 processing times first: 80 granted, 60 paid back: 20 more for the weight-1 run than 3:1.
    expect(other).toBeGreaterThanOrEqual(67 + 18);
    expect(other).toBeLessThanOrEqual(67 + 22);
  });

  it('both at once', () => {
    const { other } = twoRuns({ lateMs: { A: 0, B: 0 } });
    expect(200 / other).toBeGreaterThanOrEqual(2.7);
    expect(200 / other).toBeLessThanOrEqual(3.3);
  });

  it('shared by the permits held now (the rule before), the early lead is never paid back: the simulation can fail', () => {
    const { other } = twoRuns({ lateMs: { A: 8_000, B: 0 }, byHeld: true });
    expect(200 / other).toBeLessThan(2.4);
  });

  it('a run alone for an hour holds the newcomer back for none of it, and is held back for three windows of its lead', () => {
    // The weight-1 run alone for almost an hour (about 8,000 permits granted), then the weight-3 run:
    // the old run's lead counts as three windows (60 of its permits), paid back by the next 180 to
    // the weight-3 run (9 processing times), then 3:1.
    const late = twoRuns({ lateMs: { A: 3_300_000, B: 0 }, accounts: 1_000_000, first: 400 });
    const firstB = late.grantsAfter.indexOf('B');
    expect(firstB).toBeGreaterThanOrEqual(175);
    expect(firstB).toBeLessThanOrEqual(185);
    const rest = late.grantsAfter.slice(firstB);
    expect(rest.filter((k) => k === 'A').length / rest.filter((k) => k === 'B').length).toBeCloseTo(3, 0);
  });
});

describe('throttled share and what the window lets through', () => {
  it('throttled share is refused ÷ all calls, 0 with none', () => {
    expect(throttledShare(0, 0)).toBe(0);
    expect(throttledShare(9, 1)).toBe(0.1);
    expect(throttledShare(0, 3)).toBe(1);
  });

  it("Little's law: window ÷ processing time, unknown before a permit was given back", () => {
    expect(windowThroughput(20, 8_000)).toBe(2.5);
    expect(windowThroughput(20, null)).toBeNull();
    expect(windowThroughput(20, 0)).toBeNull();
    expect(windowThroughput(20, -5)).toBeNull();
  });
});

describe('the window as shown', () => {
  const v: PaceView = { mode: 'adaptive', window: 19.7, held: 18, ceiling: 500, calls: 1234, throttledShare: 0.031, holdMs: 8_100 };

  it('run status: the window, what it lets through and the throttled share', () => {
    expect(paceLine(v)).toBe(
      'Platform window: adaptive, 19 accounts in processing at once (18 now; ceiling 500), ≈ 2.35 accounts/s at 8.1 s each, throttled 3.1% of 1234 schedule calls (every run of this tenant)',
    );
    expect(paceLine({ ...v, holdMs: null })).toBe(
      'Platform window: adaptive, 19 accounts in processing at once (18 now; ceiling 500), throttled 3.1% of 1234 schedule calls (every run of this tenant)',
    );
    expect(paceLine({ ...v, window: null })).toBe('Platform window: adaptive, no schedule call yet (ceiling 500 in processing)');
    expect(paceLine({ ...v, mode: 'fixed' })).toMatch(/^Platform pace: fixed/);
  });

  it('the watch line: window and throttled share, adaptive only', () => {
    expect(paceWatchPart(v)).toBe(' · window 19 (18 in processing), throttled 3.1%');
    expect(paceWatchPart({ ...v, mode: 'fixed' })).toBe('');
    expect(paceWatchPart({ ...v, window: null })).toBe('');
    expect(paceWatchPart(undefined)).toBe('');
  });
});

describe('the sweep of long-held permits (permits of account workflows closed without an outcome)', () => {
  const held = (holder: string, heldMs: number) => ({ holder, heldMs });
  const opts = { olderThanMs: 30_000, batch: 50 };

  it('checks only permits held longer than the floor when no hold time is measured yet', () => {
    const permits = [held('fresh', 10_000), held('at-floor', 30_000), held('past', 30_001)];
    expect(permitsToCheck(permits, null, opts).map((p) => p.holder)).toEqual(['past']);
    expect(permitsToCheck(permits, 0, opts).map((p) => p.holder)).toEqual(['past']);
  });

  it('waits three times the measured hold when that is longer than the floor (a slow tenant is not an orphan)', () => {
    const permits = [held('slow', 50_000), held('at-three-holds', 60_000), held('orphan', 60_001)];
    expect(permitsToCheck(permits, 20_000, opts).map((p) => p.holder)).toEqual(['orphan']);
    // A short measured hold: the floor still holds.
    expect(permitsToCheck(permits, 5_000, opts).map((p) => p.holder)).toEqual(['orphan', 'at-three-holds', 'slow']);
  });

  it('checks the oldest first, at most a batch', () => {
    const permits = [held('b', 40_000), held('a', 90_000), held('c', 35_000), held('young', 1_000)];
    expect(permitsToCheck(permits, null, opts).map((p) => p.holder)).toEqual(['a', 'b', 'c']);
    expect(permitsToCheck(permits, null, { ...opts, batch: 2 }).map((p) => p.holder)).toEqual(['a', 'b']);
    expect(permitsToCheck([], null, opts)).toEqual([]);
  });

  it('gives the permit back only when Temporal says the workflow no longer runs or does not know it; no answer keeps it', () => {
    expect(sweepFrees({ kind: 'status', status: 'RUNNING' })).toBe(false);
    for (const status of ['TERMINATED', 'TIMED_OUT', 'COMPLETED', 'FAILED', 'CANCELLED', 'CONTINUED_AS_NEW']) {
      expect(sweepFrees({ kind: 'status', status })).toBe(true);
    }
    expect(sweepFrees({ kind: 'not-found' })).toBe(true);
    expect(sweepFrees({ kind: 'no-answer' })).toBe(false);
  });
});

describe('a full window that nothing answers asks the tenant again (probesBeyondWindow)', () => {
  // Full, nothing in flight, the hold over, the last answer PROBE_IDLE_MS ago: the stuck case.
  const stuck = { free: 0, held: 2, ceiling: 500, unanswered: 0, nowMs: 100_000, holdUntilMs: 50_000, lastAnswerMs: 100_000 - PROBE_IDLE_MS, holdMs: 200 };

  it('lets one account through once the window has been full and unanswered for the idle time', () => {
    expect(probesBeyondWindow(stuck)).toBe(true);
    expect(probesBeyondWindow({ ...stuck, holdMs: null })).toBe(true);
  });

  it('not while a permit is free, the ceiling is reached, a call is in flight, the refusal still holds, or an answer came within the idle time', () => {
    expect(probesBeyondWindow({ ...stuck, free: 1 })).toBe(false);
    // The ceiling (PLATFORM_MAX_IN_PROCESSING) is the operator's: a probe never passes it.
    expect(probesBeyondWindow({ ...stuck, held: 500 })).toBe(false);
    expect(probesBeyondWindow({ ...stuck, held: 499 })).toBe(true);
    expect(probesBeyondWindow({ ...stuck, unanswered: 1 })).toBe(false);
    expect(probesBeyondWindow({ ...stuck, holdUntilMs: stuck.nowMs + 1 })).toBe(false);
    expect(probesBeyondWindow({ ...stuck, holdUntilMs: stuck.nowMs })).toBe(true);
    expect(probesBeyondWindow({ ...stuck, lastAnswerMs: stuck.lastAnswerMs + 1 })).toBe(false);
  });

  it('a tenant that is slow, not stuck (accounts usually held longer than the idle time), is asked after twice its usual hold', () => {
    const slow = { ...stuck, holdMs: PROBE_IDLE_MS };
    expect(probesBeyondWindow(slow)).toBe(false);
    expect(probesBeyondWindow({ ...slow, lastAnswerMs: stuck.nowMs - 2 * PROBE_IDLE_MS })).toBe(true);
    expect(probesBeyondWindow({ ...slow, lastAnswerMs: stuck.nowMs - 2 * PROBE_IDLE_MS + 1 })).toBe(false);
  });
});
