import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { Config } from '../config';
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from '../clients/webhook-signature';
import { verifyApiKey } from './api-key';
import { ingestEvent } from './ingest';
import { RejectionCounter } from './rejection-counter';
import { SourceLimiter } from './source-limiter';
import type { EventsDeps } from './types';

export const WEBHOOK_PATH = '/events/eventbridge';

export type WebhookErrorCode =
  | 'api_key_missing'
  | 'api_key_mismatch'
  | 'signature_missing'
  | 'signature_malformed'
  | 'signature_mismatch'
  | 'signature_expired'
  | 'body_too_large'
  | 'malformed_json'
  | 'unstorable_body'
  | 'bad_request'
  | 'rate_limited'
  | 'inbox_unavailable'
  | 'database_unavailable';

export class WebhookConfigError extends Error {
  readonly code = 'webhook_auth_missing';
  constructor(message: string) {
    super(message);
    this.name = 'WebhookConfigError';
  }
}

export interface WebhookOptions {
  config: Pick<
    Config,
    | 'KRAKEN_MIGRATE_MODE'
    | 'EVENTS_WEBHOOK_AUTH'
    | 'EVENTS_WEBHOOK_API_KEY'
    | 'EVENTS_WEBHOOK_API_KEY_HEADER'
    | 'EVENTS_WEBHOOK_SECRET'
    | 'EVENTS_MAX_BODY_BYTES'
    | 'EVENTS_REJECTIONS_BURST'
    | 'EVENTS_REJECTIONS_PER_MINUTE'
    | 'EVENTS_TRUST_PROXY'
  >;
  /** Where refusals are counted (made from the deps when not given; flushed on close). */
  rejections?: RejectionCounter;
  /** The per-source limit on refusals (made from the config when not given). */
  limiter?: SourceLimiter;
  /** Development only: accept unauthenticated deliveries when the chosen scheme has no key or secret. */
  allowUnsigned?: boolean;
  /** Unix seconds; injectable for tests. */
  nowSeconds?: () => number;
}

const DETAIL: Record<WebhookErrorCode, string> = {
  api_key_missing: 'the API-key header of the EventBridge connection is required',
  api_key_mismatch: 'the API key is not the configured one',
  signature_missing: `the ${WEBHOOK_SIGNATURE_HEADER} header is required`,
  signature_malformed: `the ${WEBHOOK_SIGNATURE_HEADER} header is not t=<seconds>,v1=<hex>`,
  signature_mismatch: 'the signature does not match the body',
  signature_expired: 'the signature timestamp is outside the accepted window',
  body_too_large: 'the body exceeds EVENTS_MAX_BODY_BYTES',
  malformed_json: 'the body is not JSON',
  unstorable_body: 'the body cannot be stored (NUL character in a string)',
  bad_request: 'the request could not be read',
  rate_limited: 'too many refused requests from this source; retry later',
  inbox_unavailable: 'the event could not be recorded; retry later',
  database_unavailable: 'the database is unreachable',
};

/**
 * The HTTPS receiver for EventBridge API-destination deliveries. A 2xx means the event is
 * committed to the inbox; anything the sender should retry gets a 503.
 */
