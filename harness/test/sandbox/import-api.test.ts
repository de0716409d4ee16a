import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admin, api, minimalAccount, schedule, startStack, SUPPLIER, waitFor, waitForStatus, window, type Stack } from './harness';
import { requestExample } from '../../../contract';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('import-api');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);
beforeEach(async () => {
  await admin(stack, 'POST', '/admin/reset');
});

const validate = (payload: unknown) => api(stack, 'POST', '/v2/data-import/accounts/validate/', { payload });

describe('validate', () => {
  it("accepts the spec's own ExamplePayload, for validation and for scheduling", async () => {
    const example = requestExample('/v2/data-import/accounts/', 'post', 'ExamplePayload') as Record<string, unknown>;
    expect(example.import_supplier).toBe('TENTACLE_ENERGY'); // seeded as a supplier by the harness
    const v = await validate(example);
    expect(v.status, v.text).toBe(200);
    const s = await schedule(stack, example, { is_dry_run: false, ...window() });
    expect(s.status, s.text).toBe(201);
    expect(s.text).toBe('');
    const status = await api(stack, 'GET', '/v2/data-import/accounts/TENTACLE_ENERGY/EXTERNAL-1234/');
    expect(status.status).toBe(200);
    expect(['PENDING', 'IN_PROGRESS', 'ERRORED']).toContain(status.json.status);
  });

  it('reports field errors with platform codes and payload-relative dot paths', async () => {
    const bad = minimalAccount('VAL-1');
    (bad.customers as any)[0].mobile = 'abcde';
    (bad.customers as any)[0].date_of_birth = '2019-02-30';
    bad.account_type = 'NOT_A_TYPE';
    bad.billing_postcode = 'NOT A POSTCODE';
    (bad.supply_addresses as any)[0].meter_points[0].agreements[0].tariff_code = null;
    delete (bad.supply_addresses as any)[0].meter_points[0].mpid;
    bad.billing_name = 'x'.repeat(511);
    const r = await validate(bad);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('account_failed_validation');
    expect(typeof r.json.detail).toBe('string');
    const got = r.json.errors.map((e: any) => `${e.attr}:${e.code}`).sort();
    expect(got).toEqual(
      [
        'account_type:invalid_choice',
        'billing_name:max_length',
        'billing_postcode:invalid_postcode',
        'customers.0.date_of_birth:invalid',
        'customers.0.mobile:invalid_phone_number',
        'supply_addresses.0.meter_points.0.agreements.0.tariff_code:null',
        'supply_addresses.0.meter_points.0.mpid:required',
      ].sort(),
    );
    for (const e of r.json.errors) expect(typeof e.detail).toBe('string');
  });

  it('reports an unknown import supplier as invalid_choice and a paused one as import_supplier_migration_not_ongoing', async () => {
    const unknown = await validate(minimalAccount('VAL-2', { import_supplier: 'NO_SUCH_SUPPLIER' }));
    expect(unknown.status).toBe(400);
    expect(unknown.json.errors).toEqual([{ attr: 'import_supplier', code: 'invalid_choice', detail: expect.any(String) }]);
    await admin(stack, 'PUT', `/admin/suppliers/${SUPPLIER}`, { status: 'Paused' });
    const paused = await validate(minimalAccount('VAL-2'));
    expect(paused.status).toBe(400);
    expect(paused.json.code).toBe('import_supplier_migration_not_ongoing');
    expect(paused.json.errors[0]).toMatchObject({ attr: 'import_supplier', code: 'import_supplier_migration_not_ongoing' });
  });
});

