import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../../ledger/attempts';
import { finishMinutes, runSummary } from '../../../ledger/run-summary';
import { recentFinishedByRun, readLedgerMetrics } from '../../../ledger/metrics';
import type { AccountOutcome } from '../../../domain/inputs';
import { startTestDb } from '../events/helpers';

/**
 * A run's finished accounts by outcome and by minute, kept by the attempts table's triggers in 16 rows
 * a run (db/migrations/1798200000001_run_outcome_counts_sharded.sql): what `run status`, the report
 * and the metrics read equals a count of the attempts themselves, through outcomes recorded, changed
 * and deleted.
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
  await ledger.recordOutcome(ref, { externalAccountNumber: ext, ...o });
}

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
  });
});
