import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../../ledger/attempts';
import { finishMinutes, runSummary } from '../../../ledger/run-summary';
import { recentFinishedByRun, readLedgerMetrics } from '../../../ledger/metrics';
import { createReconciliationLedger } from '../../../ledger/reconciliation';
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
const checkpointCounts = async () => {
  const { inSource, sent, created } = (await createReconciliationLedger(db.pool).checkpoint(RUN, 0)).counts;
  return { inSource, sent, created };
};

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
