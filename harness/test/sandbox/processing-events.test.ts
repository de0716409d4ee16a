import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import {
  admin,
  DOC_ROOT,
  minimalAccount,
  putDocument,
  schedule,
  startReceiver,
  startStack,
  waitFor,
  waitForStatus,
  WEBHOOK_SECRET,
  window,
  type Stack,
} from './harness';
import { signWebhookBody, verifyWebhookSignature } from '../../../clients/webhook-signature';

let stack: Stack;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  stack = await startStack('processing');
  receiver = await startReceiver();
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
}, 60_000);
beforeEach(async () => {
  await admin(stack, 'POST', '/admin/reset');
  await admin(stack, 'PUT', '/admin/event-targets', { webhookUrl: receiver.url, webhookSecret: WEBHOOK_SECRET, sqsQueueUrl: null });
  receiver.received.length = 0;
});

interface AdminEvent {
  id: string;
  type: string;
  external_identifier: string;
  status: string;
  dropped: boolean;
  duplicated: boolean;
  delivered_to: string[];
  envelope: any;
}
const events = async () => (await admin<{ events: AdminEvent[] }>(stack, 'GET', '/admin/events')).events;
const deliveriesFor = (ext: string) => receiver.received.filter((r) => r.json.detail.payload.external_identifier === ext);

