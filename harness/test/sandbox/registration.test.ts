import { describe, expect, it } from 'vitest';
import { admin, api, API_KEY, minimalAccount, schedule, SUPPLIER, useStack, waitFor, waitForStatus } from './harness';

/**
 * The switch as the sandbox plays it (harness/sandbox/supply/): registration flows for an imported
 * account's meter points, their statuses walked step by step by cohort, the lifecycle events, and
 * the ground truth a test compares the client with.
 */

const stack = useStack('registration', (s) => admin(s, 'PUT', '/admin/faults', { supplyStepMs: 100 }));

const MPAN = '1200060176720';
const send = (ext: string) => api(stack, 'POST', `/v1/data-import/send-registration-flows/${SUPPLIER}/${ext}/`);
const statuses = (ext: string) => api(stack, 'GET', `/v1/data-import/meterpoint-statuses-for-account/${SUPPLIER}/${ext}/`);
const forceCohort = (registration: string, error_detail?: string) =>
  admin(stack, 'PUT', '/admin/forced-outcomes', { [MPAN]: { registration, ...(error_detail ? { error_detail } : {}) } });
const truth = async () => (await admin<{ meterPoints: Array<Record<string, unknown>> }>(stack, 'GET', '/admin/ground-truth/supply')).meterPoints;
const lifecycle = async () =>
  (await admin<{ events: Array<{ type: string; envelope: any }> }>(stack, 'GET', '/admin/events')).events.filter((e) => e.type.startsWith('lifecycle.'));

async function imported(ext: string): Promise<string> {
  expect((await schedule(stack, minimalAccount(ext))).status).toBe(201);
  const done = await waitForStatus(stack, ext, ['PROCESSED', 'ERRORED']);
  expect(done.status).toBe('PROCESSED');
  return done.kraken_identifier as string;
}

const finalStatus = (ext: string, status: string) =>
  waitFor(`${ext} at ${status}`, async () => {
    const r = await statuses(ext);
    return r.json?.[0]?.status === status ? r.json : undefined;
  });

describe('send-registration-flows and meterpoint-statuses', () => {
  it('404 with the documented bodies for an account the tenant does not hold (only staged, or unknown)', async () => {
    const s = await send('NOPE-1');
    expect(s.status).toBe(404);
    expect(s.json).toEqual({ external_account_number: 'NOPE-1', import_supplier_code: SUPPLIER, error_detail: 'Account not found for NOPE-1.' });
    const g = await statuses('NOPE-1');
    expect(g.status).toBe(404);
    expect(g.json).toEqual({ error: 'No meterpoints found for NOPE-1.' });
  });

  it('a point walks requested → accepted → on supply, with the lifecycle events keyed by the account number; a second flow while in progress is refused and counted', async () => {
    const number = await imported('SW-1');
    expect((await statuses('SW-1')).json).toEqual([{ mpxn: MPAN, status: 'PRE_REGISTRATION' }]);
    const first = await send('SW-1');
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      external_account_number: 'SW-1',
      import_supplier_code: SUPPLIER,
      meter_points: [{ mpxn: MPAN, status: 'REGISTRATION_FLOW_SUCCESS' }],
    });
    const again = await send('SW-1');
    expect(again.json.meter_points).toEqual([{ mpxn: MPAN, status: 'REGISTRATION_FLOW_ERROR', error_detail: expect.stringContaining('already in progress') }]);
    await finalStatus('SW-1', 'ON_SUPPLY');
    expect(await truth()).toEqual([
      { external_identifier: 'SW-1', account_number: number, mpxn: MPAN, status: 'ON_SUPPLY', cohort: 'supply', flow_requests: 2, flows_accepted: 1 },
    ]);
    const events = await waitFor('two lifecycle events', async () => ((await lifecycle()).length === 2 ? lifecycle() : undefined));
    expect(events.map((e) => e.type)).toEqual(['lifecycle.join-supplier.requested', 'lifecycle.join-supplier.completed']);
    expect(events[1].envelope.detail.payload).toMatchObject({
      account_number: number,
      supply_points: [{ external_identifier: MPAN, market_name: 'ELECTRICITY', confirmed_supply_start_date: expect.any(String) }],
    });
  });

  it("takes the flow request with JSON's content type and no body, as a client sends it", async () => {
    await imported('SW-5');
    const r = await fetch(`${stack.baseUrl}/v1/data-import/send-registration-flows/${SUPPLIER}/SW-5/`, {
      method: 'POST',
      headers: { Authorization: `Token ${API_KEY}`, 'Content-Type': 'application/json' },
    });
    expect(r.status).toBe(200);
  });

  it('a refusing point answers REGISTRATION_FLOW_ERROR with its detail and stays PRE_REGISTRATION', async () => {
    await forceCohort('refuse', 'TEN not current supplier');
    await imported('SW-2');
    const r = await send('SW-2');
    expect(r.json.meter_points).toEqual([{ mpxn: MPAN, status: 'REGISTRATION_FLOW_ERROR', error_detail: 'TEN not current supplier' }]);
    expect((await statuses('SW-2')).json).toEqual([{ mpxn: MPAN, status: 'PRE_REGISTRATION' }]);
    expect(await lifecycle()).toEqual([]);
  });

  it('an objected point ends REGISTRATION_OBJECTED with a cancelled event; once the cause is cleared a resend starts it again', async () => {
    await forceCohort('object');
    await imported('SW-3');
    await send('SW-3');
    await finalStatus('SW-3', 'REGISTRATION_OBJECTED');
    await waitFor('the cancelled event', async () => ((await lifecycle()).some((e) => e.type === 'lifecycle.join-supplier.cancelled') ? true : undefined));
    await forceCohort('supply');
    expect((await send('SW-3')).json.meter_points[0].status).toBe('REGISTRATION_FLOW_SUCCESS');
    await finalStatus('SW-3', 'ON_SUPPLY');
    expect((await truth())[0]).toMatchObject({ flow_requests: 2, flows_accepted: 2 });
  });

  it('a rejected point ends REGISTRATION_REJECTED', async () => {
    await forceCohort('reject');
    await imported('SW-4');
    await send('SW-4');
    await finalStatus('SW-4', 'REGISTRATION_REJECTED');
  });
});
