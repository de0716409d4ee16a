import type { Pool } from '../clients/db';
import type { Config } from '../config';
import type { PaceView } from '../domain/platform-pace';
import { paceView } from '../ledger/platform-pace';

export { paceLine, paceWatchPart } from '../domain/platform-pace';
export type PlatformPaceView = PaceView;

/** The tenant's window of accounts in processing as stored (docs/throughput.md). */
export function platformPace(pool: Pool, cfg: Pick<Config, 'PLATFORM_PACE' | 'PLATFORM_V2_BASE_URL' | 'PLATFORM_MAX_IN_PROCESSING'>): Promise<PaceView> {
  return paceView(pool, { mode: cfg.PLATFORM_PACE, tenant: cfg.PLATFORM_V2_BASE_URL, ceiling: cfg.PLATFORM_MAX_IN_PROCESSING });
}