describe('asynchronous processing and events', () => {
  it('processes an import into an account and delivers a signed complete event (webhook and SQS)', async () => {
    await admin(stack, 'PUT', '/admin/event-targets', { sqsQueueUrl: stack.queueUrl });
    const notes = [{ body: 'hello', document_paths: [{ document_path: '/notes/PRC-1/a.pdf' }] }];
    const statements = [
      { bill_period_from_date: '2024-01-01', bill_period_to_date: '2024-02-01', statement_path: 'statements/PRC-1/jan.pdf', statement_id: '1' },
    ];
    await putDocument(stack, `${DOC_ROOT}/notes/PRC-1/a.pdf`);
    await putDocument(stack, `${DOC_ROOT}/statements/PRC-1/jan.pdf`);
    expect((await schedule(stack, minimalAccount('PRC-1', { notes, statements }))).status).toBe(201);

    const done = await waitForStatus(stack, 'PRC-1', ['PROCESSED', 'ERRORED']);
    expect(done.status).toBe('PROCESSED');
    expect(done.kraken_identifier).toMatch(/^A-[0-9A-F]{8}$/);
    expect(done.latest_event.event).toBe('EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED');

    const [hook] = await waitFor('webhook delivery', async () => (deliveriesFor('PRC-1').length ? deliveriesFor('PRC-1') : undefined));
    const header = hook.headers['x-kraken-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(WEBHOOK_SECRET, hook.rawBody, header, Math.floor(Date.now() / 1000))).toEqual({ ok: true });
    expect(verifyWebhookSignature('another-secret', hook.rawBody, header, Math.floor(Date.now() / 1000))).toEqual({ ok: false, code: 'signature_mismatch' });
    expect(hook.json).toMatchObject({
      version: '0',
      'detail-type': 'data_import.import_process.complete',
      source: 'kraken.data-import',
      region: 'eu-west-2',
      resources: [],
      detail: {
        event_type: 'data_import.import_process.complete',
        version: 'v1',
        payload: { resource_type: 'ACCOUNT', external_identifier: 'PRC-1', identifier: done.kraken_identifier },
      },
    });
    expect(hook.json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(hook.json.account).toMatch(/^\d{12}$/);
    expect(hook.json.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    const messages = await waitFor('SQS message', async () => {
      const r = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      return r.Messages?.length ? r.Messages : undefined;
    });
    expect(JSON.parse(messages[0].Body!)).toEqual(hook.json);
    for (const m of messages) await stack.sqs.send(new DeleteMessageCommand({ QueueUrl: stack.queueUrl, ReceiptHandle: m.ReceiptHandle! }));
    const ev = await waitFor('delivered record', async () => (await events()).find((e) => e.status === 'delivered'));
    expect(ev).toMatchObject({ id: hook.json.id, status: 'delivered', delivered_to: ['webhook', 'sqs'], dropped: false, duplicated: false });
  });

  it('errors with path_does_not_exist_in_file_store when a document is missing', async () => {
    const notes = [{ body: 'x', document_paths: [{ document_path: '/notes/PRC-2/missing.pdf' }] }];
    expect((await schedule(stack, minimalAccount('PRC-2', { notes }))).status).toBe(201);
    const done = await waitForStatus(stack, 'PRC-2', ['ERRORED', 'PROCESSED']);
    expect(done.status).toBe('ERRORED');
    expect(done.latest_error.code).toBe('path_does_not_exist_in_file_store');
    const hook = await waitFor('error event', async () => deliveriesFor('PRC-2')[0]);
    expect(hook.json['detail-type']).toBe('data_import.import_process.error');
    expect(hook.json.detail.payload).toEqual({
      resource_type: 'ACCOUNT',
      external_identifier: 'PRC-2',
      error_code: 'path_does_not_exist_in_file_store',
      error_detail: expect.any(String),
    });
  });

  it('errors with tariff_code_not_found for a tariff outside the catalogue', async () => {
    const account = minimalAccount('PRC-3');
    (account.supply_addresses as any)[0].meter_points[0].agreements[0].tariff_code = 'E-1R-NOT-A-PRODUCT-C';
    expect((await schedule(stack, account)).status).toBe(201);
    const done = await waitForStatus(stack, 'PRC-3', ['ERRORED', 'PROCESSED']);
    expect(done.latest_error).toMatchObject({ code: 'tariff_code_not_found', domain: 'import_process' });
  });

  it('runs a dry run without creating anything', async () => {
    expect((await schedule(stack, minimalAccount('PRC-4'), { is_dry_run: true, ...window() })).status).toBe(201);
    const done = await waitForStatus(stack, 'PRC-4', ['DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED']);
    expect(done.status).toBe('DRY_RUN_SUCCEEDED');
    expect(done.kraken_identifier).toBeNull();
    const hook = await waitFor('dry run event', async () => deliveriesFor('PRC-4')[0]);
    expect(hook.json.detail.payload).toEqual({ resource_type: 'ACCOUNT', external_identifier: 'PRC-4' });
    expect(hook.json['detail-type']).toBe('data_import.import_process.dry_run_complete');
    const truth = await admin<any>(stack, 'GET', '/admin/ground-truth');
    expect(truth.accounts).toEqual([expect.objectContaining({ external_identifier: 'PRC-4', created_count: 0, account_number: null, dry_run: true })]);
  });

  it('cancels an import whose window ends before it is processed', async () => {
    await admin(stack, 'PUT', '/admin/faults', { processingDelayMs: 5_000 });
    expect((await schedule(stack, minimalAccount('PRC-5'), { is_dry_run: false, ...window(0, 1000) })).status).toBe(201);
    const done = await waitForStatus(stack, 'PRC-5', ['CANCELLED', 'PROCESSED']);
    expect(done.status).toBe('CANCELLED');
    const hook = await waitFor('cancelled event', async () => deliveriesFor('PRC-5')[0]);
    expect(hook.json['detail-type']).toBe('data_import.import_process.cancelled');
    expect(hook.json.detail.payload).toEqual({ resource_type: 'ACCOUNT', external_identifier: 'PRC-5', expiry_window_end: expect.stringMatching(/Z$/) });
  });

  it('spreads processing over the delay plus a uniform share of the jitter (a tenant is no metronome)', async () => {
    await admin(stack, 'PUT', '/admin/faults', { processingDelayMs: 60_000, processingDelayJitterMs: 60_000 });
    const ids = Array.from({ length: 8 }, (_, i) => `JIT-${i}`);
    for (const id of ids) expect((await schedule(stack, minimalAccount(id))).status).toBe(201);
    await admin(stack, 'PUT', '/admin/faults', { processingDelayMs: 100, processingDelayJitterMs: 0 });
    const r = await stack.pool.query<{ s: number }>(
      `select extract(epoch from (due_at - created_at))::float8 as s from sandbox.import_processes where external_identifier = any($1)`,
      [ids],
    );
    const delays = r.rows.map((x) => x.s);
    expect(delays).toHaveLength(8);
    // Out of the way of the event tests below: they count and order what is delivered.
    await stack.pool.query('delete from sandbox.import_processes where external_identifier = any($1)', [ids]);
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(59.9);
      expect(d).toBeLessThan(120.1);
    }
    // Eight draws from a minute's spread: not all the same moment.
    expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(5);
  });

  it('retries a failing webhook with backoff until it is accepted', async () => {
    receiver.failNext(2);
    expect((await schedule(stack, minimalAccount('PRC-6'))).status).toBe(201);
    await waitFor('delivery after retries', async () => deliveriesFor('PRC-6')[0]);
    const ev = await waitFor('delivered record', async () => (await events()).find((e) => e.external_identifier === 'PRC-6' && e.status === 'delivered'));
    expect((ev as any).attempts).toBe(3);
  });
});

describe('event faults', () => {
  it('drop rate 1.0: no delivery, the event is recorded as dropped', async () => {
    await admin(stack, 'PUT', '/admin/faults', { eventDropRate: 1 });
    expect((await schedule(stack, minimalAccount('EVF-1'))).status).toBe(201);
    await waitForStatus(stack, 'EVF-1', ['PROCESSED']);
    const ev = await waitFor('event record', async () => (await events()).find((e) => e.external_identifier === 'EVF-1'));
    expect(ev).toMatchObject({ type: 'data_import.import_process.complete', dropped: true, status: 'dropped', delivered_to: [] });
    // A later event, not dropped, is delivered: events go out in order, so the dropped one never will.
    await admin(stack, 'PUT', '/admin/faults', { eventDropRate: 0 });
    expect((await schedule(stack, minimalAccount('EVF-1b'))).status).toBe(201);
    await waitFor('the later delivery', async () => deliveriesFor('EVF-1b')[0]);
    expect(deliveriesFor('EVF-1')).toHaveLength(0);
  });

  it('duplicate rate 1.0: the same event id is delivered twice', async () => {
    await admin(stack, 'PUT', '/admin/faults', { eventDuplicateRate: 1 });
    expect((await schedule(stack, minimalAccount('EVF-2'))).status).toBe(201);
    const both = await waitFor('two deliveries', async () => (deliveriesFor('EVF-2').length >= 2 ? deliveriesFor('EVF-2') : undefined));
    expect(both).toHaveLength(2);
    expect(both[0].json.id).toBe(both[1].json.id);
    // The record is updated after both sends.
    const ev = await waitFor('delivered record', async () => (await events()).find((e) => e.external_identifier === 'EVF-2' && e.status === 'delivered'));
    expect(ev).toMatchObject({ duplicated: true, delivered_to: ['webhook', 'webhook'] });
  });

  it('reorder: a held window of events is delivered in an order other than emission order', async () => {
    await admin(stack, 'PUT', '/admin/faults', { eventReorder: true, eventReorderWindow: 8, eventReorderHoldMs: 3000 });
    const exts = Array.from({ length: 8 }, (_, i) => `EVF-3-${i}`);
    for (const ext of exts) expect((await schedule(stack, minimalAccount(ext))).status).toBe(201);
    await waitFor('8 deliveries', async () => (receiver.received.length >= 8 ? true : undefined));
    const emitted = (await events()).map((e) => e.id);
    const delivered = receiver.received.map((r) => r.json.id);
    expect(new Set(delivered)).toEqual(new Set(emitted));
    expect(delivered).not.toEqual(emitted);
  });

  it('delay: an event is held (pending, undelivered) while later events without delay go out', async () => {
    await admin(stack, 'PUT', '/admin/faults', { eventDelayMs: 600_000 });
    expect((await schedule(stack, minimalAccount('EVF-4'))).status).toBe(201);
    await waitForStatus(stack, 'EVF-4', ['PROCESSED']);
    await admin(stack, 'PUT', '/admin/faults', { eventDelayMs: 0 });
    expect((await schedule(stack, minimalAccount('EVF-4b'))).status).toBe(201);
    await waitFor('the undelayed delivery', async () => deliveriesFor('EVF-4b')[0]);
    expect(deliveriesFor('EVF-4')).toHaveLength(0);
    expect((await events()).find((e) => e.external_identifier === 'EVF-4')).toMatchObject({ status: 'pending', delivered_to: [] });
  });
});

describe('webhook signature', () => {
  it('rejects forged, stale, malformed and missing signatures', () => {
    const body = JSON.stringify({ hello: 'world' });
    const now = 1_700_000_000;
    const good = signWebhookBody(WEBHOOK_SECRET, body, now);
    expect(verifyWebhookSignature(WEBHOOK_SECRET, body, good, now + 10)).toEqual({ ok: true });
    expect(verifyWebhookSignature(WEBHOOK_SECRET, body + ' ', good, now)).toEqual({ ok: false, code: 'signature_mismatch' });
    expect(verifyWebhookSignature(WEBHOOK_SECRET, body, signWebhookBody('forger', body, now), now)).toEqual({ ok: false, code: 'signature_mismatch' });
    expect(verifyWebhookSignature(WEBHOOK_SECRET, body, good.replace(`t=${now}`, `t=${now + 1}`), now)).toEqual({ ok: false, code: 'signature_mismatch' });
    expect(verifyWebhookSignature(WEBHOOK_SECRET, body, good, now + 301)).toEqual({ ok: false, code: 'signature_expired' });
    expect(verifyWebhookSignature(WEBHOOK_SECRET, body, 'v1=abc', now)).toEqual({ ok: false, code: 'signature_malformed' });
    expect(verifyWebhookSignature(WEBHOOK_SECRET, body, `t=${now}`, now)).toEqual({ ok: false, code: 'signature_malformed' });
    expect(verifyWebhookSignature(WEBHOOK_SECRET, body, undefined, now)).toEqual({ ok: false, code: 'signature_missing' });
  });
});
