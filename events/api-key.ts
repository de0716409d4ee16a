import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The API key an EventBridge connection (authorization type API_KEY) sends in a header of its
 * choosing on every API-destination call. Both sides are hashed first so the comparison takes the
 * same time whatever the length or content of the presented key.
 */
export function verifyApiKey(expected: string, presented: string | undefined): { ok: true } | { ok: false; code: 'api_key_missing' | 'api_key_mismatch' } {
  if (!presented) return { ok: false, code: 'api_key_missing' };
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected)) ? { ok: true } : { ok: false, code: 'api_key_mismatch' };
}
