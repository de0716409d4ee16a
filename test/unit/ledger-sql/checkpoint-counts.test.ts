import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../../ledger';
import type { AttemptRef } from '../../../ledger/types';
import { startTestDb, uniq } from '../events/helpers';

/**
 * The checkpoint's counts are moved by a trigger (db/migrations/1798050000000_checkpoint_counts_one_upsert.sql:
 * one upsert of the difference for an account scheduled or recorded). Proven on the real Postgres
 * against a full count, through the ledger's own writes, for the path every account takes.
 */

let db: Awaited<ReturnType<typeof startTestDb>>;
let ledger: ReturnType<typeof createLedger>;

beforeAll(async () => {
  db = await startTestDb('checkpoint-counts');
  ledger = createLedger(db.pool);
}, 180_000);
afterAll(async () => db?.stop());

async function openRun(dryRun: boolean): Promise<string> {
  const runId = uniq('run');
  await ledger.registerRun({ runId, supplierCode: 'S1', dryRun, source: { kind: 'synthetic' }, selection: { kind: 'all' }, concurrency: 1 } as never);
  return runId;
}

async function counts(runId: string) {
  // A run's counts are kept in several rows (its accounts' shards: no row every account waits on).
  const kept = await db.pool.query(
    `select sum(attempts)::int as attempts, sum(sent)::int as sent, sum(created)::int as created from migrate.run_checkpoint_counts where run_id = $1 having count(*) > 0`,
    [runId],
  );
  const full = await db.pool.query(
    `select count(*)::int as attempts, count(scheduled_at)::int as sent,
            count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)::int as created
       from migrate.account_attempts where run_id = $1 and not dry_run`,
    [runId],
  );
  return { kept: kept.rows[0] ?? { attempts: 0, sent: 0, created: 0 }, full: full.rows[0] };
}

/** The run's rows, each its accounts' counts (an account always counted on its own shard's row), against a full count per shard. */
async function shards(runId: string) {
  const kept = await db.pool.query(
    `select shard::int, attempts::int, sent::int, created::int from migrate.run_checkpoint_counts
      where run_id = $1 and (attempts, sent, created) <> (0, 0, 0) order by shard`,
    [runId],
  );
  const full = await db.pool.query(
    `select migrate.counter_shard(external_account_number)::int as shard, count(*)::int as attempts, count(scheduled_at)::int as sent,
            count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)::int as created
       from migrate.account_attempts where run_id = $1 and not dry_run group by 1 order by 1`,
    [runId],
  );
  return { kept: kept.rows, full: full.rows };
}

describe('the checkpoint counts, kept by one upsert an account change', () => {
  it('match a full count through open → scheduled → completed, scheduled → failed, and failed before scheduling', async () => {
    const runId = await openRun(false);
    const ref = (n: string): AttemptRef => ({ runId, externalAccountNumber: n, supplierCode: 'S1', dryRun: false });
    const [a, b, c] = [ref(uniq('A')), ref(uniq('B')), ref(uniq('C'))];
    for (const r of [a, b, c]) await ledger.openAttempt(r, `wf-${r.externalAccountNumber}`);
    expect((await counts(runId)).kept).toEqual({ attempts: 3, sent: 0, created: 0 });

    await ledger.markScheduled(a, { stage: 'schedule', errors: [] });
    await ledger.markScheduled(b, { stage: 'schedule', errors: [] });
    await ledger.markScheduled(a, { stage: 'schedule', errors: [] }); // a retried schedule: sent once
    await ledger.recordOutcome(a, {
      externalAccountNumber: a.externalAccountNumber,
      outcome: 'completed',
      stage: 'await',
      accountNumber: 'A-1',
      source: 'event',
    } as never);
    await ledger.recordOutcome(b, {
      externalAccountNumber: b.externalAccountNumber,
      outcome: 'failed',
      stage: 'platform',
      code: 'x',
      source: 'event',
    } as never);
    await ledger.recordOutcome(c, {
      externalAccountNumber: c.externalAccountNumber,
      outcome: 'failed',
      stage: 'prepare',
      code: 'y',
      source: 'prepare',
    } as never);

    const { kept, full } = await counts(runId);
    expect(full).toEqual({ attempts: 3, sent: 2, created: 1 });
    expect(kept).toEqual(full);
    const rows = await shards(runId);
    expect(rows.kept).toEqual(rows.full);

    // A correction by hand (the triggers count whoever writes): the created account no longer is.
    await db.pool.query(`update migrate.account_attempts set platform_account_number = null where run_id = $1 and external_account_number = $2`, [
      runId,
      a.externalAccountNumber,
    ]);
    const after = await counts(runId);
    expect(after.full).toEqual({ attempts: 3, sent: 2, created: 0 });
    expect(after.kept).toEqual(after.full);
    const corrected = await shards(runId);
    expect(corrected.kept).toEqual(corrected.full);
  });

  it('leave a dry run uncounted', async () => {
    const runId = await openRun(true);
    const r: AttemptRef = { runId, externalAccountNumber: uniq('D'), supplierCode: 'S1', dryRun: true };
    await ledger.openAttempt(r, 'wf-d');
    await ledger.markScheduled(r, { stage: 'schedule', errors: [] });
    expect((await counts(runId)).kept).toEqual({ attempts: 0, sent: 0, created: 0 });
  });
});