describe('schedule', () => {
  it('answers a payload failing validation with import_process_failed_validation, as the spec shows', async () => {
    const r = await schedule(stack, minimalAccount('SCH-1', { account_type: 'NOPE' }));
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ code: 'import_process_failed_validation', detail: expect.any(String), domain: 'import_process' });
    const unknownSupplier = await schedule(stack, minimalAccount('SCH-1', { import_supplier: 'NO_SUCH_SUPPLIER' }));
    expect(unknownSupplier.status).toBe(400);
    expect(unknownSupplier.json.code).toBe('import_process_failed_validation');
  });

  it('checks the schedule window with the spec codes', async () => {
    const day = 24 * 3600 * 1000;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [
        { schedule_window_start: new Date(Date.now() - 60_000).toISOString(), schedule_window_end: new Date(Date.now() + day).toISOString() },
        'task_params.schedule_window_start',
        'schedule_window_start_in_past',
      ],
      [{ schedule_window_end: new Date(Date.now() + 5 * day).toISOString() }, 'task_params.schedule_window_end', 'schedule_window_end_too_far_in_future'],
      [
        { schedule_window_start: new Date(Date.now() + 2 * day).toISOString(), schedule_window_end: new Date(Date.now() + day).toISOString() },
        'task_params.non_field_errors',
        'schedule_window_start__after_end',
      ],
      [{ schedule_window_end: 'tomorrow' }, 'task_params.schedule_window_end', 'invalid'],
    ];
    for (const [params, attr, code] of cases) {
      const r = await schedule(stack, minimalAccount('SCH-2'), { is_dry_run: false, ...params });
      expect(r.status, JSON.stringify(params)).toBe(400);
      expect(r.json.code).toBe('account_failed_validation');
      expect(r.json.errors).toContainEqual({ attr, code, detail: expect.any(String) });
    }
    const noParams = await api(stack, 'POST', '/v2/data-import/accounts/', { payload: minimalAccount('SCH-2') });
    expect(noParams.status).toBe(400);
    expect(noParams.json.errors).toContainEqual({ attr: 'task_params', code: 'required', detail: 'This field is required.' });
    // Both bounds may be omitted: defaults apply.
    expect((await schedule(stack, minimalAccount('SCH-2'), { is_dry_run: false })).status).toBe(201);
  });

  it('refuses Paused and Complete suppliers with import_supplier_migration_not_ongoing', async () => {
    for (const status of ['PAUSED', 'COMPLETE']) {
      await admin(stack, 'PUT', `/admin/suppliers/${SUPPLIER}`, { status });
      const r = await schedule(stack, minimalAccount('SCH-3'));
      expect(r.status).toBe(400);
      expect(r.json.code).toBe('import_supplier_migration_not_ongoing');
      expect(r.json.errors).toEqual([{ attr: 'import_supplier', code: 'import_supplier_migration_not_ongoing', detail: expect.any(String) }]);
    }
    const suppliers = await admin<{ suppliers: Array<{ code: string; status: string }> }>(stack, 'GET', '/admin/suppliers');
    expect(suppliers.suppliers.find((s) => s.code === SUPPLIER)?.status).toBe('COMPLETE');
    await admin(stack, 'PUT', `/admin/suppliers/${SUPPLIER}`, { status: 'ONGOING' });
    expect((await schedule(stack, minimalAccount('SCH-3'))).status).toBe(201);
  });

  it('answers 201 again while the import is live, and 400 with account_id once imported; created_count stays 1', async () => {
    await admin(stack, 'PUT', '/admin/faults', { processingDelayMs: 1500 });
    expect((await schedule(stack, minimalAccount('SCH-4'))).status).toBe(201);
    expect((await schedule(stack, minimalAccount('SCH-4'))).status).toBe(201);
    const done = await waitForStatus(stack, 'SCH-4', ['PROCESSED']);
    expect(done.kraken_identifier).toMatch(/^A-[0-9A-F]{8}$/);
    const again = await schedule(stack, minimalAccount('SCH-4'));
    expect(again.status).toBe(400);
    expect(again.json).toEqual({
      non_field_errors: { code: 'account_import_process_already_imported', detail: expect.any(String) },
      account_id: done.kraken_identifier,
    });
    const truth = await admin<any>(stack, 'GET', `/admin/ground-truth?supplier=${SUPPLIER}`);
    expect(truth.accounts).toEqual([
      expect.objectContaining({
        external_identifier: 'SCH-4',
        account_number: done.kraken_identifier,
        created_count: 1,
        schedule_accepted_count: 2,
        import_process_count: 1,
        status: 'PROCESSED',
        dry_run: false,
      }),
    ]);
    expect(truth.duplicates).toEqual([]);
  });

  it('the blind-resend trap: an import whose answer was lost stays pending, and a repeated schedule opens a second import', async () => {
    await admin(stack, 'PUT', '/admin/faults', { blindResendTrapMs: 4000, responseLostRate: 1 });
    // The answer is lost (a dropped connection or a 502): the import exists, the client does not know.
    const lost = await schedule(stack, minimalAccount('TRAP-1')).catch(() => undefined);
    expect(lost === undefined || lost.status === 502).toBe(true);
    await admin(stack, 'PUT', '/admin/faults', { responseLostRate: 0 });
    // Held: well past the usual processing delay it is still PENDING, as a slow platform's would be.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/TRAP-1/`)).json.status).toBe('PENDING');
    // A blind resend is answered 201 and opens a second import.
    expect((await schedule(stack, minimalAccount('TRAP-1'))).status).toBe(201);
    // An answer that reached the client is not held.
    expect((await schedule(stack, minimalAccount('TRAP-2'))).status).toBe(201);
    await waitForStatus(stack, 'TRAP-2', ['PROCESSED'], SUPPLIER);
    await waitFor('TRAP-1 to be created', async () => {
      const truth = await admin<any>(stack, 'GET', `/admin/ground-truth?supplier=${SUPPLIER}`);
      return truth.accounts.find((a: any) => a.external_identifier === 'TRAP-1' && a.created_count === 1);
    });
    const truth = await admin<any>(stack, 'GET', `/admin/ground-truth?supplier=${SUPPLIER}`);
    expect(truth.accounts).toEqual([
      expect.objectContaining({ external_identifier: 'TRAP-1', created_count: 1, schedule_accepted_count: 2, import_process_count: 2 }),
      expect.objectContaining({ external_identifier: 'TRAP-2', created_count: 1, schedule_accepted_count: 1, import_process_count: 1 }),
    ]);
  });

  it('accepts a new schedule after ERRORED (a rerun)', async () => {
    await admin(stack, 'PUT', '/admin/forced-outcomes', { 'SCH-5': { outcome: 'error', error_code: 'forced_failure', error_detail: 'boom' } });
    expect((await schedule(stack, minimalAccount('SCH-5'))).status).toBe(201);
    const errored = await waitForStatus(stack, 'SCH-5', ['ERRORED']);
    expect(errored.latest_error).toEqual({ code: 'forced_failure', detail: 'boom', domain: 'import_process' });
    expect(errored.latest_event).toMatchObject({ event: 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED', data: errored.latest_error });
    await admin(stack, 'PUT', '/admin/forced-outcomes', { 'SCH-5': null });
    expect((await schedule(stack, minimalAccount('SCH-5'))).status).toBe(201);
    const processed = await waitForStatus(stack, 'SCH-5', ['PROCESSED']);
    expect(processed.latest_error).toBeNull();
  });

  it('answers 404 not_found for an unknown import', async () => {
    const r = await api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/NEVER-SCHEDULED/`);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: expect.any(String), code: 'not_found' });
  });
});
