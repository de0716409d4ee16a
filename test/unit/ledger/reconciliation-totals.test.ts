import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../../ledger/attempts';
import { createReconciliationLedger, type ReconciliationRow } from '../../../ledger/reconciliation';
import type { FieldTally } from '../../../reconcile/compare';
import { startTestDb } from '../events/helpers';

/**
 * The report's figures per field, kept by the reconciliations table's triggers: a check whose every
 * field matched counts once for its set of fields, the others field by field
 * (db/migrations/1798200000000_reconciliation_counts_one_statement.sql). Whatever the mix of checks, re-checks
 * and deletions, they equal a recount of the checks as they stand.
 */

let db: Awaited<ReturnType<typeof startTestDb>>;
const RUN = 'run-totals';

beforeAll(async () => {
  db = await startTestDb('reconciliation-totals');
  await db.pool.query(`insert into migrate.runs (run_id, supplier_code, source, selection, concurrency) values ($1, 'SUP', '{}', '{}', 1)`, [RUN]);
}, 120_000);
afterAll(async () => {
  await db?.stop();
});

const tally = (matched: number, differing = 0, unverified = 0): FieldTally => ({ matched, differing, unverified });

async function check(ext: string, byField: Record<string, FieldTally>, balances?: { source: string; platform: string }): Promise<void> {
  const ref = { runId: RUN, externalAccountNumber: ext, supplierCode: 'SUP', dryRun: false };
  await createLedger(db.pool).openAttempt(ref, `wf-${ext}`);
  const t = Object.values(byField);
  const row: ReconciliationRow = {
    runId: RUN,
    externalAccountNumber: ext,
    platformAccountNumber: `P-${ext}`,
    status: t.length === 0 ? 'account_missing' : t.some((x) => x.differing > 0) ? 'differing' : 'matched',
    checkedFields: t.reduce((a, x) => a + x.matched + x.differing, 0),
    unverifiedFields: t.reduce((a, x) => a + x.unverified, 0),
    byField,
    differences: [],
    checkedBy: 'workflow',
    sourceBalancePence: balances?.source,
    platformBalancePence: balances?.platform,
  };
  await createReconciliationLedger(db.pool).record(row);
}

/** Every field's accounts matched, differing, unverified and with any unverified leaf, counted from the checks themselves. */
async function recount() {
  const r = await db.pool.query<{ field: string; matched: number; differing: number; unverified: number; accounts_unverified: number }>(
    `select f.key as field,
            count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int as matched,
            count(*) filter (where (f.value->>1)::int > 0)::int as differing,
            count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int as unverified,
            count(*) filter (where (f.value->>2)::int > 0)::int as accounts_unverified
       from migrate.reconciliations r cross join lateral jsonb_each(r.field_counts) f where r.run_id = $1 group by 1 order by 1`,
    [RUN],
  );
  const checks = await db.pool.query<{ checked: number; matched: number; differing: number; missing: number; unverified: number }>(
    `select count(*)::int as checked, count(*) filter (where status = 'matched')::int as matched, count(*) filter (where status = 'differing')::int as differing,
            count(*) filter (where status = 'account_missing')::int as missing, count(*) filter (where unverified_fields > 0)::int as unverified
       from migrate.reconciliations where run_id = $1`,
    [RUN],
  );
  const b = await db.pool.query<{ accounts: number; source: string; platform: string; difference: string }>(
    `select count(*)::int as accounts, trim_scale(coalesce(sum(source_balance_pence), 0))::text as source,
            trim_scale(coalesce(sum(platform_balance_pence), 0))::text as platform,
            trim_scale(coalesce(sum(platform_balance_pence - source_balance_pence), 0))::text as difference
       from migrate.reconciliations where run_id = $1 and source_balance_pence is not null and platform_balance_pence is not null`,
    [RUN],
  );
  return {
    ...checks.rows[0],
    balances: { accounts: b.rows[0].accounts, sourcePence: b.rows[0].source, platformPence: b.rows[0].platform, differencePence: b.rows[0].difference },
    fields: r.rows.map(({ field, matched, differing, unverified }) => ({ field, matched, differing, unverified })),
    unverifiedByField: Object.fromEntries(r.rows.filter((x) => x.accounts_unverified > 0).map((x) => [x.field, x.accounts_unverified])),
  };
}

