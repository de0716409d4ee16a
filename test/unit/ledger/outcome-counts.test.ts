import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../../ledger/attempts';
import { finishMinutes, runSummary } from '../../../ledger/run-summary';
import { recentFinishedByRun, readLedgerMetrics } from '../../../ledger/metrics';
import { createReconciliationLedger, type ReconciliationRow } from '../../../ledger/reconciliation';
import { outcomeUpdate } from '../../../ledger/outcome-columns';
import type { AccountOutcome } from '../../../domain/inputs';
import { startTestDb } from '../events/helpers';

/**
 * A run's finished accounts by outcome and by minute, and the checkpoint's counts, kept by the attempts
 * table's triggers in 16 rows a run, one statement an event (db/migrations/1798200000001_attempt_counters_one_trigger.sql):
 * what `run status`, the report and the metrics read equals a count of the attempts themselves,
 * through outcomes recorded, changed and deleted.
 */

let db: Awaited<ReturnType<typeof startTestDb>>;
const RUN = 'run-outcomes';

beforeAll(async () => {
  db = await startTestDb('outcome-counts');
  await db.pool.query(`insert into migrate.runs (run_id, supplier_code, source, selection, concurrency) values ($1, 'SUP', '{}', '{}', 1)`, [RUN]);
}, 120_000);
afterAll(async () => {
  await db?.stop();
});

async function finish(ext: string, o: Omit<AccountOutcome, 'externalAccountNumber'>): Promise<void> {
  const ledger = createLedger(db.pool);
  const ref = { runId: RUN, externalAccountNumber: ext, supplierCode: 'SUP', dryRun: false };
  await ledger.openAttempt(ref, `wf-${ext}`);
  if (o.accountNumber) await ledger.markScheduled(ref, { stage: 'preflight', errors: [] });
  await ledger.recordOutcome(ref, { externalAccountNumber: ext, ...o });
}
const checkpointCountsOf = async (run: string) => {
  const { inSource, sent, created } = (await createReconciliationLedger(db.pool).checkpoint(run, 0)).counts;
  return { inSource, sent, created };
};
const checkpointCounts = () => checkpointCountsOf(RUN);

/** The finished attempts counted from the attempts table, as runSummary returns them. */
async function counted() {
  const r = await db.pool.query<{ outcome: string; stage: string; code: string | null; source: string | null; n: number }>(
    `select outcome, stage, error_code as code, outcome_source as source, count(*)::int as n from migrate.account_attempts
      where run_id = $1 and outcome is not null group by 1, 2, 3, 4 order by 1, 2, 3, 4`,
    [RUN],
  );
  return r.rows;
}
const finished = async () =>
  (await runSummary(db.pool, RUN))
    .filter((r) => r.outcome !== null)
    .sort((a, b) => `${a.outcome}${a.stage}${a.code}`.localeCompare(`${b.outcome}${b.stage}${b.code}`));
const perMinute = async () => (await finishMinutes(db.pool, RUN)).reduce((a, m) => a + m.n, 0);

