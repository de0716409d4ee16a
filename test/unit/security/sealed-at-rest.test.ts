import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../../clients/db';
import { keyringFrom, type CodecKey } from '../../../codec/keys';
import { createLedger } from '../../../ledger/attempts';
import { insertInboxRecord, platformErrorDetail } from '../../../ledger/inbox';
import { createPostImportLedger } from '../../../ledger/post-import-items';
import { createReconciliationLedger } from '../../../ledger/reconciliation';
import { useLedgerKeys } from '../../../ledger/sealing';
import { startTestDb } from '../events/helpers';

/**
 * The ledger's personal columns as Postgres holds them: sealed (no value readable by SQL or a
 * dump), opened by the ledger's reads, and a key rotated by adding a newer one.
 */

const key = (id: string, fill: number): CodecKey => ({ id, key: Buffer.alloc(32, fill) });
const RUN = 'run-sealed';
const ref = { runId: RUN, externalAccountNumber: 'S-1', supplierCode: 'SUP', dryRun: false };
const NAME = 'Philippa Abernethy-Osei';
const DOB = '1961-07-23';
const EMAIL = 'p.abernethy@example.test';
const PHONE = '+447700900123';
let db: Awaited<ReturnType<typeof startTestDb>>;
let k1: Pool;
let k1k2: Pool;
let k2only: Pool;

beforeAll(async () => {
  db = await startTestDb('sealed-at-rest');
  k1 = useLedgerKeys(createPool(db.url, 2), keyringFrom([key('k1', 1)]));
  k1k2 = useLedgerKeys(createPool(db.url, 2), keyringFrom([key('k1', 1), key('k2', 2)]));
  k2only = useLedgerKeys(createPool(db.url, 2), keyringFrom([key('k2', 2)]));
  await db.pool.query(`insert into migrate.runs (run_id, supplier_code, source, selection, concurrency) values ($1, 'SUP', '{}', '{}', 1)`, [RUN]);
}, 120_000);

afterAll(async () => {
  await Promise.all([k1, k1k2, k2only].map((p) => p?.end()));
  await db?.stop();
});

/** Every value of every row of the ledger's tables, as text: what a dump of them would show. */
async function ledgerText(): Promise<string> {
  const tables = await db.pool.query<{ t: string }>(
    `select table_name as t from information_schema.tables where table_schema = 'migrate' and table_type = 'BASE TABLE'`,
  );
  const parts: string[] = [];
  for (const { t } of tables.rows) parts.push(JSON.stringify((await db.pool.query(`select * from migrate."${t}"`)).rows));
  return parts.join('\n');
}

