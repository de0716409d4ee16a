import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../../clients/webhook-signature';
import { parseConfig } from '../../../config';
import { createWebhookApp, WEBHOOK_PATH } from '../../../events/webhook';
import { RejectionCounter } from '../../../events/rejection-counter';
import { SourceLimiter } from '../../../events/source-limiter';
import { startEventsReceiver } from '../../../events/server';
import { inboxSummary } from '../../../ledger';
import { deadPool, envelope, fakeSignaller, inboxRow, insertAttempt, insertRun, quietLogger, signedPost, startTestDb, uniq } from './helpers';

const SECRET = 'whsec-test-0123456789';
const MAX = 4096;
const config = parseConfig({ EVENTS_WEBHOOK_AUTH: 'hmac', EVENTS_WEBHOOK_SECRET: SECRET, EVENTS_MAX_BODY_BYTES: String(MAX) });
const API_KEY = 'eb-connection-key-0123456789abcdef';

let db: Awaited<ReturnType<typeof startTestDb>>;
let app: FastifyInstance;
let url: string;
let fake: ReturnType<typeof fakeSignaller>;
let counter: RejectionCounter;

beforeAll(async () => {
  db = await startTestDb('webhook');
  fake = fakeSignaller();
  counter = new RejectionCounter(db.pool, quietLogger());
  app = createWebhookApp({ pool: db.pool, ...fake.deliver, logger: quietLogger() }, { config, rejections: counter });
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

  it('rejects a forged signature with 401, counts the rejection by reason (no row of its own), stores no event', async () => {
    const id = uniq('evt');
    const body = completeBody(uniq('ACC'), id);
    const before = counter.totals().signature_mismatch ?? 0;
    const res = await signedPost(url, 'not-the-secret', body);
    expect(res.status).toBe(401);
    const json = await answer(res);
    expect(json.code).toBe('signature_mismatch');
    expect(typeof json.detail).toBe('string');
    expect(await inboxRow(db.pool, id)).toBeUndefined();
    expect(counter.totals().signature_mismatch).toBe(before + 1);
    expect(await rejectionsFor(body)).toHaveLength(0);
    // Flushed: one count row per minute and reason, added to; the inbox summary reads it.
    await counter.flush();
    const counted = async () =>
      Number(
        (
          await db.pool.query(
            `select coalesce(sum(count), 0) as n from migrate.rejection_counts where received_via = 'webhook' and reason = 'signature_mismatch'`,
          )
        ).rows[0].n,
      );
    const n = await counted();
    expect(n).toBeGreaterThanOrEqual(1);
    await signedPost(url, 'not-the-secret', body);
    await signedPost(url, 'not-the-secret', body);
    await counter.flush();
    expect(await counted()).toBe(n + 2);
    expect((await inboxSummary(db.pool)).rejectedByReason.signature_mismatch).toBeGreaterThanOrEqual(n + 2);
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
    expect(counter.totals().signature_expired).toBeGreaterThanOrEqual(1);
    expect(await rejectionsFor(expiredBody)).toEqual([]);
  });

  it('rejects an oversized body with 413 and counts it', async () => {
    const body = JSON.stringify(
      envelope('data_import.import_process.complete', { resource_type: 'x'.repeat(MAX), external_identifier: 'A', identifier: 'B' }, uniq('evt')),
    );
    const before = counter.totals().body_too_large ?? 0;
    const res = await signedPost(url, SECRET, body);
    expect(res.status).toBe(413);
    expect((await answer(res)).code).toBe('body_too_large');
    expect(counter.totals().body_too_large).toBe(before + 1);
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
    const down = createWebhookApp({ pool, ...fake.deliver, logger: quietLogger() }, { config });
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
  let keyCounter: RejectionCounter;
  beforeAll(async () => {
    const cfg = parseConfig({ EVENTS_WEBHOOK_API_KEY: API_KEY });
    expect(cfg.EVENTS_WEBHOOK_AUTH).toBe('api-key');
    keyCounter = new RejectionCounter(db.pool, quietLogger());
    keyApp = createWebhookApp({ pool: db.pool, ...fake.deliver, logger: quietLogger() }, { config: cfg, rejections: keyCounter });
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

  it('rejects a forged key with 401 api_key_mismatch, counts the rejection, stores no event', async () => {
    const id = uniq('evt');
    const body = completeBody(uniq('ACC'), id);
    const before = keyCounter.totals().api_key_mismatch ?? 0;
    for (const forged of ['not-the-key', API_KEY.slice(0, -1), `${API_KEY}x`, API_KEY.toUpperCase()]) {
      const res = await eventBridgeDelivery(keyUrl, body, { 'x-api-key': forged });
      expect(res.status).toBe(401);
      expect(await answer(res)).toMatchObject({ code: 'api_key_mismatch' });
    }
    expect(await inboxRow(db.pool, id)).toBeUndefined();
    expect(keyCounter.totals().api_key_mismatch).toBe(before + 4);
    expect(await rejectionsFor(body)).toEqual([]);
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
      { pool: db.pool, ...fake.deliver, logger: quietLogger() },
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
  const deps = () => ({ pool: db.pool, ...fake.deliver, logger: quietLogger() });

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

describe('refusals per source: rate-limited, counted, and the listener on loopback by default', () => {
  const deps = () => ({ pool: db.pool, ...fake.deliver, logger: quietLogger() });

  it('a source that spends its refusals is answered 429 rate_limited before its request is read; another source, and accepted deliveries, are not slowed', async () => {
    let now = 1_000_000;
    const rejections = new RejectionCounter(db.pool, quietLogger());
    const cfg = parseConfig({ EVENTS_WEBHOOK_API_KEY: API_KEY, EVENTS_TRUST_PROXY: 'true' });
    const limited = createWebhookApp(deps(), { config: cfg, rejections, limiter: new SourceLimiter({ burst: 3, perMinute: 6, now: () => now }) });
    const post = (from: string, key: string, payload = completeBody(uniq('ACC'), uniq('evt'))) =>
      limited.inject({
        method: 'POST',
        url: WEBHOOK_PATH,
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-forwarded-for': from },
        payload,
      });
    try {
      // The platform's sender: every delivery accepted, none spends anything.
      for (let i = 0; i < 10; i++) expect((await post('203.0.113.1', API_KEY)).statusCode).toBe(202);
      // A guesser: three refusals, then 429 without the key being checked (the right key is not even looked at).
      for (let i = 0; i < 3; i++) expect((await post('198.51.100.7', 'guess-0123456789abcdef')).statusCode).toBe(401);
      const held = await post('198.51.100.7', API_KEY);
      expect(held.statusCode).toBe(429);
      expect(held.json()).toMatchObject({ code: 'rate_limited' });
      expect(held.headers['retry-after']).toBe('10');
      expect(rejections.totals()).toEqual({ api_key_mismatch: 3, rate_limited: 1 });
      // Others are still heard; the guesser again after its bucket refills (one refusal every 10 s at 6 a minute).
      expect((await post('203.0.113.1', API_KEY)).statusCode).toBe(202);
      now += 10_000;
      expect((await post('198.51.100.7', API_KEY)).statusCode).toBe(202);
      // Flushed in one go: a row per reason, not per request.
      await rejections.flush();
      const rows = await db.pool.query(`select reason, count::int from migrate.rejection_counts where minute = $1 order by reason`, [
        new Date(Math.floor(Date.now() / 60_000) * 60_000),
      ]);
      expect(rows.rows.filter((r) => r.reason === 'rate_limited').length).toBe(1);
    } finally {
      await limited.close();
    }
  });

  it('listens on 127.0.0.1 unless EVENTS_HOST says otherwise', async () => {
    const cfg = parseConfig({ EVENTS_WEBHOOK_API_KEY: API_KEY, EVENTS_PORT: '0' });
    expect(cfg.EVENTS_HOST).toBe('127.0.0.1');
    const receiver = await startEventsReceiver({
      config: cfg,
      pool: db.pool,
      logger: quietLogger(),
      temporalClient: () => Promise.reject(new Error('unused')),
    });
    try {
      expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await receiver.close();
    }
  });
});
