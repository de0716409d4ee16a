import { z } from 'zod';

/**
 * The supplier census's classes: one account as the tenant lists it (its `query` lists) beside what
 * the ledger recorded for it across every run (dry runs excluded: they create nothing). Pure: the
 * census streams the facts, this says what they mean.
 */

/** What the tenant holds: an account (`imported`), staged data awaiting one (`pending`), or nothing. */
export type TenantHolds = 'imported' | 'pending' | 'absent';

/**
 * The ledger, over every run: an account completed; an attempt still open (scheduled or about to
 * be, no outcome yet); only ended attempts that created nothing (failed, not attempted); or none.
 */
export type LedgerHolds = 'completed' | 'open' | 'ended' | 'absent';

export interface CensusFacts {
  tenant: TenantHolds;
  ledger: LedgerHolds;
  /** When an open attempt scheduled the import (ms), if it did. */
  scheduledAtMs: number | null;
}

/**
 * - `platformOnly`: the tenant holds it and no run created it nor is creating it (imported
 *   elsewhere, or by hand: a double-import risk);
 * - `ledgerOnly`: the ledger completed it and the tenant no longer holds its account;
 * - `stuckPending`: pending at the tenant for one of our open attempts longer than the threshold
 *   (its age is known only from our schedule call: the lists carry no date for a pending import);
 * - `matched`: both agree (completed and imported); `inFlight`: ours, not finished, not yet stuck;
 * - `undefined`: nothing at the tenant and nothing completed (failed, never tried): nothing to say.
 */
export type CensusClass = 'platformOnly' | 'ledgerOnly' | 'stuckPending' | 'matched' | 'inFlight';

export const CENSUS_LISTED_CLASSES = ['platformOnly', 'ledgerOnly', 'stuckPending'] as const;
export type CensusListedClass = (typeof CENSUS_LISTED_CLASSES)[number];

/** One day: an import normally leaves pending within its schedule window (a day by default). */
export const DEFAULT_STUCK_PENDING_SECONDS = 24 * 3600;

export function censusClass(f: CensusFacts, nowMs: number, stuckAfterMs: number): CensusClass | undefined {
  if (f.ledger === 'completed') return f.tenant === 'imported' ? 'matched' : 'ledgerOnly';
  if (f.tenant === 'absent') return undefined;
  if (f.ledger !== 'open') return 'platformOnly';
  if (f.tenant === 'imported') return 'inFlight';
  return f.scheduledAtMs !== null && nowMs - f.scheduledAtMs > stuckAfterMs ? 'stuckPending' : 'inFlight';
}

/** The ledger's state from its per-account aggregate over runs. */
export function ledgerHolds(a: { completed: boolean; open: boolean; attempted: boolean }): LedgerHolds {
  if (a.completed) return 'completed';
  if (a.open) return 'open';
  return a.attempted ? 'ended' : 'absent';
}

const count = z.number().int().min(0);
/** How many accounts the tenant lists (imported, pending), the ledger completed, and each class holds. */
export const censusCountsSchema = z.object({
  tenantImported: count,
  tenantPending: count,
  ledgerCompleted: count,
  matched: count,
  inFlight: count,
  platformOnly: count,
  ledgerOnly: count,
  stuckPending: count,
});
export type CensusCounts = z.infer<typeof censusCountsSchema>;

export const emptyCensusCounts = (): CensusCounts => ({
  tenantImported: 0,
  tenantPending: 0,
  ledgerCompleted: 0,
  matched: 0,
  inFlight: 0,
  platformOnly: 0,
  ledgerOnly: 0,
  stuckPending: 0,
});

/** Adds one account to the counts; returns its class. */
export function countCensus(counts: CensusCounts, f: CensusFacts, nowMs: number, stuckAfterMs: number): CensusClass | undefined {
  if (f.tenant === 'imported') counts.tenantImported++;
  if (f.tenant === 'pending') counts.tenantPending++;
  if (f.ledger === 'completed') counts.ledgerCompleted++;
  const c = censusClass(f, nowMs, stuckAfterMs);
  if (c) counts[c]++;
  return c;
}

/** A wave's census gate (`max_platform_only`, `max_ledger_only`): met when no maximum is passed. */
export function censusGateMet(
  counts: Pick<CensusCounts, 'platformOnly' | 'ledgerOnly'>,
  max: { platformOnly: number | null; ledgerOnly: number | null },
): boolean {
  return (max.platformOnly === null || counts.platformOnly <= max.platformOnly) && (max.ledgerOnly === null || counts.ledgerOnly <= max.ledgerOnly);
}