const summary = async () => {
  const { byField: _, ...s } = await createReconciliationLedger(db.pool).summary(RUN);
  return s;
};
/** The figures per field alone. */
const perField = async () => {
  const s = await summary();
  return { fields: s.fields, unverifiedByField: s.unverifiedByField };
};

describe("the run's figures per field", () => {
  it('count clean checks by their set of fields and the others field by field, through re-checks and deletions', async () => {
    // Clean checks of two sets of fields (an account with a gas meter has one more), in several shards.
    for (let i = 0; i < 12; i++)
      await check(
        `A${i}`,
        { balance: tally(1), 'customers.*.email': tally(2), ...(i % 3 === 0 ? { 'gas.*.mprn': tally(1) } : {}) },
        { source: `${i}.5`, platform: `${i}.5` },
      );
    // One differing on a field, one whose record lacks a field, one missing from the platform (no fields).
    await check('D1', { balance: tally(0, 1), 'customers.*.email': tally(2) }, { source: '100', platform: '-100' });
    await check('U1', { balance: tally(1), 'customers.*.email': tally(1, 0, 1), 'gas.*.mprn': tally(0, 0, 1) });
    await check('M1', {});
    expect(await perField()).toEqual({
      fields: [
        { field: 'balance', matched: 13, differing: 1, unverified: 0 },
        { field: 'customers.*.email', matched: 13, differing: 0, unverified: 1 },
        { field: 'gas.*.mprn', matched: 4, differing: 0, unverified: 1 },
      ],
      unverifiedByField: { 'customers.*.email': 1, 'gas.*.mprn': 1 },
    });
    expect(await summary()).toEqual(await recount());

    // Re-checks: a clean one found differing, the differing one now clean, a clean one with another set.
    await check('A1', { balance: tally(1), 'customers.*.email': tally(1, 1) });
    await check('D1', { balance: tally(1), 'customers.*.email': tally(2) }, { source: '100', platform: '100' });
    await check('A2', { balance: tally(1), 'customers.*.email': tally(2), 'gas.*.mprn': tally(1) });
    expect(await summary()).toEqual(await recount());
    expect((await perField()).fields).toContainEqual({ field: 'customers.*.email', matched: 12, differing: 1, unverified: 1 });

    // Deleted attempts take their checks (and their counts) with them, clean or not.
    await db.pool.query(`delete from migrate.account_attempts where run_id = $1 and external_account_number in ('A0', 'A1', 'U1')`, [RUN]);
    expect(await summary()).toEqual(await recount());
    expect(await perField()).toEqual({
      fields: [
        { field: 'balance', matched: 11, differing: 0, unverified: 0 },
        { field: 'customers.*.email', matched: 11, differing: 0, unverified: 0 },
        { field: 'gas.*.mprn', matched: 4, differing: 0, unverified: 0 },
      ],
      unverifiedByField: {},
    });
  });

  it('keep a clean check on its set of fields, not on a row per field', async () => {
    const before = await db.pool.query<{ n: number }>('select count(*)::int as n from migrate.reconciliation_field_totals where run_id = $1', [RUN]);
    await check('C1', { balance: tally(1), 'customers.*.email': tally(2), 'customers.*.phone': tally(1) });
    const after = await db.pool.query<{ n: number }>('select count(*)::int as n from migrate.reconciliation_field_totals where run_id = $1', [RUN]);
    expect(after.rows[0].n).toBe(before.rows[0].n);
    expect(await summary()).toEqual(await recount());
  });
});
