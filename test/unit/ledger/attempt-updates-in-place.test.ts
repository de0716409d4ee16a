import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../../clients/db';
import { createLedger } from '../../../ledger/attempts';
import { startTestDb } from '../events/helpers';

/**
 * An account's steps before its outcome update its attempt row in place, adding no index entries
 * (db/migrations/1798300000000_attempt_updates_in_place.sql): at a million accounts each step
 * otherwise writes a new entry in every index of the table and leaves a dead one for vacuum.
 */

let db: Awaited<ReturnType<typeof startTestDb>>;
// One connection: the statistics read are this backend's, flushed when it goes idle.
let one: Pool;
const RUN = 'run-in-place';
// Enough accounts for many pages.
const N = 400;

beforeAll(async () => {
  db = await startTestDb('in-place');
  one = createPool(db.url, 1);
  await one.query(`insert into migrate.runs (run_id, supplier_code, source, selection, concurrency) values ($1, 'SUP', '{}', '{}', 1)`, [RUN]);
}, 120_000);
afterAll(async () => {
  await one?.end();
  await db?.stop();
});

async function updates(): Promise<{ all: number; inPlace: number }> {
  await one.query('select pg_stat_force_next_flush()');
  const r = await one.query<{ all: number; in_place: number }>(
    `select n_tup_upd::int as all, n_tup_hot_upd::int as in_place from pg_stat_user_tables where relid = 'migrate.account_attempts'::regclass`,
  );
  return { all: r.rows[0].all, inPlace: r.rows[0].in_place };
}

describe("an attempt's steps before its outcome", () => {
  it('update its row in place, with every account of a run opened first (pages full)', async () => {
    const ledger = createLedger(one);
    const refs = Array.from({ length: N }, (_, i) => ({ runId: RUN, externalAccountNumber: `IP${i}`, supplierCode: 'SUP', dryRun: false }));
    // The run opens its accounts together, as migrationRunWorkflow does: rows appended page after page.
    await ledger.openAttempts(
      { runId: RUN, supplierCode: 'SUP', dryRun: false },
      refs.map((r) => ({ externalAccountNumber: r.externalAccountNumber, workflowId: `wf-${r.externalAccountNumber}` })),
    );
    const before = await updates();
    // Step by step across the accounts, as accounts in flight move together.
    for (const ref of refs)
      await ledger.storePrepared(ref, { workflowId: `wf-${ref.externalAccountNumber}`, request: { a: 1 }, documents: [], stage: 'guard' });
    for (const ref of refs) await ledger.recordDocuments(ref, [], 'guard');
    for (const ref of refs) await ledger.markScheduled(ref, { stage: 'preflight', errors: [] });
    for (const ref of refs) await ledger.awaitEvent(ref, { activityId: 'schedule', seconds: 30 });
    const after = await updates();
    expect(after.all - before.all).toBe(4 * N);
    // All in place but a few: without the room left on each page, 93% of them were (pruning frees
    // the room of a row moved off its page, later); an analyze beside it may delay that pruning.
    expect(after.inPlace - before.inPlace).toBeGreaterThanOrEqual(Math.floor(4 * N * 0.97));

    // The outcome moves the row's index entries: the run's open accounts are read through their index.
    for (const ref of refs.slice(0, 10))
      await ledger.recordOutcome(ref, { externalAccountNumber: ref.externalAccountNumber, outcome: 'failed', stage: 'schedule', code: 'x' });
    const open = await one.query<{ stage: string; n: number }>(
      `select stage, count(*)::int as n from migrate.account_attempts where run_id = $1 and outcome is null group by stage`,
      [RUN],
    );
    expect(open.rows).toEqual([{ stage: 'await', n: N - 10 }]);
  });

  it('change no column an index of the table reads (key, included, expression or predicate)', async () => {
    const r = await one.query<{ attname: string }>(
      `select distinct a.attname from pg_index i
         join pg_attribute a on a.attrelid = i.indrelid and a.attnum > 0 and (a.attnum = any(i.indkey)
              or pg_get_expr(i.indexprs, i.indrelid) ~ ('\\m' || a.attname || '\\M')
              or pg_get_expr(i.indpred, i.indrelid) ~ ('\\m' || a.attname || '\\M'))
        where i.indrelid = 'migrate.account_attempts'::regclass`,
    );
    const indexed = r.rows.map((x) => x.attname);
    for (const changed of ['stage', 'updated_at', 'scheduled_at', 'event_wait_activity_id', 'event_wait_until']) expect(indexed).not.toContain(changed);
    expect(indexed).toEqual(expect.arrayContaining(['run_id', 'external_account_number', 'outcome']));
  });
});