describe("a run's outcome counts", () => {
  it('sum its shards to the attempts recorded, through outcomes recorded, changed and deleted', async () => {
    for (let i = 0; i < 40; i++) await finish(`C${i}`, { outcome: 'completed', stage: 'done', accountNumber: `A-${i}`, source: 'event' });
    for (let i = 0; i < 5; i++) await finish(`F${i}`, { outcome: 'failed', stage: 'validate', code: 'invalid_name' });
    expect(await finished()).toEqual([
      { outcome: 'completed', stage: 'done', code: null, source: 'event', n: 40 },
      { outcome: 'failed', stage: 'validate', code: 'invalid_name', source: null, n: 5 },
    ]);
    expect(await perMinute()).toBe(45);
    expect(await checkpointCounts()).toEqual({ inSource: 45, sent: 40, created: 40 });
    expect(await recentFinishedByRun(db.pool, 60)).toEqual([{ run: RUN, n: 45 }]);
    const metrics = await readLedgerMetrics(db.pool, 60);
    expect(metrics.outcomes.filter((o) => o.run === RUN).map((o) => [o.outcome, o.n])).toEqual(
      expect.arrayContaining([
        ['completed', 40],
        ['failed', 5],
      ]),
    );

    // An outcome changed by hand (as an operator's fix would) moves its count; deleted attempts take theirs.
    await db.pool.query(
      `update migrate.account_attempts set outcome = 'failed', stage = 'schedule', error_code = 'x' where run_id = $1 and external_account_number = 'C3'`,
      [RUN],
    );
    await db.pool.query(`delete from migrate.account_attempts where run_id = $1 and external_account_number in ('C1', 'C2', 'F0')`, [RUN]);
    expect(await finished()).toEqual((await counted()).map((r) => ({ outcome: r.outcome, stage: r.stage, code: r.code, source: r.source, n: r.n })));
    expect((await finished()).map((r) => r.n)).toEqual([37, 1, 4]);
    expect(await perMinute()).toBe(42);
    // C3 is failed now (sent, no longer created); C1 and C2 were sent and created, F0 neither.
    expect(await checkpointCounts()).toEqual({ inSource: 42, sent: 38, created: 37 });
    // An attempt opened and scheduled but not finished counts as in the source and sent only.
    const ref = { runId: RUN, externalAccountNumber: 'S1', supplierCode: 'SUP', dryRun: false };
    await createLedger(db.pool).openAttempt(ref, 'wf-S1');
    await createLedger(db.pool).markScheduled(ref, { stage: 'preflight', errors: [] });
    expect(await checkpointCounts()).toEqual({ inSource: 43, sent: 39, created: 37 });
    expect(await perMinute()).toBe(42);
  });

  it("free the account's platform permit when its outcome is recorded, its hold a sample for the window", async () => {
    const ref = { runId: RUN, externalAccountNumber: 'P1', supplierCode: 'SUP', dryRun: false };
    await createLedger(db.pool).openAttempt(ref, 'wf-P1');
    await db.pool.query(
      `insert into migrate.platform_permits (tenant, holder, fairness_key, priority_key, weight, accepted_at, expires_at)
       values ('T', 'wf-P1', 'SUP', 1, 1, clock_timestamp() - interval '2 seconds', clock_timestamp() + interval '1 hour'),
              ('T', 'wf-other', 'SUP', 1, 1, clock_timestamp(), clock_timestamp() + interval '1 hour')`,
    );
    await db.pool.query(`insert into migrate.platform_permit_waiters (tenant, holder, fairness_key, priority_key, weight) values ('T', 'wf-P1', 'SUP', 1, 1)`);
    const holds = async () => (await db.pool.query<{ held_ms: number }>(`select held_ms from migrate.platform_permit_holds where tenant = 'T'`)).rows;
    // A stage change frees nothing.
    await createLedger(db.pool).setStage(ref, 'schedule');
    expect(await holds()).toEqual([]);
    await createLedger(db.pool).recordOutcome(ref, {
      externalAccountNumber: 'P1',
      outcome: 'completed',
      stage: 'done',
      accountNumber: 'A-P1',
      source: 'event',
    });
    expect((await db.pool.query(`select holder from migrate.platform_permits where tenant = 'T'`)).rows).toEqual([{ holder: 'wf-other' }]);
    expect((await db.pool.query(`select holder from migrate.platform_permit_waiters where tenant = 'T'`)).rows).toEqual([]);
    expect((await holds()).map((h) => Math.round(h.held_ms / 1000))).toEqual([2]);
  });
});

