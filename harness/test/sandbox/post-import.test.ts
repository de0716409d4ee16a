import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admin, api, DOC_ROOT, minimalAccount, putDocument, schedule, startStack, SUPPLIER, waitFor, waitForStatus, type Stack } from './harness';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('post-import');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);
beforeEach(async () => {
  await admin(stack, 'POST', '/admin/reset');
  await admin(stack, 'PUT', '/admin/event-targets', { webhookUrl: null, sqsQueueUrl: null });
});

async function imported(ext: string, over: Record<string, unknown> = {}): Promise<string> {
  expect((await schedule(stack, minimalAccount(ext, over))).status).toBe(201);
  const done = await waitForStatus(stack, ext, ['PROCESSED', 'ERRORED']);
  expect(done.status).toBe('PROCESSED');
  return done.kraken_identifier as string;
}

interface AdminEvent {
  type: string;
  external_identifier: string;
  envelope: any;
}
const eventsOf = async (type: string) => (await admin<{ events: AdminEvent[] }>(stack, 'GET', '/admin/events')).events.filter((e) => e.type === type);
const truth = async () =>
  admin<{
    items: Array<{ external_identifier: string; resource_type: string; source_key: string; created_count: number; request_count: number }>;
    duplicates: unknown[];
  }>(stack, 'GET', '/admin/ground-truth/post-import');

describe('GET /v1/accounts/<number>/', () => {
  it('returns the documented record of what was created, authenticated; customers and balance only when opted in; the faults alter or omit the chosen member', async () => {
    const number = await imported('ACC-R1', { transfer_balance: '12.50' });
    expect((await api(stack, 'GET', `/v1/accounts/${number}/`, undefined, '')).status).toBe(401);
    const r = await api(stack, 'GET', `/v1/accounts/${number}/`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      number,
      properties: [
        {
          id: expect.any(Number),
          moved_in_at: '2024-01-01T00:00:00Z',
          moved_out_at: null,
          address_line_1: '1 Test Street',
          address_line_2: '',
          address_line_3: '',
          town: '',
          county: '',
          postcode: 'W1F 9DE',
          electricity_meter_points: [
            {
              mpan: '1200060176720',
              profile_class: null,
              consumption_standard: null,
              meters: [],
              agreements: [{ tariff_code: 'E-1R-VAR-22-11-01-C', valid_from: '2024-01-01T00:00:00Z', valid_to: null }],
              is_export: false,
            },
          ],
          gas_meter_points: [],
        },
      ],
    });
    expect((await api(stack, 'GET', '/v1/accounts/A-00000000/')).status).toBe(404);

    await admin(stack, 'PUT', '/admin/faults', { accountRecordExtras: true });
    const extras = await api(stack, 'GET', `/v1/accounts/${number}/`);
    expect(extras.json).toEqual({ ...r.json, balance: '12.50', customers: [{ given_name: 'Ada', family_name: 'Lovelace' }] });

    await admin(stack, 'PUT', '/admin/faults', { accountRecordExtras: false, accountAlterRate: 1 });
    const altered = await api(stack, 'GET', `/v1/accounts/${number}/`);
    expect(altered.json.properties[0].electricity_meter_points[0].agreements[0].tariff_code).toBe('E-1R-VAR-22-11-01-C-ALTERED');
    expect({ ...altered.json.properties[0], electricity_meter_points: [] }).toEqual({ ...r.json.properties[0], electricity_meter_points: [] });

    await admin(stack, 'PUT', '/admin/faults', { accountAlterRate: 0, accountOmitFields: ['properties.*.electricity_meter_points', 'properties.0.postcode'] });
    const omitted = await api(stack, 'GET', `/v1/accounts/${number}/`);
    const { electricity_meter_points: _e, postcode: _p, ...rest } = r.json.properties[0];
    expect(omitted.json.properties).toEqual([rest]);
  });
});

