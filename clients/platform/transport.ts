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

/** A response whose body is read as it comes (a list too large to hold as text). */
export interface StreamedResponse {
  status: number;
  headers: Headers;
  /** The body's bytes; each chunk must come within the timeout of the one before. Read it, or `discard()` it. */
  body: AsyncIterable<Uint8Array>;
  discard(): Promise<void>;
}

/**
 * One GET whose body streams: the answer's headers must come within `timeoutMs`, then every chunk
 * within `timeoutMs` of the one before (an idle timeout: a million-entry list may take longer than
 * any fixed deadline, but it never stalls). Failures become `platform_unavailable` as in `send`.
 */
export async function openStream(opts: TransportOptions, req: SendRequest): Promise<StreamedResponse> {
  const path = pathOf(req.url);
  const started = Date.now();
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, opts.timeoutMs);
  };
  const failed = (err: unknown) => {
    clearTimeout(timer);
    const reason = timedOut || isTimeout(err) ? 'timeout' : 'network';
    opts.logger?.debug({ method: req.method, path, reason, ms: Date.now() - started }, 'platform request failed');
    return new PlatformTransientError(PLATFORM_ERROR_CODES.unavailable, { method: req.method, path, reason });
  };
  arm();
  let res: Response;
  try {
    res = await opts.fetch(req.url, {
      method: req.method,
      headers: { Accept: 'application/json', 'User-Agent': USER_AGENT, ...req.headers },
      signal: abort.signal,
      redirect: 'manual',
    });
  } catch (err) {
    throw failed(err);
  }
  opts.logger?.debug({ method: req.method, path, status: res.status, ms: Date.now() - started }, 'platform request (streamed)');
  const stream = res.body;
  async function* body(): AsyncGenerator<Uint8Array> {
    if (!stream) return clearTimeout(timer);
    const reader = stream.getReader();
    let ended = false;
    try {
      for (;;) {
        arm();
        const { done, value } = await reader.read();
        if (done) break;
        yield value;
      }
      ended = true;
    } catch (err) {
      throw failed(err);
    } finally {
      clearTimeout(timer);
      // A reader that stops early (a bad element, a failure downstream) closes the connection.
      if (!ended) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }
  return {
    status: res.status,
    headers: res.headers,
    body: body(),
    async discard() {
      clearTimeout(timer);
      await stream?.cancel().catch(() => undefined);
    },
  };
}
