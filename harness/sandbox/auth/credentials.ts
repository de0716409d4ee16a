import { createHash, timingSafeEqual } from 'node:crypto';
import { verifyJwt, type JwtClaims } from './jwt';

/**
 * Credentials, as the API reference and the spec's security schemes state them (sandbox/README.md, "Credentials"):
 * - data-import endpoints: `Authorization: Token <ACCESS_TOKEN>` (a JWT from `obtainKrakenToken`,
 *   auth rule 3) or `Token <data-import key>` (`DataImportViewerAPIKeyAuthentication`, "required
 *   prefix Token "). Every other form (`JWT`, `Bearer`, bare, Basic, lower-case `token`) is 401.
 * - ordinary REST endpoints: the same token (rule 4), or the API key by HTTP Basic with an empty
 *   password (rule 5).
 * Never logs or echoes the credential.
 */
export type AuthOutcome =
  | { ok: true; principal: { kind: 'data_import_key' } | { kind: 'api_key' } | { kind: 'jwt'; claims: JwtClaims } }
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

/** `Token <t>`: the only form the data-import endpoints take. */
function checkTokenHeader(value: string, ctx: AuthContext): AuthOutcome | undefined {
  if (!value.startsWith('Token ')) return undefined;
  const credential = value.slice('Token '.length).trim();
  if (!credential) return MISSING;
  if (ctx.dataImportKey && secretEquals(credential, ctx.dataImportKey)) return { ok: true, principal: { kind: 'data_import_key' } };
  return credential.split('.').length === 3 ? checkJwt(credential, ctx) : INVALID;
}

/** Data-import endpoints. */
export function authenticate(header: string | undefined, ctx: AuthContext): AuthOutcome {
  const value = header?.trim();
  if (!value) return MISSING;
  return checkTokenHeader(value, ctx) ?? INVALID;
}

/** Ordinary REST endpoints: the token, or `Basic base64(<API_KEY>:)` with an empty password. */
export function authenticateRest(header: string | undefined, ctx: AuthContext): AuthOutcome {
  const value = header?.trim();
  if (!value) return MISSING;
  const token = checkTokenHeader(value, ctx);
  if (token) return token;
  if (!value.startsWith('Basic ')) return INVALID;
  const decoded = Buffer.from(value.slice('Basic '.length).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0 || decoded.slice(colon + 1) !== '') return INVALID;
  const key = decoded.slice(0, colon);
  if (ctx.dataImportKey && key && secretEquals(key, ctx.dataImportKey)) return { ok: true, principal: { kind: 'api_key' } };
  return INVALID;
}
