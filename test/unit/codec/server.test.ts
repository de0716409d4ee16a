import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmCodec } from '../../../codec/aes-gcm-codec';
import { keyringFrom } from '../../../codec/keys';
import { createCodecServer, fromJsonPayload, hostNameOf, toJsonPayload, type CodecServer } from '../../../codec/server';
import { createLogger } from '../../../logging/logger';

const UI = 'http://127.0.0.1:8233';
const MARKER = 'Jabłoński-SECRET-07123456789';
const logger = createLogger('codec-server-test', { level: 'silent' });
const codec = new AesGcmCodec(keyringFrom([{ id: 'k1', key: randomBytes(32) }]));

let server: CodecServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(authToken?: string, bodyLimit?: number): Promise<string> {
  server = createCodecServer({ codec, authToken, uiOrigin: UI, logger, bodyLimit });
  return (await server.listen(0)).url;
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('codec server', () => {
  it('listens on loopback; /decode returns the original payload', async () => {
    const url = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload({ name: MARKER })]);
    const res = await post(`${url}/decode`, { payloads: [toJsonPayload(encrypted)] });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    const body = (await res.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    expect(Buffer.from(body.payloads[0].metadata.encoding, 'base64').toString()).toBe('json/plain');
    expect(defaultPayloadConverter.fromPayload(fromJsonPayload(body.payloads[0]))).toEqual({ name: MARKER });
  });

  it('/encode then /decode round-trips; /encode output is encrypted', async () => {
    const url = await start();
    const original = toJsonPayload(defaultPayloadConverter.toPayload([1, MARKER]));
    const enc = (await (await post(`${url}/encode`, { payloads: [original] })).json()) as { payloads: (typeof original)[] };
    expect(Buffer.from(enc.payloads[0].metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(enc.payloads[0].data, 'base64').includes(Buffer.from(MARKER))).toBe(false);
    const dec = (await (await post(`${url}/default/decode`, enc)).json()) as { payloads: (typeof original)[] };
    expect(dec.payloads).toEqual([original]);
  });

  it('answers CORS preflight for the UI origin without credentials', async () => {
    const url = await start('s3cret-token');
    const res = await fetch(`${url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: UI, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-namespace' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type, Authorization, X-Namespace');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('requires the bearer token when one is configured', async () => {
    const url = await start('s3cret-token');
    const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload(1)]);
    const body = { payloads: [toJsonPayload(encrypted)] };
    const refused: Array<Record<string, string>> = [{}, { Authorization: 'Bearer wrong' }, { Authorization: 's3cret-token' }];
    for (const headers of refused) {
      const res = await post(`${url}/decode`, body, headers);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('codec_unauthorized');
      expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    }
    expect((await post(`${url}/decode`, body, { Authorization: 'Bearer s3cret-token' })).status).toBe(200);
  });

  it('400 with a code on malformed JSON or a wrong shape; 413 over the body limit', async () => {
    const url = await start(undefined, 2048);
    const cases: Array<[unknown, string]> = [
      ['{"payloads": [', 'codec_bad_json'],
      [{ nope: [] }, 'codec_bad_request'],
      [{ payloads: [{ data: 'not base64!!' }] }, 'codec_bad_request'],
    ];
    for (const [body, code] of cases) {
      const res = await post(`${url}/decode`, body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe(code);
    }
    const big = await post(`${url}/encode`, { payloads: [{ data: 'A'.repeat(4096) }] });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { code: string }).code).toBe('codec_body_too_large');
  });

  it('422 codec_unknown_key for a payload under a key it does not hold', async () => {
    const url = await start();
    const other = new AesGcmCodec(keyringFrom([{ id: 'other', key: randomBytes(32) }]));
    const [foreign] = await other.encode([defaultPayloadConverter.toPayload(1)]);
    const res = await post(`${url}/decode`, { payloads: [toJsonPayload(foreign)] });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { code: string }).code).toBe('codec_unknown_key');
  });

  it('refuses a non-loopback bind without a token', async () => {
    server = createCodecServer({ codec, uiOrigin: UI, logger });
    await expect(server.listen(0, '0.0.0.0')).rejects.toMatchObject({ code: 'codec_auth_required' });
  });
});

/** A POST with a Host header of our choosing (fetch will not set one). */
function postAs(url: string, host: string, body: unknown): Promise<{ status: number; body: string }> {
  const u = new URL(`${url}/decode`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { Host: host, 'Content-Type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('codec server Host check (DNS rebinding)', () => {
  it('answers for loopback names and the names it is told, refuses any other Host with 421 codec_bad_host', async () => {
    server = createCodecServer({ codec, uiOrigin: UI, logger, allowedHosts: ['codec.internal'] });
    const { url } = await server.listen(0);
    const port = new URL(url).port;
    const empty = { payloads: [] };
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `codec.internal:${port}`, 'LOCALHOST']) {
      expect((await postAs(url, host, empty)).status, host).toBe(200);
    }
    for (const host of [`attacker.example:${port}`, `127.0.0.1.nip.io:${port}`, 'codec.internal.attacker.example']) {
      const r = await postAs(url, host, empty);
      expect(r.status, host).toBe(421);
      expect(JSON.parse(r.body)).toMatchObject({ code: 'codec_bad_host' });
    }
  });

  it('reads the host name out of a Host header', () => {
    expect(hostNameOf('Example.COM:8802')).toBe('example.com');
    expect(hostNameOf('[::1]:8802')).toBe('::1');
    expect(hostNameOf('127.0.0.1')).toBe('127.0.0.1');
    expect(hostNameOf(undefined)).toBeUndefined();
  });
});
