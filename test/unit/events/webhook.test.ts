import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../../clients/webhook-signature';
import { parseConfig } from '../../../config';
import { createWebhookApp, WEBHOOK_PATH } from '../../../events/webhook';
import { deadPool, envelope, fakeSignaller, inboxRow, insertAttempt, insertRun, quietLogger, signedPost, startTestDb, uniq } from './helpers';

const SECRET = 'whsec-test-0123456789';
const MAX = 4096;
const config = parseConfig({ EVENTS_WEBHOOK_AUTH: 'hmac', EVENTS_WEBHOOK_SECRET: SECRET, EVENTS_MAX_BODY_BYTES: String(MAX) });
const API_KEY = 'eb-connection-key-0123456789abcdef';

let db: Awaited<ReturnType<typeof startTestDb>>;
let app: FastifyInstance;
let url: string;
let fake: ReturnType<typeof fakeSignaller>;

beforeAll(async () => {
  db = await startTestDb('webhook');
  fake = fakeSignaller();
  app = createWebhookApp({ pool: db.pool, signal: fake.signal, logger: quietLogger() }, { config });
  url = (await app.listen({ port: 0, host: '127.0.0.1' })) + WEBHOOK_PATH;
}, 120_000);
afterAll(async () => {
  await app?.close();
  await db?.stop();
}, 60_000);

type Answer = { code?: string; detail?: string; status?: string; eventId?: string };
const answer = async (res: Response): Promise<Answer> => (await res.json()) as Answer;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const completeBody = (ext: string, id: string) =>
  JSON.stringify(envelope('data_import.import_process.complete', { resource_type: 'account', external_identifier: ext, identifier: 'A-9F00' }, id));

async function rejectionsFor(body: string) {
  return (await db.pool.query(`select * from migrate.rejected_deliveries where body_sha256 = $1`, [sha(body)])).rows;
}

describe('POST /events/eventbridge with HMAC signatures (EVENTS_WEBHOOK_AUTH=hmac)', () => {
  it('accepts a signed delivery with 202 once it is in the inbox, and routes it', async () => {
    const runId = uniq('run');
    const ext = uniq('ACC');
    await insertRun(db.pool, runId);
    await insertAttempt(db.pool, { runId, ext, workflowId: `wf-${ext}` });
    const id = uniq('evt');
    const res = await signedPost(url, SECRET, completeBody(ext, id));
    expect(res.status).toBe(202);
    expect(await answer(res)).toEqual({ status: 'recorded', eventId: id, matchStatus: 'matched', workflowId: `wf-${ext}` });
    expect(await inboxRow(db.pool, id)).toMatchObject({ received_via: 'webhook', match_status: 'matched' });
    expect(fake.calls.at(-1)).toEqual({ workflowId: `wf-${ext}`, signal: { eventId: id, type: 'data_import.import_process.complete', identifier: 'A-9F00' } });
  });

  it('answers a replayed (identical, still fresh) request as a duplicate, recorded once', async () => {
    const id = uniq('evt');
    const body = completeBody(uniq('ACC'), id);
    const t = Math.floor(Date.now() / 1000);
    expect((await signedPost(url, SECRET, body, t)).status).toBe(202);
    const again = await signedPost(url, SECRET, body, t);
    expect(again.status).toBe(202);
    expect(await answer(again)).toEqual({ status: 'duplicate', eventId: id, deliveries: 2 });
  });

  it('rejects a forged signature with 401, records the rejection (hash and size only), stores no event', async () => {
    const id = uniq('evt');
    const body = completeBody(uniq('ACC'), id);
    const res = await signedPost(url, 'not-the-secret', body);
    expect(res.status).toBe(401);
    const json = await answer(res);
    expect(json.code).toBe('signature_mismatch');
    expect(typeof json.detail).toBe('string');
    expect(await inboxRow(db.pool, id)).toBeUndefined();
    const rej = await rejectionsFor(body);
    expect(rej).toHaveLength(1);
    expect(rej[0]).toMatchObject({ received_via: 'webhook', reason: 'signature_mismatch', body_bytes: Buffer.byteLength(body), remote_address: '127.0.0.1' });
    // The table has no column for the body; make sure nothing in the row quotes it either.
    expect(JSON.stringify(rej[0])).not.toContain(id);
  });

  it('rejects a body changed after signing, a missing header and an expired timestamp with 401', async () => {
    const body = completeBody(uniq('ACC'), uniq('evt'));
    const t = Math.floor(Date.now() / 1000);
    const tampered = body.replace('A-9F00', 'A-EVIL');
    const r1 = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-kraken-signature': signWebhookBody(SECRET, body, t) },
      body: tampered,
    });
    expect(r1.status).toBe(401);
    expect((await answer(r1)).code).toBe('signature_mismatch');

    const r2 = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(r2.status).toBe(401);
    expect((await answer(r2)).code).toBe('signature_missing');

    const expiredBody = completeBody(uniq('ACC'), uniq('evt'));
    const r3 = await signedPost(url, SECRET, expiredBody, t - 301);
    expect(r3.status).toBe(401);
    expect((await answer(r3)).code).toBe('signature_expired');
    expect((await rejectionsFor(expiredBody)).map((r) => r.reason)).toEqual(['signature_expired']);
  });

  it('rejects an oversized body with 413 and records it', async () => {
    const body = JSON.stringify(
      envelope('data_import.import_process.complete', { resource_type: 'x'.repeat(MAX), external_identifier: 'A', identifier: 'B' }, uniq('evt')),
    );
    const before = await db.pool.query(`select count(*)::int as n from migrate.rejected_deliveries where reason = 'body_too_large'`);
    const res = await signedPost(url, SECRET, body);
    expect(res.status).toBe(413);
    expect((await answer(res)).code).toBe('body_too_large');
    const after = await db.pool.query(`select body_bytes from migrate.rejected_deliveries where reason = 'body_too_large' order by id desc`);
    expect(after.rows.length).toBe(before.rows[0].n + 1);
    expect(after.rows[0].body_bytes).toBe(Buffer.byteLength(body));
  });

  it('rejects malformed JSON (correctly signed) with 400 and records it', async () => {
    const body = '{"id": "x", "detail-type": ';
    const res = await signedPost(url, SECRET, body);
    expect(res.status).toBe(400);
    expect(await answer(res)).toMatchObject({ code: 'malformed_json' });
    expect((await rejectionsFor(body)).map((r) => r.reason)).toEqual(['malformed_json']);
  });

  it('keeps an unknown event type (202, unknown_type)', async () => {
    const id = uniq('evt');
    const res = await signedPost(url, SECRET, JSON.stringify(envelope('billing.thing.happened', { a: 1 }, id)));
    expect(res.status).toBe(202);
    expect(await answer(res)).toEqual({ status: 'recorded', eventId: id, matchStatus: 'unknown_type' });
  });

  it('answers 503 when the database is down, so the sender retries', async () => {
    const pool = await deadPool();
    const down = createWebhookApp({ pool, signal: fake.signal, logger: quietLogger() }, { config });
    const base = await down.listen({ port: 0, host: '127.0.0.1' });
    try {
      const res = await signedPost(base + WEBHOOK_PATH, SECRET, completeBody(uniq('ACC'), uniq('evt')));
      expect(res.status).toBe(503);
      expect((await answer(res)).code).toBe('inbox_unavailable');
      expect((await fetch(base + '/healthz')).status).toBe(503);
      expect((await fetch(url.replace(WEBHOOK_PATH, '/healthz'))).status).toBe(200);
    } finally {
      await down.close();
      await pool.end();
    }
  });
});

