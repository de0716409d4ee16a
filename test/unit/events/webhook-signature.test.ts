import { describe, expect, it } from 'vitest';
import { signWebhookBody, verifyWebhookSignature } from '../../../clients/webhook-signature';

/** The webhook's signature check (clients/webhook-signature.ts): what the receiver accepts, and why it refuses the rest. */

const SECRET = 'whsec-'.padEnd(40, '7');
const body = JSON.stringify({ hello: 'world' });
const now = 1_700_000_000;
const good = signWebhookBody(SECRET, body, now);
const mac = (secret: string, t: number) => signWebhookBody(secret, body, t).split(',v1=')[1];

describe('webhook signature', () => {
  it('rejects forged, stale, malformed and missing signatures', () => {
    expect(verifyWebhookSignature(SECRET, body, good, now + 10)).toEqual({ ok: true });
    expect(verifyWebhookSignature(SECRET, body + ' ', good, now)).toEqual({ ok: false, code: 'signature_mismatch' });
    expect(verifyWebhookSignature(SECRET, body, signWebhookBody('forger', body, now), now)).toEqual({ ok: false, code: 'signature_mismatch' });
    expect(verifyWebhookSignature(SECRET, body, good.replace(`t=${now}`, `t=${now + 1}`), now)).toEqual({ ok: false, code: 'signature_mismatch' });
    expect(verifyWebhookSignature(SECRET, body, good, now + 301)).toEqual({ ok: false, code: 'signature_expired' });
    expect(verifyWebhookSignature(SECRET, body, 'v1=abc', now)).toEqual({ ok: false, code: 'signature_malformed' });
    expect(verifyWebhookSignature(SECRET, body, `t=${now}`, now)).toEqual({ ok: false, code: 'signature_malformed' });
    expect(verifyWebhookSignature(SECRET, body, undefined, now)).toEqual({ ok: false, code: 'signature_missing' });
    expect(verifyWebhookSignature(SECRET, body, '', now)).toEqual({ ok: false, code: 'signature_missing' });
  });

  it('accepts five minutes either way, to the second, and a Buffer body as its string', () => {
    for (const at of [now - 300, now + 300]) expect(verifyWebhookSignature(SECRET, body, good, at)).toEqual({ ok: true });
    for (const at of [now - 301, now + 301]) expect(verifyWebhookSignature(SECRET, body, good, at)).toEqual({ ok: false, code: 'signature_expired' });
    expect(verifyWebhookSignature(SECRET, body, good, now + 60, 30)).toEqual({ ok: false, code: 'signature_expired' });
    expect(verifyWebhookSignature(SECRET, Buffer.from(body), good, now)).toEqual({ ok: true });
    // Signed at a fractional second: the whole second is what is signed.
    expect(signWebhookBody(SECRET, body, now + 0.9)).toBe(good);
  });

  it('while a secret rotates, any one of several v1 values may match; unknown keys are ignored; hex in either case', () => {
    expect(verifyWebhookSignature(SECRET, body, `t=${now},v1=${mac('old-secret', now)},v1=${mac(SECRET, now)}`, now)).toEqual({ ok: true });
    expect(verifyWebhookSignature(SECRET, body, `t=${now},v1=${mac('old-secret', now)},v1=${mac('other', now)}`, now)).toEqual({
      ok: false,
      code: 'signature_mismatch',
    });
    expect(verifyWebhookSignature(SECRET, body, ` t=${now} , v0=zz, v1=${mac(SECRET, now).toUpperCase()} `, now)).toEqual({ ok: true });
  });

  it('refuses a header that is not t=<seconds>,v1=<64 hex> before computing anything', () => {
    const v1 = mac(SECRET, now);
    for (const header of [
      `=${now},v1=${v1}`,
      `t${now},v1=${v1}`,
      `t=${now},v1=${v1.slice(1)}`,
      `t=${now},v1=${v1}0`,
      `t=${now},v1=${'g'.repeat(64)}`,
      `t=-${now},v1=${v1}`,
      `t=${now}.5,v1=${v1}`,
      `t=1${'0'.repeat(12)},v1=${v1}`,
      `t=,v1=${v1}`,
      `v1=${v1}`,
      `t=${now},v2=${v1}`,
    ])
      expect(verifyWebhookSignature(SECRET, body, header, now), header).toEqual({ ok: false, code: 'signature_malformed' });
  });
});