export function createWebhookApp(deps: EventsDeps, opts: WebhookOptions): FastifyInstance {
  const authenticate = webhookAuthenticator(deps, opts);
  const now = opts.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const maxBody = opts.config.EVENTS_MAX_BODY_BYTES;

  // Behind the TLS-terminating proxy every request comes from the proxy: EVENTS_TRUST_PROXY reads the client from X-Forwarded-For.
  const app = Fastify({ logger: false, bodyLimit: maxBody, trustProxy: opts.config.EVENTS_TRUST_PROXY });
  // The signature covers the exact bytes: keep them, whatever the content type says.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBody }, (_req, body, done) => done(null, body));

  const rejections = opts.rejections ?? new RejectionCounter(deps.pool, deps.logger);
  rejections.start();
  app.addHook('onClose', async () => rejections.stop());
  const limiter = opts.limiter ?? new SourceLimiter({ burst: opts.config.EVENTS_REJECTIONS_BURST, perMinute: opts.config.EVENTS_REJECTIONS_PER_MINUTE });
  /** A delivery refused before it was read: counted (not stored), and spent from its source's bucket. */
  const refuse = (reason: WebhookErrorCode, source: string) => {
    rejections.count('webhook', reason);
    limiter.spend(source);
  };
  const fail = (code: WebhookErrorCode) => ({ code, detail: DETAIL[code] });

  // Before the body is read: a source that has spent its refusals waits.
  app.addHook('onRequest', async (req, reply) => {
    if (req.method !== 'POST') return;
    const allowed = limiter.check(req.ip);
    if (allowed.ok) return;
    rejections.count('webhook', 'rate_limited');
    return reply.code(429).header('retry-after', String(allowed.retryAfterSeconds)).send(fail('rate_limited'));
  });

  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      refuse('body_too_large', req.ip);
      return reply.code(413).send(fail('body_too_large'));
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      refuse('bad_request', req.ip);
      return reply.code(400).send(fail('bad_request'));
    }
    deps.logger.error({ errName: err.name, code: err.code }, 'events webhook failed');
    return reply.code(503).send(fail('inbox_unavailable'));
  });

  app.post(WEBHOOK_PATH, async (req, reply) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const v = authenticate(req.headers, body, now());
    if (!v.ok) {
      refuse(v.code, req.ip);
      return reply.code(401).send(fail(v.code));
    }
    let result;
    try {
      result = await ingestEvent(deps, body, 'webhook', { remoteAddress: req.ip });
    } catch (err) {
      deps.logger.error({ code: 'inbox_unavailable', errName: (err as Error)?.name, pgCode: (err as { code?: string })?.code }, 'event not recorded');
      return reply.code(503).header('retry-after', '5').send(fail('inbox_unavailable'));
    }
    if (result.status === 'rejected') return reply.code(400).send(fail(result.code));
    return reply.code(202).send(result);
  });

  app.get('/healthz', async (_req, reply) => {
    try {
      await deps.pool.query('select 1');
      return reply.send({ status: 'ok' });
    } catch {
      return reply.code(503).send(fail('database_unavailable'));
    }
  });

  return app;
}

type Headers = Record<string, string | string[] | undefined>;
type AuthResult = { ok: true } | { ok: false; code: WebhookErrorCode };

/**
 * The configured scheme, checked before anything else reads the body. `api-key` (default): the
 * header an EventBridge connection adds to every API-destination call, compared in constant
 * time. `hmac`: the X-Kraken-Signature of senders that can sign the body. Production refuses to
 * start without the scheme's key or secret.
 */
function webhookAuthenticator(deps: EventsDeps, opts: WebhookOptions): (headers: Headers, body: Buffer, now: number) => AuthResult {
  const c = opts.config;
  const [name, value] =
    c.EVENTS_WEBHOOK_AUTH === 'api-key' ? ['EVENTS_WEBHOOK_API_KEY', c.EVENTS_WEBHOOK_API_KEY] : ['EVENTS_WEBHOOK_SECRET', c.EVENTS_WEBHOOK_SECRET];
  const header = (h: Headers, n: string) => {
    const v = h[n.toLowerCase()];
    return Array.isArray(v) ? v.join(',') : v;
  };
  if (!value) {
    if (c.KRAKEN_MIGRATE_MODE === 'production')
      throw new WebhookConfigError(`${name} is required in production mode (EVENTS_WEBHOOK_AUTH=${c.EVENTS_WEBHOOK_AUTH})`);
    if (!opts.allowUnsigned)
      throw new WebhookConfigError(
        `${name} is not set (EVENTS_WEBHOOK_AUTH=${c.EVENTS_WEBHOOK_AUTH}): set it, or start the receiver with allowUnsigned (development only)`,
      );
    deps.logger.warn({ code: 'webhook_unauthenticated' }, 'events webhook accepts UNAUTHENTICATED deliveries (development, allowUnsigned)');
    return () => ({ ok: true });
  }
  if (c.EVENTS_WEBHOOK_AUTH === 'api-key') return (h) => verifyApiKey(value, header(h, c.EVENTS_WEBHOOK_API_KEY_HEADER));
  return (h, body, now) => verifyWebhookSignature(value, body, header(h, WEBHOOK_SIGNATURE_HEADER), now);
}