describe('personal data sealed at rest', () => {
  it('payload, error details, differences, inbox deliveries and post-import items are unreadable in the tables and read back whole', async () => {
    const request = { customers: [{ given_name: NAME, date_of_birth: DOB, email: EMAIL, mobile: PHONE }] };
    const ledger = createLedger(k1);
    await ledger.storePrepared(ref, { workflowId: 'wf-S-1', request, documents: [], stage: 'validate' });
    await ledger.replaceErrors(ref, 'validate', [
      { stage: 'validate', code: 'invalid_date', attr: 'customers.0.date_of_birth', detail: `"${DOB}" is not a real date` },
    ]);
    await db.pool.query(
      `insert into migrate.reconciliations (run_id, external_account_number, platform_account_number, status, checked_fields, differing_fields, checked_by)
                         values ($1, 'S-1', 'P-1', 'differing', 1, 1, 'workflow')`,
      [RUN],
    );
    await createReconciliationLedger(k1).record({
      runId: RUN,
      externalAccountNumber: 'S-1',
      platformAccountNumber: 'P-1',
      status: 'differing',
      checkedFields: 2,
      checkedBy: 'workflow',
      differences: [{ path: 'customers.0.email', field: 'customers.*.email', expected: EMAIL, found: null }],
    });
    await insertInboxRecord(
      k1,
      {
        eventId: 'ev-1',
        dedupeKey: 'ev-1',
        eventType: 'data_import.import_process.error',
        payloadVersion: 'v1',
        externalIdentifier: 'S-1',
        identifier: null,
        errorCode: 'invalid_phone_number',
        raw: { detail: { error_code: 'invalid_phone_number', error_detail: `${PHONE} is not a phone number for ${NAME}` } },
        matchStatus: 'pending',
        note: null,
      },
      'ev-1',
      'test',
    );

    const items = createPostImportLedger(k1);
    const note = { kind: 'note', item: { body: `Called ${NAME} on ${PHONE}` } } as unknown as Parameters<typeof items.addChanges>[2][number]['change'];
    await items.addChanges('SUP', 'S-1', [
      { runId: RUN, deltaId: 'd-1', platformAccountNumber: 'P-1', recordedAt: new Date().toISOString(), change: note, key: 'n-1' },
    ]);
    const itemRef = { supplierCode: 'SUP', externalAccountNumber: 'S-1', kind: 'note' as const, key: 'n-1' };
    await items.finish(itemRef, { status: 'post_import_failed', source: 'event', code: 'invalid_note', attr: 'body', detail: `note for ${NAME} refused` });

    const text = await ledgerText();
    for (const v of [NAME, DOB, EMAIL, PHONE, 'Philippa', 'Abernethy']) expect(text).not.toContain(v);
    expect(text).toContain('$sealed:v1:k1:');

    expect(await ledger.loadPayload(ref)).toEqual({ request, documents: [] });
    expect(await ledger.errorsOf(ref, 'validate')).toEqual([
      { code: 'invalid_date', attr: 'customers.0.date_of_birth', detail: `"${DOB}" is not a real date` },
    ]);
    expect(await createReconciliationLedger(k1).differences(RUN)).toEqual([
      { externalAccountNumber: 'S-1', path: 'customers.0.email', field: 'customers.*.email', expected: EMAIL, found: null },
    ]);
    expect(await platformErrorDetail(k1, 'S-1', 'invalid_phone_number')).toBe(`${PHONE} is not a phone number for ${NAME}`);
    expect((await items.load(itemRef))?.item).toEqual(note.item);
    expect(await items.failedItems(RUN)).toEqual([expect.objectContaining({ detail: `note for ${NAME} refused` })]);
    expect(await createPostImportLedger(k1).eventErrorDetail('ev-1')).toBe(`${PHONE} is not a phone number for ${NAME}`);
  });

  it('rotation: a newer key seals new values, the older one still opens old values, and a keyring without it refuses them by key id', async () => {
    const ledger = createLedger(k1k2);
    expect((await ledger.loadPayload(ref)).request).toMatchObject({ customers: [{ given_name: NAME }] });
    await ledger.replaceErrors(ref, 'validate', [{ stage: 'validate', code: 'invalid_email', attr: 'customers.0.email', detail: `${EMAIL} bounced` }]);
    const stored = await db.pool.query(`select detail from migrate.account_errors where run_id = $1`, [RUN]);
    expect(stored.rows[0].detail).toMatch(/^\$sealed:v1:k2:/);
    // The payload (k1) and the new detail (k2) side by side: both open with the two keys.
    expect(await ledger.errorsOf(ref, 'validate')).toEqual([{ code: 'invalid_email', attr: 'customers.0.email', detail: `${EMAIL} bounced` }]);
    await expect(createLedger(k2only).loadPayload(ref)).rejects.toMatchObject({ code: 'codec_unknown_key', keyId: 'k1' });
    expect(await createLedger(k2only).errorsOf(ref, 'validate')).toEqual([{ code: 'invalid_email', attr: 'customers.0.email', detail: `${EMAIL} bounced` }]);
  });

  it('the operator queries still filter on plain columns: the errors by account index serves the stage read', async () => {
    const client = await db.pool.connect();
    let plan: { rows: Array<Record<string, string>> };
    try {
      await client.query('set enable_seqscan = off');
      plan = await client.query(
        `explain select code, attr, detail from migrate.account_errors where run_id = $1 and external_account_number = $2 and stage = $3`,
        [RUN, 'S-1', 'validate'],
      );
    } finally {
      client.release(true);
    }
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('account_errors_by_account');
  });
});
