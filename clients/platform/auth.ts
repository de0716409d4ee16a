import { z } from 'zod';
import type { Config } from '../../config';
import { OBTAIN_TOKEN_MUTATION } from '../../contract/graphql';
import { errorForStatus, PLATFORM_ERROR_CODES, PlatformFinalError } from './errors';
import { send, type FetchLike, type PlatformLogger } from './transport';
import { pathOf } from './url';

/** Supplies the `Authorization` header value; `invalidate()` after the platform answered 401. */
export interface PlatformAuth {
  header(): Promise<string>;
  /**
   * Forget the current credential. With `rejected` (the header value the platform refused), a token
   * that was already renewed by another caller is kept, so concurrent 401s cause one renewal.
   */
  invalidate(rejected?: string): void;
}

export type AuthConfig = Pick<
  Config,
  'PLATFORM_AUTH_MODE' | 'PLATFORM_API_KEY' | 'PLATFORM_ORGANIZATION_SECRET_KEY' | 'PLATFORM_GRAPHQL_URL' | 'PLATFORM_HTTP_TIMEOUT_MS'
> &
  Partial<Pick<Config, 'PLATFORM_TOKEN_INPUT' | 'PLATFORM_PRESIGNED_KEY' | 'PLATFORM_REFRESH_TOKEN'>>;

/** The `ObtainJSONWebTokenInput` fields this client can authenticate the mutation with (each standalone). */
export const TOKEN_INPUTS = ['organizationSecretKey', 'APIKey', 'preSignedKey', 'refreshToken'] as const;
export type TokenInputName = (typeof TOKEN_INPUTS)[number];

/** The configured value of each mutation input. */
function tokenInputValue(cfg: AuthConfig, name: TokenInputName): string | undefined {
  switch (name) {
    case 'organizationSecretKey':
      return cfg.PLATFORM_ORGANIZATION_SECRET_KEY;
    case 'APIKey':
      return cfg.PLATFORM_API_KEY;
    case 'preSignedKey':
      return cfg.PLATFORM_PRESIGNED_KEY;
    case 'refreshToken':
      return cfg.PLATFORM_REFRESH_TOKEN;
  }
}

/**
 * Which input obtains the first token: `PLATFORM_TOKEN_INPUT` when set, else the first configured of
 * organisation secret key (the API reference: "authenticated with an organisation API key"; sandbox/README.md, "Credentials"), pre-signed
 * key, refresh token, account-user API key.
 */
export function primaryTokenInput(cfg: AuthConfig): TokenInputName {
  if (cfg.PLATFORM_TOKEN_INPUT) return cfg.PLATFORM_TOKEN_INPUT;
  const order: TokenInputName[] = ['organizationSecretKey', 'preSignedKey', 'refreshToken', 'APIKey'];
  return order.find((n) => tokenInputValue(cfg, n)) ?? 'organizationSecretKey';
}

const ENV_NAME: Record<TokenInputName, string> = {
  organizationSecretKey: 'PLATFORM_ORGANIZATION_SECRET_KEY',
  APIKey: 'PLATFORM_API_KEY',
  preSignedKey: 'PLATFORM_PRESIGNED_KEY',
  refreshToken: 'PLATFORM_REFRESH_TOKEN',
};

/** Document 1, rule 5: an API key by HTTP Basic on the ordinary REST endpoints, user `<API_KEY>`, empty password. */
export function basicAuthHeader(apiKey: string): string {
  return `Basic ${Buffer.from(`${apiKey}:`, 'utf8').toString('base64')}`;
}

export interface AuthDeps {
  fetch?: FetchLike;
  logger?: PlatformLogger;
  /** Clock in milliseconds; injectable so expiry can be tested. */
  now?: () => number;
}

/** The mutation as it lives in contract/graphql/ (validated there against the tenant's schema). */
export { OBTAIN_TOKEN_MUTATION };

const obtainTokenResponseSchema = z.object({
  data: z
    .object({
      obtainKrakenToken: z
        .object({
          token: z.string().min(1),
          refreshToken: z.string().nullish(),
          refreshExpiresIn: z.number().nullish(),
        })
        .nullish(),
    })
    .nullish(),
  errors: z.array(z.looseObject({ extensions: z.looseObject({ errorCode: z.string().optional() }).nullish() })).optional(),
});

type TokenInput = Partial<Record<TokenInputName, string>>;

/** Renew this long before `exp` (capped at half the token's lifetime for short-lived tokens). */
const EXPIRY_MARGIN_MS = 60_000;

