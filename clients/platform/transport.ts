import type pino from 'pino';
import { version } from '../../package.json';
import { PLATFORM_ERROR_CODES, PlatformTransientError } from './errors';
import { pathOf } from './url';

export const USER_AGENT = `kraken-migrate/${version}`;

export type FetchLike = typeof fetch;
export type PlatformLogger = Pick<pino.Logger, 'debug' | 'warn'>;

export interface TransportOptions {
  fetch: FetchLike;
  timeoutMs: number;
  logger?: PlatformLogger;
}

export interface SendRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers?: Record<string, string>;
  /** Serialised as JSON. */
  body?: unknown;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON; undefined for an empty body. */
  body: unknown;
  /** True when a non-empty body was not JSON. */
  unparseable: boolean;
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
}

/**
 * One HTTP exchange with a timeout that covers the body too. Network failures and timeouts become
 * `platform_unavailable`; the underlying error is dropped because its text can hold the URL.
 */
export async function send(opts: TransportOptions, req: SendRequest): Promise<RawResponse> {
  const path = pathOf(req.url);
  const started = Date.now();
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    ...req.headers,
  };
  try {
    const res = await opts.fetch(req.url, {
      method: req.method,
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal,
      // A redirect would carry the Authorization header elsewhere: surface it as a 3xx (final) instead.
      redirect: 'manual',
    });
    const text = await res.text();
    let body: unknown;
    let unparseable = false;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        unparseable = true;
      }
    }
    opts.logger?.debug({ method: req.method, path, status: res.status, ms: Date.now() - started }, 'platform request');
    return { status: res.status, headers: res.headers, body, unparseable };
  } catch (err) {
    const reason = isTimeout(err) ? 'timeout' : 'network';
    opts.logger?.debug({ method: req.method, path, reason, ms: Date.now() - started }, 'platform request failed');
    throw new PlatformTransientError(PLATFORM_ERROR_CODES.unavailable, { method: req.method, path, reason });
  }
}