describe("a created account's read-back (the record step's check)", () => {
  const RUN2 = 'run-checked';
  const ledger = () => createLedger(db.pool);
  const checks = () => createReconciliationLedger(db.pool);
  const refOf = (ext: string) => ({ runId: RUN2, externalAccountNumber: ext, supplierCode: 'SUP', dryRun: false });
  const checkOf = (ext: string, differing = false): ReconciliationRow => ({
    runId: RUN2,
    externalAccountNumber: ext,
    platformAccountNumber: `A-${ext}`,
    status: differing ? 'differing' : 'matched',
    checkedFields: 12,
    matchedFields: differing ? 11 : 12,
    differences: differing ? [{ path: 'customers.0.family_name', field: 'customers.*.family_name', expected: 'Lovelace', found: 'Byron' }] : [],
    checkedBy: 'workflow',
  });
  const outcomeOf = (ext: string, outcome: AccountOutcome['outcome']): AccountOutcome => ({
    externalAccountNumber: ext,
    outcome,
    stage: 'done',
    accountNumber: `A-${ext}`,
    source: 'event',
  });
  const written = async (ext: string) => ({
    outcome: (await ledger().recordedOutcomes(RUN2, [ext]))[0]?.outcome ?? null,
    check:
      (await db.pool.query(`select status from migrate.reconciliations where run_id = $1 and external_account_number = $2`, [RUN2, ext])).rows[0]?.status ??
      null,
    differences: (
      await db.pool.query(`select count(*)::int as n from migrate.reconciliation_differences where run_id = $1 and external_account_number = $2`, [RUN2, ext])
    ).rows[0].n,
  });
  const opened = async (ext: string) => {
    await ledger().openAttempt(refOf(ext), `wf-${ext}`);
    await ledger().markScheduled(refOf(ext), { stage: 'preflight', errors: [] });
  };

  beforeAll(async () => {
    await db.pool.query(`insert into migrate.runs (run_id, supplier_code, source, selection, concurrency) values ($1, 'SUP', '{}', '{}', 1)`, [RUN2]);
  });

  it('is written with the outcome it decides in one round trip; a retried record replaces the check and the first outcome stands', async () => {
    await opened('C1');
    let calls = 0;
    const counted = new Proxy(db.pool, {
      get(target, key) {
        const v = Reflect.get(target, key);
        if (key === 'query') return (...args: unknown[]) => (calls++, (v as (...a: unknown[]) => unknown).apply(target, args));
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    expect(await createReconciliationLedger(counted).record(checkOf('C1'), (first) => outcomeUpdate(outcomeOf('C1', 'completed'), first))).toBe(true);
    expect(calls).toBe(1);
    expect(await written('C1')).toEqual({ outcome: 'completed', check: 'matched', differences: 0 });
    expect(await checkpointCountsOf(RUN2)).toEqual({ inSource: 1, sent: 1, created: 1 });

    // Its first attempt recorded, then failed to answer: the retry's read-back differs.
    expect(await checks().record(checkOf('C1', true), (first) => outcomeUpdate(outcomeOf('C1', 'completed_with_differences'), first))).toBe(false);
    expect(await written('C1')).toEqual({ outcome: 'completed', check: 'differing', differences: 1 });
  });

  it('checks with and without differences recorded at once on one shard take their counters in one order: none deadlocks', async () => {
    // Accounts of one counter shard share its rows: each check locks the attempt's counters and the checks' counters.
    const all = Array.from({ length: 400 }, (_, i) => `S${i}`);
    const shards = (
      await db.pool.query<{ ext: string; shard: number }>(`select ext, migrate.counter_shard(ext) as shard from unnest($1::text[]) as ext`, [all])
    ).rows;
    const same = shards.filter((x) => x.shard === shards[0].shard).map((x) => x.ext);
    expect(same.length).toBeGreaterThanOrEqual(16);
    for (const ext of same) await opened(ext);
    const results = await Promise.allSettled(
      same.map((ext, i) =>
        checks().record(checkOf(ext, i % 2 === 1), (first) => outcomeUpdate(outcomeOf(ext, i % 2 ? 'completed_with_differences' : 'completed'), first)),
      ),
    );
    expect(results.filter((r) => r.status === 'rejected').map((r) => String(r.reason))).toEqual([]);
    // Every account has its outcome and its check, as decided.
    for (const [i, ext] of same.entries())
      expect(await written(ext)).toEqual(
        i % 2 ? { outcome: 'completed_with_differences', check: 'differing', differences: 1 } : { outcome: 'completed', check: 'matched', differences: 0 },
      );
  });

  it('with differences, in one transaction; an outcome the ledger refuses leaves no check behind', async () => {
    await opened('D1');
    expect(await checks().record(checkOf('D1', true), (first) => outcomeUpdate(outcomeOf('D1', 'completed_with_differences'), first))).toBe(true);
    expect(await written('D1')).toEqual({ outcome: 'completed_with_differences', check: 'differing', differences: 1 });

    for (const [ext, differing] of [
      ['X1', false],
      ['X2', true],
    ] as const) {
      await opened(ext);
      const refused = { ...outcomeOf(ext, 'completed'), outcome: 'no_such_outcome' } as unknown as AccountOutcome;
      await expect(checks().record(checkOf(ext, differing), (first) => outcomeUpdate(refused, first))).rejects.toThrow(/check constraint/);
      expect(await written(ext)).toEqual({ outcome: null, check: null, differences: 0 });
    }
  });
});
