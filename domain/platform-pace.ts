/**
 * The pace of schedule calls to one tenant (docs/throughput.md, "Adaptive throughput"): additive
 * increase, multiplicative decrease on a rate shared by every worker and run of the tenant. The
 * tenant documents only an optional limit on accounts in processing at once, answered with 429;
 * its capacity is that limit ÷ its processing time, and neither is told. A rate above capacity
 * fills the limit and draws refusals; below it, every call is accepted: so the rate rises while
 * calls are accepted quickly and falls on a refusal (429, with or without Retry-After) or a 5xx.
 * Pure: the shared state lives in the ledger (ledger/platform-pace.ts); this decides its next value.
 */

export interface PaceParams {
  /** Calls a second never gone below (a tenant that refuses everything is still asked now and then). */
  minRate: number;
  /** The ceiling: PLATFORM_RATE_LIMIT_PER_SECOND. */
  maxRate: number;
  /** The rate a tenant is first asked at. */
  initialRate: number;
  /** Calls a second added per second of accepted calls (after the first refusal; before it, per accepted call: a doubling a second). */
  increase: number;
  /** The rate is multiplied by this on a refusal. */
  decrease: number;
  /**
   * After a decrease, refusals for this long change nothing: they answer calls sent before the
   * decrease (the accounts in processing then have to finish first), not the new rate.
   */
  holdMs: number;
  /** An accepted call slower than this does not raise the rate (the tenant slowing down is the first sign of its limit). */
  slowLatencyMs: number;
}

export const DEFAULT_PACE: PaceParams = {
  minRate: 0.5,
  maxRate: 50,
  initialRate: 2,
  // Chosen in a simulation of the tenant's limit (limits 20 and 80, 2-8 s processing): 0.92-0.97 of
  // capacity with 1-3% of calls refused; a faster increase or gentler decrease refuses 10-30%.
  increase: 0.5,
  decrease: 0.8,
  holdMs: 1_000,
  slowLatencyMs: 5_000,
};

export interface PaceState {
  /** Schedule calls a second. */
  rate: number;
  /** Still probing for the first refusal (rate doubling a second). */
  probing: boolean;
  /** Until then a refusal does not lower the rate again (epoch ms; 0: no hold). */
  holdUntilMs: number;
}

export type PaceSignal =
  /**
   * `waited`: the call waited for its turn, so the rate was what held it back. A call that found its
   * turn free says nothing about a higher rate (the callers are slower than it): the rate is not
   * raised on it, or it would climb unused and let a burst through when they speed up.
   */
  | { kind: 'accepted'; latencyMs: number; waited: boolean }
  /** 429: the tenant's limit (retryAfterMs when it said how long to wait). */
  | { kind: 'throttled'; retryAfterMs?: number }
  | { kind: 'server_error' };

export function initialPace(p: PaceParams): PaceState {
  return { rate: clamp(p.initialRate, p), probing: true, holdUntilMs: 0 };
}

/** The next state after one answer of the tenant at `nowMs`. */
export function nextPace(s: PaceState, signal: PaceSignal, p: PaceParams, nowMs: number): PaceState {
  if (signal.kind === 'accepted') {
    if (!signal.waited || signal.latencyMs > p.slowLatencyMs) return s;
    // Per accepted call: +increase while probing (a doubling a second), +increase/rate after (+increase a second).
    const rate = s.probing ? s.rate + p.increase : s.rate + p.increase / s.rate;
    return { ...s, rate: clamp(rate, p) };
  }
  if (nowMs < s.holdUntilMs) return { ...s, probing: false };
  // A Retry-After longer than the hold is the tenant saying how long its answer stands.
  const holdMs = Math.max(p.holdMs, signal.kind === 'throttled' ? (signal.retryAfterMs ?? 0) : 0);
  return { rate: clamp(s.rate * p.decrease, p), probing: false, holdUntilMs: nowMs + holdMs };
}

function clamp(rate: number, p: PaceParams): number {
  return Math.min(p.maxRate, Math.max(p.minRate, rate));
}

/**
 * One call's turn at `rate` (evenly spaced, shared by every caller): it may go at
 * max(now, nextFreeAtMs); the next one `1000 / rate` ms after it. Null when that is more than
 * `maxWaitMs` away (the caller comes back later instead of holding a worker slot).
 */
export function takeTurn(nextFreeAtMs: number, rate: number, nowMs: number, maxWaitMs: number): { waitMs: number; nextFreeAtMs: number } | null {
  const at = Math.max(nowMs, nextFreeAtMs);
  const waitMs = at - nowMs;
  if (waitMs > maxWaitMs) return null;
  return { waitMs, nextFreeAtMs: at + 1000 / rate };
}

/** The share of schedule calls the tenant refused (0 when none were made). */
export function throttledShare(accepted: number, throttled: number): number {
  const total = accepted + throttled;
  return total === 0 ? 0 : throttled / total;
}
