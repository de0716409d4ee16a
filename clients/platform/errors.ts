/**
 * Errors the platform client throws. They carry method, path (never a full URL, never a query
 * string), status and a stable code only: no bodies (personal data), no credentials. Outcomes the
 * platform states in a 400 body (validation, already imported, …) are results, not errors.
 */

import { PLATFORM_ERROR_CODES, type FinalCode, type TransientCode } from '../../domain/platform-error-codes';

export { PLATFORM_ERROR_CODES, type FinalCode, type TransientCode };

/** Why a transient failure happened, without the underlying error (whose text may hold a URL). */
export type TransientReason = 'timeout' | 'network' | 'http_status';

export interface PlatformErrorInit {
  method: string;
  path: string;
  status?: number;
}

export abstract class PlatformClientError extends Error {
  abstract readonly code: string;
  abstract readonly retryable: boolean;
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;

  protected constructor(code: string, init: PlatformErrorInit, extra?: string) {
    super(`${code}: ${init.method} ${init.path}${init.status === undefined ? '' : ` -> ${init.status}`}${extra ? ` (${extra})` : ''}`);
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, method: this.method, path: this.path, status: this.status };
  }
}

/** Retrying later may succeed (network, timeout, 5xx, 429): the activity lets Temporal retry. */
export class PlatformTransientError extends PlatformClientError {
  readonly retryable = true;
  readonly code: TransientCode;
  readonly reason: TransientReason;
  /** From `Retry-After` when the platform sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(code: TransientCode, init: PlatformErrorInit & { reason: TransientReason; retryAfterMs?: number }) {
    super(code, init, init.reason === 'http_status' ? undefined : init.reason);
    this.name = 'PlatformTransientError';
    this.code = code;
    this.reason = init.reason;
    this.retryAfterMs = init.retryAfterMs;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), reason: this.reason, retryAfterMs: this.retryAfterMs };
  }
}

/** Retrying the same request cannot help (4xx not otherwise handled, unparseable answer, auth refused). */
export class PlatformFinalError extends PlatformClientError {
  readonly retryable = false;
  readonly code: FinalCode;

  constructor(code: FinalCode, init: PlatformErrorInit, extra?: string) {
    super(code, init, extra);
    this.name = 'PlatformFinalError';
    this.code = code;
  }
}

/**
 * `Retry-After` is either delta-seconds or an HTTP-date (RFC 9110 §10.2.3). Returns milliseconds
 * from `now`, never negative; undefined when absent or malformed.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // Anything else numeric-looking (`-1`, `1.5`) is malformed, not a date.
  if (/^[+-]?[\d.]/.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** The transient/final split for a status that is not an outcome of the endpoint itself. */
export function errorForStatus(init: Required<PlatformErrorInit>, retryAfter: string | null, now?: number): PlatformClientError {
  const { status } = init;
  if (status === 429) {
    return new PlatformTransientError(PLATFORM_ERROR_CODES.rateLimited, { ...init, reason: 'http_status', retryAfterMs: parseRetryAfter(retryAfter, now) });
  }
  if (status >= 500 || status === 408) {
    return new PlatformTransientError(PLATFORM_ERROR_CODES.unavailable, { ...init, reason: 'http_status', retryAfterMs: parseRetryAfter(retryAfter, now) });
  }
  return new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, init);
}
