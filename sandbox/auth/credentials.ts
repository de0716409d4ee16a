import { createHash, timingSafeEqual } from 'node:crypto';
import { verifyJwt, type JwtClaims } from './jwt';

/**
 * The `Authorization` header of data-import requests: `Token <data-import key>`, or a JWT from
 * `obtainKrakenToken` sent as `JWT <t>`, `Bearer <t>`, `Token <t>` (the brief's data-import usage)
 * or bare. Never logs or echoes the credential.
 */
export type AuthOutcome =
  | { ok: true; principal: { kind: 'data_import_key' } | { kind: 'jwt'; claims: JwtClaims } }
  | { ok: false; body: { detail: string; code: 'not_authenticated' | 'token_expired' } };

export interface AuthContext {
  dataImportKey?: string;
  jwtSecret: string;
  nowSeconds(): number;
}

const MISSING = { ok: false, body: { detail: 'Authentication credentials were not provided.', code: 'not_authenticated' } } as const;
const INVALID = { ok: false, body: { detail: 'Invalid token.', code: 'not_authenticated' } } as const;
const EXPIRED = { ok: false, body: { detail: 'Signature has expired.', code: 'token_expired' } } as const;

/** Constant-time equality of two secrets of any length. */
export function secretEquals(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function checkJwt(token: string, ctx: AuthContext): AuthOutcome {
  const r = verifyJwt(token, ctx.jwtSecret, ctx.nowSeconds());
  if (!r.ok) return r.code === 'expired' ? EXPIRED : INVALID;
  if (r.claims.tokenUse !== 'access') return INVALID;
  return { ok: true, principal: { kind: 'jwt', claims: r.claims } };
}

export function authenticate(header: string | undefined, ctx: AuthContext): AuthOutcome {
  const value = header?.trim();
  if (!value) return MISSING;
  const space = value.indexOf(' ');
  const scheme = space > 0 ? value.slice(0, space).toLowerCase() : '';
  const credential = space > 0 ? value.slice(space + 1).trim() : value;
  if (!credential) return MISSING;
  if (scheme === 'token') {
    if (ctx.dataImportKey && secretEquals(credential, ctx.dataImportKey)) return { ok: true, principal: { kind: 'data_import_key' } };
    return credential.split('.').length === 3 ? checkJwt(credential, ctx) : INVALID;
  }
  if (scheme === 'jwt' || scheme === 'bearer' || scheme === '') return checkJwt(credential, ctx);
  return INVALID;
}
