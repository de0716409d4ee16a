import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures, shared by the sandbox (signs) and the project's event receiver (verifies).
 * Header `X-Kraken-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * The timestamp is signed with the body so a captured request cannot be replayed later.
 */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Kraken-Signature';

export type WebhookVerification = { ok: true } | { ok: false; code: 'signature_missing' | 'signature_malformed' | 'signature_mismatch' | 'signature_expired' };

function hmacHex(secret: string, rawBody: string | Buffer, t: number): string {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
}

export function signWebhookBody(secret: string, rawBody: string | Buffer, tSeconds: number): string {
  const t = Math.floor(tSeconds);
  return `t=${t},v1=${hmacHex(secret, rawBody, t)}`;
}

export function verifyWebhookSignature(
  secret: string,
  rawBody: string | Buffer,
  header: string | undefined | null,
  nowSeconds: number,
  toleranceSeconds = 300,
): WebhookVerification {
  if (!header) return { ok: false, code: 'signature_missing' };
  let t: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return { ok: false, code: 'signature_malformed' };
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value)) return { ok: false, code: 'signature_malformed' };
      t = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return { ok: false, code: 'signature_malformed' };
      candidates.push(value.toLowerCase());
    }
    // Unknown keys (future schemes) are ignored.
  }
  if (t === undefined || candidates.length === 0) return { ok: false, code: 'signature_malformed' };
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return { ok: false, code: 'signature_expired' };
  const expected = Buffer.from(hmacHex(secret, rawBody, t), 'hex');
  // Several v1 values are allowed so a sender can sign with an old and a new secret while rotating.
  const match = candidates.some((c) => timingSafeEqual(Buffer.from(c, 'hex'), expected));
  return match ? { ok: true } : { ok: false, code: 'signature_mismatch' };
}