/** What an EventBridge API destination sends: the envelope as the body, the connection's API-key header. */
function eventBridgeDelivery(target: string, body: string, headers: Record<string, string>) {
  return fetch(target, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Amazon/EventBridge/ApiDestinations', ...headers },
    body,
  });
}

describe('POST /events/eventbridge with the API-key header (the default: an EventBridge connection)', () => {
  let keyApp: FastifyInstance;
  let keyUrl: string;
  beforeAll(async () => {
    const cfg = parseConfig({ EVENTS_WEBHOOK_API_KEY: API_KEY });
    expect(cfg.EVENTS_WEBHOOK_AUTH).toBe('api-key');
    keyApp = createWebhookApp({ pool: db.pool, signal: fake.signal, logger: quietLogger() }, { config: cfg });
    keyUrl = (await keyApp.listen({ port: 0, host: '127.0.0.1' })) + WEBHOOK_PATH;
  });
  afterAll(async () => {
    await keyApp?.close();
  });

  it('accepts an EventBridge-shaped delivery carrying the key, records it and routes it', async () => {
    const runId = uniq('run');
    const ext = uniq('ACC');
    await insertRun(db.pool, runId);
    await insertAttempt(db.pool, { runId, ext, workflowId: `wf-${ext}` });
    const id = uniq('evt');
    const res = await eventBridgeDelivery(keyUrl, completeBody(ext, id), { 'x-api-key': API_KEY });
    expect(res.status).toBe(202);
    expect(await answer(res)).toEqual({ status: 'recorded', eventId: id, matchStatus: 'matched', workflowId: `wf-${ext}` });
    expect(await inboxRow(db.pool, id)).toMatchObject({ received_via: 'webhook', match_status: 'matched' });
    expect(fake.calls.at(-1)).toEqual({ workflowId: `wf-${ext}`, signal: { eventId: id, type: 'data_import.import_process.complete', identifier: 'A-9F00' } });
  });

  it('rejects a forged key with 401 api_key_mismatch, records the rejection, stores no event', async () => {
    const id = uniq('evt');
    const body = completeBody(uniq('ACC'), id);
    for (const forged of ['not-the-key', API_KEY.slice(0, -1), `${API_KEY}x`, API_KEY.toUpperCase()]) {
      const res = await eventBridgeDelivery(keyUrl, body, { 'x-api-key': forged });
      expect(res.status).toBe(401);
      expect(await answer(res)).toMatchObject({ code: 'api_key_mismatch' });
    }
    expect(await inboxRow(db.pool, id)).toBeUndefined();
    const rej = await rejectionsFor(body);
    expect(rej.map((r) => r.reason)).toEqual(['api_key_mismatch', 'api_key_mismatch', 'api_key_mismatch', 'api_key_mismatch']);
    expect(JSON.stringify(rej)).not.toContain(API_KEY.slice(0, 12));
  });

  it('rejects a delivery without the header, or with the key in another header or a valid HMAC signature only', async () => {
    const id = uniq('evt');
    const body = completeBody(uniq('ACC'), id);
    const variants: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${API_KEY}` },
      { 'x-kraken-signature': signWebhookBody(API_KEY, body, Math.floor(Date.now() / 1000)) },
    ];
    for (const headers of variants) {
      const res = await eventBridgeDelivery(keyUrl, body, headers);
      expect(res.status).toBe(401);
      expect((await answer(res)).code).toBe('api_key_missing');
    }
    expect(await inboxRow(db.pool, id)).toBeUndefined();
  });

  it('reads the header the connection is configured with (EVENTS_WEBHOOK_API_KEY_HEADER, any case)', async () => {
    const custom = createWebhookApp(
      { pool: db.pool, signal: fake.signal, logger: quietLogger() },
      { config: parseConfig({ EVENTS_WEBHOOK_API_KEY: API_KEY, EVENTS_WEBHOOK_API_KEY_HEADER: 'X-Kraken-Events-Key' }) },
    );
    try {
      const id = uniq('evt');
      const ok = await custom.inject({
        method: 'POST',
        url: WEBHOOK_PATH,
        headers: { 'content-type': 'application/json', 'X-Kraken-Events-Key': API_KEY },
        payload: completeBody(uniq('ACC'), id),
      });
      expect(ok.statusCode).toBe(202);
      const wrongHeader = await custom.inject({
        method: 'POST',
        url: WEBHOOK_PATH,
        headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
        payload: completeBody(uniq('ACC'), uniq('evt')),
      });
      expect(wrongHeader.statusCode).toBe(401);
    } finally {
      await custom.close();
    }
  });

  it('refuses a key shorter than 16 characters at configuration time, naming the variable', () => {
    expect(() => parseConfig({ EVENTS_WEBHOOK_API_KEY: 'short' })).toThrow(/EVENTS_WEBHOOK_API_KEY=\(hidden\): at least 16 characters/);
  });
});

describe('start-up without a key or secret', () => {
  const deps = () => ({ pool: db.pool, signal: fake.signal, logger: quietLogger() });

  it('refuses to start in development unless allowUnsigned is given, naming what is missing', () => {
    expect(() => createWebhookApp(deps(), { config: parseConfig({}) })).toThrow(
      expect.objectContaining({ code: 'webhook_auth_missing', message: expect.stringContaining('EVENTS_WEBHOOK_API_KEY') }),
    );
    expect(() => createWebhookApp(deps(), { config: parseConfig({ EVENTS_WEBHOOK_AUTH: 'hmac' }) })).toThrow(
      expect.objectContaining({ code: 'webhook_auth_missing', message: expect.stringContaining('EVENTS_WEBHOOK_SECRET') }),
    );
  });

  it('refuses in production even with allowUnsigned, and an HMAC secret does not stand in for the API key', () => {
    const prod = { ...parseConfig({ EVENTS_WEBHOOK_SECRET: SECRET }), KRAKEN_MIGRATE_MODE: 'production' as const };
    expect(() => createWebhookApp(deps(), { config: prod, allowUnsigned: true })).toThrow(expect.objectContaining({ code: 'webhook_auth_missing' }));
  });

  it('accepts unsigned deliveries in development with allowUnsigned', async () => {
    const open = createWebhookApp(deps(), { config: parseConfig({}), allowUnsigned: true });
    try {
      const id = uniq('evt');
      const res = await open.inject({
        method: 'POST',
        url: WEBHOOK_PATH,
        headers: { 'content-type': 'application/json' },
        payload: completeBody(uniq('ACC'), id),
      });
      expect(res.statusCode).toBe(202);
      expect(res.json()).toMatchObject({ status: 'recorded', eventId: id });
    } finally {
      await open.close();
    }
  });
});
