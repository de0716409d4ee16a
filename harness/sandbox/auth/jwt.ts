import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** HS256 JWTs written with node:crypto: the sandbox only needs to issue and check its own. */

export const jwtClaimsSchema = z.object({
  sub: z.string(),
  iss: z.string(),
  iat: z.number().int(),
  exp: z.number().int(),
  tokenUse: z.enum(['access', 'refresh', 'pre_signed']),
  origIat: z.number().int(),
  jti: z.string().optional(),
});
export type JwtClaims = z.infer<typeof jwtClaimsSchema>;

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const HEADER = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

export function signJwt(claims: JwtClaims, secret: string): string {
  const body = `${HEADER}.${b64url(JSON.stringify(claims))}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

export type JwtCheck = { ok: true; claims: JwtClaims } | { ok: false; code: 'invalid' | 'expired' };

export function verifyJwt(token: string, secret: string, nowSeconds: number): JwtCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== HEADER) return { ok: false, code: 'invalid' };
  const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, code: 'invalid' };
  let claims: JwtClaims;
  try {
    const parsed = jwtClaimsSchema.safeParse(JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')));
    if (!parsed.success) return { ok: false, code: 'invalid' };
    claims = parsed.data;
  } catch {
    return { ok: false, code: 'invalid' };
  }
  if (claims.exp <= nowSeconds) return { ok: false, code: 'expired' };
  return { ok: true, claims };
}
