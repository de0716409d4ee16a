import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';

/**
 * Who may use the codec server, when the Temporal UI sits behind a login: the UI passes its user's
 * OIDC access token (`Authorization: Bearer <JWT>`, the UI's "pass access token" codec setting) and
 * the namespace (`X-Namespace`, or the CLI's `/{namespace}/decode`). As Temporal's codec-server
 * samples do, the token is verified against the issuer's JWKS (signature, `iss`, `aud`, `exp`), and
 * the namespace is authorised from a claim in Temporal's own permission format
 * (`"<namespace>:<read|write|admin>"`, `"system:admin"` for every namespace): decoding shows
 * customers' data and needs any role on the namespace; encoding needs write or admin.
 */

export interface OidcOptions {
  issuer: string;
  audience: string;
  /** The issuer's JWKS; unset: `jwks_uri` from `<issuer>/.well-known/openid-configuration`. */
  jwksUrl?: string;
  /** The claim holding `namespace:role` strings (Temporal's default claim mapper reads `permissions`). */
  namespaceClaim?: string;
  clockToleranceSeconds?: number;
  /** How long the issuer's discovery document may take before the request is answered 503 (default 10 s). */
  discoveryTimeoutMs?: number;
}

export type CodecOperation = 'encode' | 'decode';

export class CodecAccessError extends Error {
  constructor(
    readonly code: 'codec_unauthorized' | 'codec_forbidden' | 'codec_namespace_required' | 'codec_oidc_unavailable',
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'CodecAccessError';
  }
}

/** Asymmetric signatures only: an HMAC (HS*) "key" from a JWKS, or `none`, is never accepted. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

const ROLES_FOR: Record<CodecOperation, ReadonlySet<string>> = {
  decode: new Set(['read', 'write', 'admin']),
  encode: new Set(['write', 'admin']),
};

/** Whether the claims grant `op` on `namespace` (Temporal's `namespace:role` permission strings). */
export function namespaceAllowed(claims: JWTPayload, claim: string, namespace: string, op: CodecOperation): boolean {
  const granted = claims[claim];
  if (!Array.isArray(granted)) return false;
  const roles = ROLES_FOR[op];
  return granted.some((p) => {
    if (typeof p !== 'string') return false;
    const i = p.lastIndexOf(':');
    const [ns, role] = [p.slice(0, i), p.slice(i + 1).toLowerCase()];
    if (ns === 'system') return role === 'admin';
    return ns === namespace && roles.has(role);
  });
}

/** The issuer's JWKS address from its discovery document, whose `issuer` must be the one configured. */
async function discoveredJwksUrl(issuer: string, timeoutMs: number): Promise<URL> {
  const res = await fetch(new URL('.well-known/openid-configuration', issuer.endsWith('/') ? issuer : `${issuer}/`), {
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`the issuer's discovery document answered ${res.status}`);
  const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (doc.issuer !== issuer) throw new Error('the discovery document names another issuer');
  if (typeof doc.jwks_uri !== 'string') throw new Error('the discovery document has no jwks_uri');
  return new URL(doc.jwks_uri);
}

export interface OidcVerifier {
  /** Resolves with the token's subject when `authorization` grants `op` on `namespace`; throws CodecAccessError otherwise. */
  authorize(authorization: string | undefined, namespace: string | undefined, op: CodecOperation): Promise<{ subject?: string }>;
}

export function createOidcVerifier(opts: OidcOptions, keys?: JWTVerifyGetKey): OidcVerifier {
  const claim = opts.namespaceClaim ?? 'permissions';
  let keySet: Promise<JWTVerifyGetKey> | undefined = keys ? Promise.resolve(keys) : undefined;
  // jose caches the key set and refetches it (rate-limited) when a token names an unknown `kid`: key rotation at the issuer needs no restart.
  const getKeys = () => {
    keySet ??= (async () =>
      createRemoteJWKSet(opts.jwksUrl ? new URL(opts.jwksUrl) : await discoveredJwksUrl(opts.issuer, opts.discoveryTimeoutMs ?? 10_000)))();
    // A failed discovery is tried again on the next request, not cached.
    keySet.catch(() => (keySet = undefined));
    return keySet;
  };

  return {
    async authorize(authorization, namespace, op) {
      // Stryker disable next-line StringLiteral: any other text without a Bearer credential gives no token, as '' does.
      const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
      if (!token) throw new CodecAccessError('codec_unauthorized', 401, 'missing Authorization bearer token (the UI must pass its access token)');
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, await getKeys(), {
          issuer: opts.issuer,
          audience: opts.audience,
          algorithms: ALGORITHMS,
          requiredClaims: ['exp'],
          clockTolerance: opts.clockToleranceSeconds ?? 30,
        }));
      } catch (e) {
        if (e instanceof errors.JOSEError && !(e instanceof errors.JWKSTimeout)) {
          // jose's codes say why (expired, wrong audience, bad signature) without quoting the token.
          throw new CodecAccessError('codec_unauthorized', 401, `the access token is not valid (${e.code})`);
        }
        throw new CodecAccessError('codec_oidc_unavailable', 503, `the issuer's keys could not be read (${(e as Error).message})`);
      }
      if (!namespace) throw new CodecAccessError('codec_namespace_required', 400, 'no namespace (X-Namespace header, or /{namespace}/decode)');
      if (!namespaceAllowed(payload, claim, namespace, op)) {
        throw new CodecAccessError(
          'codec_forbidden',
          403,
          `the token grants no ${op === 'decode' ? 'read' : 'write'} role on namespace ${namespace} (claim ${claim})`,
        );
      }
      return { subject: payload.sub };
    },
  };
}
