import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../../ledger/attempts';
import { insertInboxRecord } from '../../../ledger/inbox';
import { createPostImportLedger } from '../../../ledger/post-import-items';
import { purgeInboxOlderThan, purgeRun, runsPastRetention } from '../../../ledger/purge';
import { createReconciliationLedger } from '../../../ledger/reconciliation';
import { SEALED, ledgerKeys } from '../../../ledger/sealing';
import { isSealed, openText } from '../../../codec/sealed-value';
import { startTestDb } from '../events/helpers';

/** `db purge`: a finished run's personal values go, its record stays; a run still going is refused. */

let db: Awaited<ReturnType<typeof startTestDb>>;
const NAME = 'Ottoline Brackenbury';

async function seedRun(runId: string, status: string, finishedDaysAgo: number | null): Promise<void> {
  const pool = db.pool;
  await pool.query(
    `insert into migrate.runs (run_id, supplier_code, source, selection, concurrency, status, finished_at)
     values ($1, 'SUP', '{}', '{}', 1, $2, case when $3::int is null then null else now() - make_interval(days => $3::int) end)`,
    [runId, status, finishedDaysAgo],
  );
  const ref = { runId, externalAccountNumber: `${runId}-A`, supplierCode: 'SUP', dryRun: false };
  const ledger = createLedger(pool);
  await ledger.storePrepared(ref, { workflowId: `wf-${runId}`, request: { customers: [{ given_name: NAME }] }, documents: [], stage: 'validate' });
  await ledger.replaceErrors(ref, 'validate', [{ stage: 'validate', code: 'invalid_name', attr: 'customers.0.given_name', detail: `"${NAME}" is too long` }]);
  await ledger.recordOutcome(ref, {
    externalAccountNumber: ref.externalAccountNumber,
    outcome: 'failed',
    stage: 'validate',
    code: 'invalid_name',
    attr: 'customers.0.given_name',
  });
  await pool.query(
    `insert into migrate.reconciliations (run_id, external_account_number, platform_account_number, status, checked_fields, differing_fields, checked_by) values ($1, $2, 'P', 'differing', 1, 1, 'workflow')`,
    [runId, ref.externalAccountNumber],
  );
  await createReconciliationLedger(pool).record({
    runId,
    externalAccountNumber: ref.externalAccountNumber,
    platformAccountNumber: 'P',
    status: 'differing',
    checkedFields: 1,
    checkedBy: 'workflow',
    differences: [{ path: 'customers.0.given_name', field: 'customers.*.given_name', expected: NAME, found: 'Otto' }],
  });
  await insertInboxRecord(
    pool,
    {
      eventId: `ev-${runId}`,
      dedupeKey: `ev-${runId}`,
      eventType: 'data_import.import_process.error',
      payloadVersion: 'v1',
      externalIdentifier: ref.externalAccountNumber,
      identifier: null,
      errorCode: 'invalid_name',
      raw: { detail: { error_detail: `${NAME} refused` } },
      matchStatus: 'pending',
      note: null,
    },
    `ev-${runId}`,
    'test',
  );
  await pool.query(`update migrate.inbox set match_status = 'matched', matched_run_id = $1 where event_id = $2`, [runId, `ev-${runId}`]);
  const items = createPostImportLedger(pool);
  const change = (key: string) => ({
    runId,
    deltaId: 'd',
    platformAccountNumber: 'P',
    recordedAt: new Date().toISOString(),
    key,
    change: { kind: 'note', item: { body: `spoke to ${NAME}` } } as unknown as Parameters<typeof items.addChanges>[2][number]['change'],
  });
  await items.addChanges('SUP', ref.externalAccountNumber, [change('done'), change('open'), change('refused')]);
  const item = (key: string) => ({ supplierCode: 'SUP', externalAccountNumber: ref.externalAccountNumber, kind: 'note' as const, key });
  await items.finish(item('done'), { status: 'completed', source: 'event' });
  // The platform's words on a failed item quote the customer.
  await items.finish(item('refused'), { status: 'post_import_failed', source: 'event', code: 'invalid_note', detail: `note for ${NAME} refused` });
}

/**
 * Every personal column of the ledger (SEALED: each one sealing knows of) in the run's rows, opened,
 * where it still holds the personal text: `column` or `column[item key]`.
 */
