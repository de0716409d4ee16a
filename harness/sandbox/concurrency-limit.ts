import type { FastifyReply } from 'fastify';

/**
 * The tenant's optional concurrency limit (OpenAPI, `POST /v2/data-import/accounts/` 429): "an
 * optional concurrency limit on the number of accounts that can be processed at once. If enabled,
 * any requests to create an account that exceed this limit will be rejected. These requests should
 * be retried once other ongoing accounts have finished processing." An account is being processed
 * from its accepted schedule until its import ends (PENDING or IN_PROGRESS), so with every import
 * taking `processingDelayMs` the tenant's capacity is `limit / processingDelayMs` accounts a
 * millisecond: the figure the bench measures a client against.
 */
export interface LimitCheck {
  /** 0: no limit. */
  limit: number;
  /** Imports being processed now (every supplier: the limit is the tenant's). */
  live: number;
  /** This account already has an import being processed: a repeat answered 201 as before, adding none. */
  alreadyLive: boolean;
}

/** Whether a schedule call may open an import under the limit. */
export function admitsSchedule(c: LimitCheck): boolean {
  if (c.limit <= 0 || c.alreadyLive) return true;
  return c.live < c.limit;
}

/** Accounts a second at most: `limit` in processing, each for `processingMs` (mean). */
export function capacityPerSecond(limit: number, processingMs: number): number {
  if (limit <= 0 || processingMs <= 0) return Number.POSITIVE_INFINITY;
  return (limit * 1000) / processingMs;
}

/** The spec's ErrorResponse (code, detail); the code is assumed (sandbox/README.md, "Assumptions"). */
export const concurrencyLimitBody = (limit: number) => ({
  code: 'concurrency_limit_exceeded',
  detail: `The limit of ${limit} accounts being processed at once is reached. Retry once other ongoing accounts have finished processing.`,
});

/** 429 for the limit, with `Retry-After` only when configured (the spec documents none). */
export function sendConcurrencyLimited(reply: FastifyReply, limit: number, retryAfterSeconds: number | null) {
  if (retryAfterSeconds !== null) reply.header('Retry-After', String(retryAfterSeconds));
  return reply.code(429).send(concurrencyLimitBody(limit));
}
