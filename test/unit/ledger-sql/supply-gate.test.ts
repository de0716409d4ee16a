import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupplyLedger } from '../../../ledger/supply';
import { startTestDb } from '../events/helpers';

/** The switch's numbers a plan wave's exit gate reads (ledger/supply.ts runGateCounts), on a real Postgres. */

let db: Awaited<ReturnType<typeof startTestDb>>;

beforeAll(async () => {
  db = await startTestDb('supply-gate');
  // Run r1: one point on supply, one objected, one followed for 6 days, one for 2 days; a point of another run.
  const points: Array<[string, string, string, string | null, number]> = [
    ['r1', 'A-1', 'MP-1', 'on_supply', 9],
    ['r1', 'A-1', 'MP-2', 'objected', 9],
    ['r1', 'A-2', 'MP-3', null, 6],
    ['r1', 'A-3', 'MP-4', null, 2],
    ['r2', 'B-1', 'MP-5', null, 30],
  ];
  for (const [run, account, mpxn, outcome, daysAgo] of points)
    await db.pool.query(
      `insert into migrate.supply_meter_points (supplier_code, external_account_number, mpxn, run_id, account_number, workflow_id, status, outcome, first_read_at)
       values ('SUP', $1, $2, $3, 'K-' || $1, 'supply/SUP/' || $1, 'REGISTRATION_REQUESTED', $4, clock_timestamp() - make_interval(days => $5))`,
      [account, mpxn, run, outcome, daysAgo],
    );
}, 120_000);
afterAll(async () => db?.stop());

describe("a plan wave's switch numbers from the ledger", () => {
  it("counts the run's points, those on supply, those still followed, and those followed longer than the maximum since their first read", async () => {
    const ledger = createSupplyLedger(db.pool);
    expect(await ledger.runGateCounts('r1', 5)).toEqual({ points: 4, onSupply: 1, waiting: 2, overMaxDays: 1 });
    expect(await ledger.runGateCounts('r1', 1.5)).toEqual({ points: 4, onSupply: 1, waiting: 2, overMaxDays: 2 });
    expect(await ledger.runGateCounts('r1', 7)).toEqual({ points: 4, onSupply: 1, waiting: 2, overMaxDays: 0 });
    // No maximum: none is over it.
    expect(await ledger.runGateCounts('r1', null)).toEqual({ points: 4, onSupply: 1, waiting: 2, overMaxDays: 0 });
    expect(await ledger.runGateCounts('none', 5)).toEqual({ points: 0, onSupply: 0, waiting: 0, overMaxDays: 0 });
  });
});