async function personalTextLeft(runId: string): Promise<string[]> {
  const left: string[] = [];
  for (const column of Object.values(SEALED)) {
    const [table, col] = column.split('.');
    const r = await db.pool.query<{ v: unknown; item: string | null }>(
      `select to_jsonb(t.${col}) as v, to_jsonb(t) ->> 'item_key' as item from migrate.${table} t where ${table === 'inbox' ? 'matched_run_id' : 'run_id'} = $1`,
      [runId],
    );
    for (const { v, item } of r.rows) {
      const text = typeof v === 'string' && isSealed(v) ? openText(ledgerKeys(db.pool), column, v) : JSON.stringify(v);
      if (text.includes(NAME)) left.push(item ? `${column}[${item}]` : column);
    }
  }
  return left.sort();
}

/** The run's rows, opened through the ledger where they are sealed. */
async function personalOf(runId: string) {
  const ext = `${runId}-A`;
  const ref = { runId, externalAccountNumber: ext, supplierCode: 'SUP', dryRun: false };
  const ledger = createLedger(db.pool);
  const items = createPostImportLedger(db.pool);
  return {
    request: (await ledger.loadPayload(ref)).request,
    errors: await ledger.errorsOf(ref, 'validate'),
    differences: await createReconciliationLedger(db.pool).differences(runId),
    inbox: (await db.pool.query(`select raw from migrate.inbox where event_id = $1`, [`ev-${runId}`])).rows[0].raw as unknown,
    done: (await items.load({ supplierCode: 'SUP', externalAccountNumber: ext, kind: 'note', key: 'done' }))?.item,
    open: (await items.load({ supplierCode: 'SUP', externalAccountNumber: ext, kind: 'note', key: 'open' }))?.item,
    outcome: (await db.pool.query(`select outcome, error_code, error_attr from migrate.account_attempts where run_id = $1`, [runId])).rows[0] as unknown,
  };
}

beforeAll(async () => {
  db = await startTestDb('purge');
  await seedRun('old', 'completed', 40);
  await seedRun('recent', 'completed', 5);
  await seedRun('going', 'running', null);
  await seedRun('old-cancelled', 'cancelled', 100);
}, 120_000);

afterAll(async () => {
  await db?.stop();
});

describe('db purge', () => {
  it('selects by age only finished runs past retention, and not twice', async () => {
    expect(await runsPastRetention(db.pool, 30)).toEqual(['old-cancelled', 'old']);
    expect(await runsPastRetention(db.pool, 200)).toEqual([]);
  });

  it('removes the run’s personal values and keeps its outcomes, codes and paths; other runs untouched', async () => {
    expect(await personalTextLeft('old')).toHaveLength(8);
    expect(await purgeRun(db.pool, 'old')).toEqual({ runId: 'old', payloads: 1, errorDetails: 1, differences: 1, inboxEvents: 1, postImportItems: 2 });
    // No personal text left but the content of items the next delta or a retry still sends: not the platform's error text either.
    expect(await personalTextLeft('old')).toEqual(['post_import_items.item[open]', 'post_import_items.item[refused]']);
    const after = await personalOf('old');
    expect(after).toEqual({
      request: null,
      errors: [{ code: 'invalid_name', attr: 'customers.0.given_name', detail: '' }],
      differences: [{ externalAccountNumber: 'old-A', path: 'customers.0.given_name', field: 'customers.*.given_name', expected: null, found: null }],
      inbox: null,
      done: null,
      // Not completed yet: the next delta still sends it.
      open: { body: `spoke to ${NAME}` },
      outcome: { outcome: 'failed', error_code: 'invalid_name', error_attr: 'customers.0.given_name' },
    });
    expect(JSON.stringify(await personalOf('recent'))).toContain(NAME);
    expect(await runsPastRetention(db.pool, 30)).toEqual(['old-cancelled']);
    // Again: nothing left to clear.
    expect(await purgeRun(db.pool, 'old')).toMatchObject({ payloads: 0, errorDetails: 0, differences: 0, inboxEvents: 0, postImportItems: 0 });
  });

  it('refuses a run still going, and one that does not exist, by code', async () => {
    await expect(purgeRun(db.pool, 'going')).rejects.toMatchObject({ code: 'run_in_progress' });
    expect(JSON.stringify(await personalOf('going'))).toContain(NAME);
    await expect(purgeRun(db.pool, 'nope')).rejects.toMatchObject({ code: 'run_not_found' });
  });

  it('empties deliveries older than retention whatever their run, except those still pending', async () => {
    await db.pool.query(`update migrate.inbox set received_at = now() - interval '50 days'`);
    await db.pool.query(`update migrate.inbox set match_status = 'pending' where event_id = 'ev-going'`);
    expect(await purgeInboxOlderThan(db.pool, 30)).toBe(2);
    const left = await db.pool.query(`select event_id from migrate.inbox where raw <> 'null'::jsonb order by 1`);
    expect(left.rows.map((r) => r.event_id)).toEqual(['ev-going']);
  });
});
