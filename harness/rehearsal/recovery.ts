import type { Finish } from './tenths';

export interface Recovery {
  /** Accounts/s over the two minutes before the outage. */
  beforePerSecond: number;
  /** Seconds after the platform's return until a 30-second window ran at ≥ 80 % of that (null: never). */
  backAfterSeconds: number | null;
  /** Accounts/s over the two minutes after the return. */
  afterPerSecond: number;
}

const WINDOW_MS = 30_000;
const STEP_MS = 5_000;

/** How soon throughput came back after the platform's outage, from the ledger's finish times. Pure. */
export function recovery(finishes: readonly Finish[], outageStartMs: number, outageEndMs: number): Recovery {
  const count = (from: number, to: number) => finishes.filter((f) => f.atMs > from && f.atMs <= to).length;
  const beforePerSecond = count(outageStartMs - 120_000, outageStartMs) / 120;
  const last = finishes.reduce((m, f) => Math.max(m, f.atMs), outageEndMs);
  let backAfterSeconds: number | null = null;
  for (let from = outageEndMs; from + WINDOW_MS <= last; from += STEP_MS) {
    if (count(from, from + WINDOW_MS) / (WINDOW_MS / 1000) >= 0.8 * beforePerSecond) {
      backAfterSeconds = Math.round((from + WINDOW_MS - outageEndMs) / 1000);
      break;
    }
  }
  const r = (n: number) => Math.round(n * 100) / 100;
  return { beforePerSecond: r(beforePerSecond), backAfterSeconds, afterPerSecond: r(count(outageEndMs, outageEndMs + 120_000) / 120) };
}
