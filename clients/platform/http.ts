import type { Config } from '../../config';
import type { PlatformAuth } from './auth';
import { errorForStatus, PLATFORM_ERROR_CODES, PlatformFinalError, type PlatformClientError } from './errors';
import { openStream, send, type FetchLike, type PlatformLogger, type RawResponse, type SendRequest, type StreamedResponse } from './transport';
import { pathOf } from './url';

export type HttpConfig = Pick<Config, 'PLATFORM_HTTP_TIMEOUT_MS'>;

export interface HttpDeps {
  fetch: FetchLike;
  logger?: PlatformLogger;
  /** Required for authenticated requests; public catalogue requests go without credentials. */
  auth?: PlatformAuth;
  /** For the ordinary REST endpoints (`authenticated: 'rest'`); defaults to `auth`. */
  restAuth?: PlatformAuth;
}

export interface HttpRequest extends SendRequest {
  /** true: data-import credentials; 'rest': the ordinary REST endpoints' (token or HTTP Basic); false: none. */
  authenticated: boolean | 'rest';
}

export interface PlatformHttp {
  /**
   * Sends a request. Throws for transport failures, 429, 408 and 5xx (transient) and for a
   * repeated 401 or a 403 (final); every other status is returned for the endpoint to interpret.
   */
  request(req: HttpRequest): Promise<RawResponse>;
  /** As `request`, for a GET whose body is read as it streams (a transient or final status is thrown, its body discarded). */
  requestStream(req: HttpRequest): Promise<StreamedResponse>;
  /** The error for a status the endpoint does not expect. */
  unexpected(req: SendRequest, res: Pick<RawResponse, 'status' | 'headers'>): PlatformClientError;
}

export function createHttp(cfg: HttpConfig, deps: HttpDeps): PlatformHttp {
  const transport = { fetch: deps.fetch, timeoutMs: cfg.PLATFORM_HTTP_TIMEOUT_MS, logger: deps.logger };

  function authFailed(req: SendRequest, status: number): PlatformFinalError {
    return new PlatformFinalError(PLATFORM_ERROR_CODES.authFailed, { method: req.method, path: pathOf(req.url), status });
  }

  const authFor = (req: HttpRequest): PlatformAuth | undefined =>
    req.authenticated === 'rest' ? (deps.restAuth ?? deps.auth) : req.authenticated ? deps.auth : undefined;

  type Answer = Pick<RawResponse, 'status' | 'headers'>;
  type Exchange<R extends Answer> = (req: SendRequest) => Promise<R>;

  async function attempt<R extends Answer>(exchange: Exchange<R>, req: HttpRequest): Promise<{ res: R; credential?: string }> {
    if (!req.authenticated) return { res: await exchange(req) };
    const auth = authFor(req);
    if (!auth) throw authFailed(req, 0);
    const credential = await auth.header();
    const res = await exchange({ ...req, headers: { ...req.headers, Authorization: credential } });
    return { res, credential };
  }

  function unexpected(req: SendRequest, res: Answer): PlatformClientError {
    return errorForStatus({ method: req.method, path: pathOf(req.url), status: res.status }, res.headers.get('retry-after'));
  }

  /** `discard` drops an answer that is not handed on (a streamed body left unread holds its connection). */
  async function exchangeWithRenewal<R extends Answer>(exchange: Exchange<R>, req: HttpRequest, discard: (res: R) => Promise<void>): Promise<R> {
    const first = await attempt(exchange, req);
    const credential = first.credential;
    let res = first.res;
    const auth = authFor(req);
    if (res.status === 401 && auth) {
      // Tokens expire between our expiry check and the platform's: re-obtain once and repeat.
      deps.logger?.debug({ method: req.method, path: pathOf(req.url) }, 'platform answered 401; renewing credentials');
      auth.invalidate(credential);
      await discard(res);
      ({ res } = await attempt(exchange, req));
      if (res.status === 401) {
        await discard(res);
        throw authFailed(req, 401);
      }
    }
    if (res.status === 401 || res.status === 403) {
      await discard(res);
      throw authFailed(req, res.status);
    }
    if (res.status === 429 || res.status === 408 || res.status >= 500) {
      await discard(res);
      throw unexpected(req, res);
    }
    return res;
  }

  return {
    unexpected,
    request: (req) =>
      exchangeWithRenewal(
        (r) => send(transport, r),
        req,
        async () => {},
      ),
    requestStream: (req) =>
      exchangeWithRenewal(
        (r) => openStream(transport, r),
        req,
        (res) => res.discard(),
      ),
  };
}
