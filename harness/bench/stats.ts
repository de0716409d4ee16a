/**
 * Small statistics helpers for the bench. Percentiles use the nearest-rank method (a value that
 * was actually observed, never an interpolation), so "p95 = 812 ms" means 95 % of accounts took
 * at most 812 ms.
 */

/** Nearest-rank percentile of `values` (any order); undefined for an empty list. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function mean(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  return values.reduce((s, v) => s + v, 0) / values.length;
}

/** a / b, undefined when either is missing or b is zero (a ratio of nothing is not 0). */
export function ratio(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || b === undefined || b === 0) return undefined;
  return a / b;
}

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/**
 * The pass's rate while its window was full: accounts finished per second between the
 * `concurrency`-th finish and the (n − concurrency)-th, the moment the last account could start.
 * The pass's first `concurrency` finishes are its ramp, its last `concurrency` its drain, where slots
 * empty and one slow account can hold the wall clock for seconds: in a pass of 600 accounts at 100
 * that is a third of the finishes. A migration of a million is all steady part. `endsMs`: each
 * account's finish, on any one clock. Undefined when the steady part is under `concurrency` finishes.
 */
export function steadyRate(endsMs: readonly number[], concurrency: number): number | undefined {
  const first = concurrency;
  const last = endsMs.length - concurrency;
  if (concurrency < 1 || last - first < concurrency) return undefined;
  const sorted = [...endsMs].sort((a, b) => a - b);
  const ms = sorted[last - 1] - sorted[first - 1];
  return ms > 0 ? (last - first) / (ms / 1000) : undefined;
}

/** The figures every timed pass reports (pipeline and floor alike), from its raw measurements. */
export function passFigures(m: {
  accounts: number;
  concurrency: number;
  completed: number;
  wallMs: number;
  latenciesMs: readonly number[];
  /** When each completed account finished, on any one clock (for the steady rate). */
  endsMs?: readonly number[];
  historyLengths: readonly number[];
  loadAvg1: number;
}) {
  const whole = (n: number | undefined, digits = 0) => (n === undefined ? undefined : round(n, digits));
  return {
    accounts: m.accounts,
    concurrency: m.concurrency,
    completed: m.completed,
    notCompleted: m.accounts - m.completed,
    wallSeconds: round(m.wallMs / 1000, 2),
    accountsPerSecond: round(m.completed / (m.wallMs / 1000), 2),
    steadyAccountsPerSecond: m.endsMs ? whole(steadyRate(m.endsMs, m.concurrency), 2) : undefined,
    latency: { p50Ms: whole(percentile(m.latenciesMs, 50)), p95Ms: whole(percentile(m.latenciesMs, 95)), maxMs: whole(percentile(m.latenciesMs, 100)) },
    slotsBusy: m.wallMs > 0 ? round(m.latenciesMs.reduce((s, v) => s + v, 0) / (m.wallMs * m.concurrency), 2) : undefined,
    loadAvg1: round(m.loadAvg1, 2),
    historyEventsPerAccount: whole(mean(m.historyLengths), 1),
  };
}
