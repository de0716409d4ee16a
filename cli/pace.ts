import type { Pool } from '../clients/db';
import type { Config } from '../config';
import { throttledShare } from '../domain/platform-pace';
import { paceRows } from '../ledger/platform-pace';

/** The tenant's schedule-call pace as `run status` and the watch line show it (docs/throughput.md). */
export interface PlatformPaceView {
  mode: 'fixed' | 'adaptive';
  /** Schedule calls a second now (adaptive: the shared rate; fixed: none kept). */
  rate: number | null;
  ceiling: number;
  calls: number;
  throttledShare: number;
}

export async function platformPace(pool: Pool, cfg: Config): Promise<PlatformPaceView> {
  const [row] = cfg.PLATFORM_PACE === 'adaptive' ? await paceRows(pool, cfg.PLATFORM_V2_BASE_URL) : [];
  const calls = row ? row.accepted + row.throttled : 0;
  return {
    mode: cfg.PLATFORM_PACE,
    rate: row ? Math.round(row.rate * 100) / 100 : null,
    ceiling: cfg.PLATFORM_RATE_LIMIT_PER_SECOND,
    calls,
    throttledShare: row ? throttledShare(row.accepted, row.throttled) : 0,
  };
}

export function paceLine(p: PlatformPaceView): string {
  if (p.mode === 'fixed') return `Platform pace: fixed (queue ceiling ${p.ceiling}/s)`;
  if (p.rate === null) return `Platform pace: adaptive, no schedule call yet (ceiling ${p.ceiling}/s)`;
  return `Platform pace: adaptive ${p.rate}/s of ceiling ${p.ceiling}/s, throttled ${(p.throttledShare * 100).toFixed(1)}% of ${p.calls} schedule calls (every run of this tenant)`;
}