describe('v1 post-import endpoints', () => {
  it('creates a note once, answers a repeat NOTE_ALREADY_EXISTS, and emits post_import.completed for the new one only', async () => {
    await imported('ACC-N1');
    const body = {
      import_supplier: SUPPLIER,
      external_account_number: 'ACC-N1',
      notes: [{ external_id: 'n-1', body: 'Called about a refund.', created_at: '2025-01-02T10:00:00Z' }],
    };
    const first = await api(stack, 'POST', '/v1/data-import/notes/create/', body);
    expect(first.status).toBe(201);
    expect(first.json).toEqual([{ ...body.notes[0], status: 'NOTE_CREATION_SUCCESS' }]);
    const again = await api(stack, 'POST', '/v1/data-import/notes/create/', body);
    expect(again.json[0].status).toBe('NOTE_ALREADY_EXISTS');
    // Another created_at is another note, as the spec says: the client must keep it stable.
    await api(stack, 'POST', '/v1/data-import/notes/create/', { ...body, notes: [{ ...body.notes[0], created_at: '2025-01-03T10:00:00Z' }] });
    const t = await truth();
    expect(t.items).toEqual([
      expect.objectContaining({ external_identifier: 'ACC-N1', resource_type: 'NOTE', source_key: 'n-1', created_count: 2, request_count: 3 }),
    ]);
    expect(t.duplicates).toHaveLength(1);

    const completed = await waitFor('two completed events', async () => {
      const e = await eventsOf('data_import.import_process.post_import.completed');
      return e.length === 2 ? e : undefined;
    });
    expect(completed[0].envelope.detail.payload).toEqual({
      resource_type: 'NOTE',
      import_process_resource_type: 'ACCOUNT',
      import_process_external_identifier: 'ACC-N1',
      identifier: 'n-1',
    });
  });

  it('deduplicates transactions by id unless check_previously_added=false, and refuses bad ones with field paths', async () => {
    await imported('ACC-T1');
    const tx = { transaction_id: 'tx-1', transaction_date: '2025-01-02', amount: '10.00', type: 'CREDIT', reason: 'BALANCE_ADJUSTMENT' };
    const body = { import_supplier: SUPPLIER, external_account_number: 'ACC-T1', transactions: [tx] };
    expect((await api(stack, 'POST', '/v1/data-import/transactions/create/', body)).json).toEqual({
      results: [{ status: 'TRANSACTION_ADDED_TO_ACCOUNT', transaction_data: tx }],
    });
    expect((await api(stack, 'POST', '/v1/data-import/transactions/create/', body)).json.results[0].status).toBe('TRANSACTION_ALREADY_EXISTS');
    expect((await api(stack, 'POST', '/v1/data-import/transactions/create/?check_previously_added=false', body)).json.results[0].status).toBe(
      'TRANSACTION_ADDED_TO_ACCOUNT',
    );
    expect((await truth()).items[0]).toMatchObject({ source_key: 'tx-1', created_count: 2 });

    const bad = await api(stack, 'POST', '/v1/data-import/transactions/create/', { ...body, transactions: [{ ...tx, amount: 10 }] });
    expect(bad.status).toBe(400);
    expect(bad.json.errors).toEqual([expect.objectContaining({ attr: 'transactions.0.amount', code: 'invalid' })]);
    const future = await api(stack, 'POST', '/v1/data-import/transactions/create/', {
      ...body,
      transactions: [{ ...tx, transaction_id: 'tx-2', transaction_date: '2999-01-01' }],
    });
    expect(future.json.errors[0]).toMatchObject({ attr: 'transactions.0.transaction_date', code: 'transaction_in_future' });
  });

  it('needs the account imported: 404 for an unknown account, the documented 400 without an account identifier', async () => {
    const note = { body: 'x', created_at: '2025-01-02T10:00:00Z' };
    expect(
      (await api(stack, 'POST', '/v1/data-import/notes/create/', { import_supplier: SUPPLIER, external_account_number: 'NOPE', notes: [note] })).status,
    ).toBe(404);
    const r = await api(stack, 'POST', '/v1/data-import/notes/create/', { import_supplier: SUPPLIER, notes: [note] });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ non_field_errors: ['Either account_number or external_account_number must be provided.'] });
  });

  it('checks statement paths in the bucket and refuses a statement id twice; one active payment instruction', async () => {
    await imported('ACC-S1');
    const st = { statement_id: 'st-1', bill_period_from_date: '2025-01-01', bill_period_to_date: '2025-01-31', statement_path: '/statements/ACC-S1/st-1.pdf' };
    const body = { import_supplier: SUPPLIER, external_account_number: 'ACC-S1', statements: [st] };
    const missing = await api(stack, 'POST', '/v1/data-import/historical-statements/create/', body);
    expect(missing.json.errors).toEqual([expect.objectContaining({ attr: 'statements.0.statement_path', code: 'path_does_not_exist_in_file_store' })]);
    await putDocument(stack, `${DOC_ROOT}/statements/ACC-S1/st-1.pdf`);
    expect((await api(stack, 'POST', '/v1/data-import/historical-statements/create/', body)).status).toBe(201);
    const twice = await api(stack, 'POST', '/v1/data-import/historical-statements/create/', body);
    expect(twice.json.errors[0].code).toBe('historical_statement_already_exists');

    const pi = { import_supplier: SUPPLIER, external_account_number: 'ACC-S1', vendor: 'STRIPE', type: 'CARD', reference: 'pi-1' };
    const created = await api(stack, 'POST', '/v1/data-import/payment-instruction/create/', pi);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ account_number: 'ACC-S1', reference: 'pi-1' });
    expect((await api(stack, 'POST', '/v1/data-import/payment-instruction/create/', pi)).status).toBe(201);
    const other = await api(stack, 'POST', '/v1/data-import/payment-instruction/create/', { ...pi, reference: 'pi-2' });
    expect(other.status).toBe(400);
    expect(other.json).toMatchObject({ error_detail: 'Account already has an active instruction', reference: 'pi-2' });
    const t = await truth();
    expect(t.items.map((i) => [i.resource_type, i.source_key, i.created_count])).toEqual([
      ['PAYMENT_INSTRUCTION', 'pi-1', 1],
      ['STATEMENT', 'st-1', 1],
    ]);
  });

  it('under postImportErrorRate an accepted item is refused by a post_import.error event and not created', async () => {
    await imported('ACC-E1');
    await admin(stack, 'PUT', '/admin/faults', { postImportErrorRate: 1 });
    const r = await api(stack, 'POST', '/v1/data-import/notes/create/', {
      import_supplier: SUPPLIER,
      external_account_number: 'ACC-E1',
      notes: [{ external_id: 'n-9', body: 'b', created_at: '2025-01-02T10:00:00Z' }],
    });
    expect(r.status).toBe(201);
    const [ev] = await waitFor('error event', async () => {
      const e = await eventsOf('data_import.import_process.post_import.error');
      return e.length ? e : undefined;
    });
    expect(ev.envelope.detail.payload).toMatchObject({
      resource_type: 'NOTE',
      import_process_external_identifier: 'ACC-E1',
      error_code: 'post_import_forced_error',
    });
    expect((await truth()).items[0]).toMatchObject({ created_count: 0, request_count: 1 });
  });
});
