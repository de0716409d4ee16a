import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  api,
  minimalAccount,
  schedule,
  startReceiver,
  startStack,
  SUPPLIER,
  waitFor,
  waitForStatus,
  WEBHOOK_SECRET,
  window,
  type Stack,
} from './harness';

let stack: Stack;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  stack = await startStack('forced-hold');
  receiver = await startReceiver();
  await admin(stack, 'PUT', '/admin/event-targets', { webhookUrl: receiver.url, webhookSecret: WEBHOOK_SECRET, sqsQueueUrl: null });
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
}, 60_000);

interface AdminEvent {
  type: string;
  external_identifier: string;
  status: string;
  dropped: boolean;
  delivered_to: string[];
}
const events = async (ext: string) =>
  (await admin<{ events: AdminEvent[] }>(stack, 'GET', '/admin/events')).events.filter((e) => e.external_identifier === ext);
const deliveryTypes = (ext: string) => receiver.received.filter((r) => r.json.detail.payload.external_identifier === ext).map((r) => r.json['detail-type']);
const status = async (ext: string) => (await api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/${ext}/`)).json.status;
const truthOf = async (ext: string) => (await admin<any>(stack, 'GET', '/admin/ground-truth')).accounts.find((a: any) => a.external_identifier === ext);

describe('forced hold: a window the tenant does not meet', () => {
  it('accepts the schedule, keeps the import PENDING until its window ends, then CANCELLED; drop_events hides the event; a later schedule is processed', async () => {
    const held = await admin<Record<string, unknown>>(stack, 'PUT', '/admin/forced-outcomes', {
      'HLD-1': { hold: true },
      'HLD-2': { hold: true, drop_events: true },
    });
    expect(held).toMatchObject({ 'HLD-1': { hold: true, drop_events: false }, 'HLD-2': { hold: true, drop_events: true } });

    // A 4 s window; processing takes 100 ms, so an account without a hold is done long before.
    for (const ext of ['HLD-0', 'HLD-1', 'HLD-2'])
      expect((await schedule(stack, minimalAccount(ext), { is_dry_run: false, ...window(0, 4_000) })).status).toBe(201);
    await waitForStatus(stack, 'HLD-0', ['PROCESSED']);
    await new Promise((r) => setTimeout(r, 500));
    expect([await status('HLD-1'), await status('HLD-2')]).toEqual(['PENDING', 'PENDING']);

    // The scenario survives a restart: the hold is still listed, and a held import stays held.
    await stack.restart();
    // (Event targets set through the admin API are runtime state: set again.)
    await admin(stack, 'PUT', '/admin/event-targets', { webhookUrl: receiver.url, webhookSecret: WEBHOOK_SECRET, sqsQueueUrl: null });
    expect(await admin<Record<string, unknown>>(stack, 'GET', '/admin/forced-outcomes')).toMatchObject({ 'HLD-2': { hold: true, drop_events: true } });
    expect(await status('HLD-1')).toBe('PENDING');

    // Once the window has ended: CANCELLED, nothing created.
    await waitForStatus(stack, 'HLD-1', ['CANCELLED', 'PROCESSED']);
    await waitForStatus(stack, 'HLD-2', ['CANCELLED', 'PROCESSED']);
    expect([await status('HLD-1'), await status('HLD-2')]).toEqual(['CANCELLED', 'CANCELLED']);
    expect(await truthOf('HLD-1')).toMatchObject({ status: 'CANCELLED', created_count: 0, account_number: null });
    expect(await truthOf('HLD-2')).toMatchObject({ status: 'CANCELLED', created_count: 0, account_number: null });

    // HLD-1's cancelled event is delivered; HLD-2's is recorded as dropped and never delivered.
    await waitFor('the cancelled delivery of HLD-1', async () => (deliveryTypes('HLD-1').length ? true : undefined));
    expect(deliveryTypes('HLD-1')).toEqual(['data_import.import_process.cancelled']);
    expect(await events('HLD-2')).toEqual([
      expect.objectContaining({ type: 'data_import.import_process.cancelled', dropped: true, status: 'dropped', delivered_to: [] }),
    ]);
    expect(deliveryTypes('HLD-2')).toEqual([]);

    // The operator lifts the holds; a new schedule (a rerun) starts a new import that is processed once.
    await admin(stack, 'PUT', '/admin/forced-outcomes', { 'HLD-1': null, 'HLD-2': null });
    expect((await schedule(stack, minimalAccount('HLD-2'))).status).toBe(201);
    await waitForStatus(stack, 'HLD-2', ['PROCESSED']);
    expect(await truthOf('HLD-2')).toMatchObject({ status: 'PROCESSED', created_count: 1, import_process_count: 2, schedule_accepted_count: 2 });
    await waitFor('the complete delivery of HLD-2', async () => (deliveryTypes('HLD-2').length ? true : undefined));
    expect(deliveryTypes('HLD-2')).toEqual(['data_import.import_process.complete']);
  });

  it('an import held with a long window stays PENDING; lifting the hold does not release it, and a repeat is the idempotent 201', async () => {
    await admin(stack, 'PUT', '/admin/forced-outcomes', { 'HLD-9': { hold: true } });
    expect((await schedule(stack, minimalAccount('HLD-9'))).status).toBe(201);
    await admin(stack, 'PUT', '/admin/forced-outcomes', { 'HLD-9': null });
    expect((await schedule(stack, minimalAccount('HLD-9'))).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await truthOf('HLD-9')).toMatchObject({ status: 'PENDING', created_count: 0, import_process_count: 1, schedule_accepted_count: 2 });
  });

  it('refuses a hold that is not `true` or carries unknown fields, naming the field', async () => {
    for (const bad of [{ hold: false }, { hold: true, drop_events: 'yes' }, { hold: true, extra: 1 }]) {
      const r = await fetch(`${stack.baseUrl}/admin/forced-outcomes`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ 'HLD-X': bad }),
      });
      expect(r.status).toBe(400);
    }
  });
});