/** The JWT `exp` claim in milliseconds, read without verifying: the platform verifies, we only schedule renewal. */
export function jwtExpiryMs(token: string): number | undefined {
  const part = token.split('.')[1];
  if (!part) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    const exp = (claims as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The schema calls `refreshExpiresIn` a Unix timestamp; a small number can only be a lifetime in
 * seconds, so both readings are accepted.
 */
function refreshExpiryMs(value: number, now: number): number {
  return value > 1_000_000_000 ? value * 1000 : now + value * 1000;
}

function missingSecret(name: string): PlatformFinalError {
  return new PlatformFinalError(PLATFORM_ERROR_CODES.authFailed, { method: 'AUTH', path: '-' }, `${name} is not set`);
}

/**
 * Data-import calls carry `Authorization: Token <ACCESS_TOKEN>` (sandbox/README.md, "Credentials", rule 3; the spec's
 * `DataImportViewerAPIKeyAuthentication` requires the `Token ` prefix). `jwt` mode obtains the token
 * with `obtainKrakenToken` and renews it with the refresh token before it expires; `token` mode sends
 * a data-import key with the same prefix.
 */
export function createAuth(cfg: AuthConfig, deps: AuthDeps = {}): PlatformAuth {
  if (cfg.PLATFORM_AUTH_MODE === 'token') {
    return {
      header: async () => {
        if (!cfg.PLATFORM_API_KEY) throw missingSecret('PLATFORM_API_KEY');
        return `Token ${cfg.PLATFORM_API_KEY}`;
      },
      // A data-import key cannot be renewed; the caller's single retry will meet the same answer.
      invalidate: () => {},
    };
  }
  return createJwtAuth(cfg, deps);
}

function createJwtAuth(cfg: AuthConfig, deps: AuthDeps): PlatformAuth {
  const now = deps.now ?? Date.now;
  const transport = { fetch: deps.fetch ?? fetch, timeoutMs: cfg.PLATFORM_HTTP_TIMEOUT_MS, logger: deps.logger };
  const url = new URL(cfg.PLATFORM_GRAPHQL_URL);
  const path = pathOf(url);

  let token: string | undefined;
  let renewAt = 0;
  let refreshToken: string | undefined;
  let refreshUntil = 0;
  let inflight: Promise<string> | undefined;

  async function obtain(input: TokenInput): Promise<string> {
    const res = await send(transport, { method: 'POST', url, body: { query: OBTAIN_TOKEN_MUTATION, variables: { input } } });
    const parsed = obtainTokenResponseSchema.safeParse(res.body);
    const errors = parsed.success ? parsed.data.errors : undefined;
    if (errors && errors.length > 0) {
      // Error codes (KT-CT-…) only: messages could echo the input.
      const codes = errors.map((e) => e.extensions?.errorCode).filter((c): c is string => typeof c === 'string');
      throw new PlatformFinalError(PLATFORM_ERROR_CODES.authFailed, { method: 'POST', path, status: res.status }, codes.join(',') || 'graphql error');
    }
    if (res.status === 429 || res.status >= 500) throw errorForStatus({ method: 'POST', path, status: res.status }, res.headers.get('retry-after'), now());
    const issued = parsed.success ? parsed.data.data?.obtainKrakenToken : undefined;
    if (res.status < 200 || res.status >= 300 || !issued) {
      throw new PlatformFinalError(PLATFORM_ERROR_CODES.authFailed, { method: 'POST', path, status: res.status }, 'no token issued');
    }

    const issuedAt = now();
    const exp = jwtExpiryMs(issued.token);
    token = issued.token;
    // Without a readable `exp` the token is kept until the platform answers 401.
    renewAt = exp === undefined ? Number.POSITIVE_INFINITY : exp - Math.min(EXPIRY_MARGIN_MS, Math.max(0, exp - issuedAt) / 2);
    if (issued.refreshToken && typeof issued.refreshExpiresIn === 'number') {
      refreshToken = issued.refreshToken;
      refreshUntil = refreshExpiryMs(issued.refreshExpiresIn, issuedAt);
    }
    return `Token ${token}`;
  }

  const primary = primaryTokenInput(cfg);

  async function renew(): Promise<string> {
    if (refreshToken && now() < refreshUntil) {
      try {
        return await obtain({ refreshToken });
      } catch (err) {
        // A refused refresh token is not the end: the configured input can still issue a token.
        if (!(err instanceof PlatformFinalError)) throw err;
        deps.logger?.debug({ code: err.code }, 'platform refresh token refused; using the configured token input');
        refreshToken = undefined;
      }
    }
    const value = tokenInputValue(cfg, primary);
    if (!value) throw missingSecret(ENV_NAME[primary]);
    return obtain({ [primary]: value });
  }

  return {
    header(): Promise<string> {
      if (token !== undefined && now() < renewAt) return Promise.resolve(`Token ${token}`);
      // Concurrent callers share one token request.
      inflight ??= renew().finally(() => {
        inflight = undefined;
      });
      return inflight;
    },
    invalidate(rejected?: string): void {
      if (rejected !== undefined && token !== undefined && rejected !== `Token ${token}`) return;
      token = undefined;
      renewAt = 0;
    },
  };
}
