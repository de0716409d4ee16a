import type { Registry } from 'prom-client';
import { countHttpRequests } from '../metrics/http-requests';
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type pino from 'pino';
import { z } from 'zod';
import { CodecError } from './codec-error';
import { CodecAccessError, type OidcVerifier } from './oidc';

/**
 * The remote codec server the Temporal Web UI and CLI call to show (and encode) payloads.
 * Protocol: POST /encode and /decode (also /{namespace}/encode|decode for the CLI's endpoint
 * template) with proto3-JSON `{payloads: [{metadata: {k: base64}, data: base64}]}`.
 */

const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');
const jsonPayloadSchema = z.object({
  metadata: z.record(z.string(), base64).nullish(),
  data: base64.nullish(),
});
export const payloadsBodySchema = z.object({ payloads: z.array(jsonPayloadSchema) });
export type JsonPayload = z.infer<typeof jsonPayloadSchema>;

export type CodecServerErrorCode =
  | 'codec_unauthorized'
  | 'codec_bad_json'
  | 'codec_bad_request'
  | 'codec_body_too_large'
  | 'codec_unknown_key'
  | 'codec_decrypt_failed'
  | 'codec_auth_required'
  | 'codec_bad_host'
  | 'codec_forbidden'
  | 'codec_namespace_required'
  | 'codec_oidc_unavailable'
  | 'codec_internal_error';

export class CodecServerError extends Error {
  constructor(
    readonly code: CodecServerErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CodecServerError';
  }
}

export function fromJsonPayload(p: JsonPayload): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) metadata[k] = new Uint8Array(Buffer.from(v, 'base64'));
  return { metadata, data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')) };
}

export function toJsonPayload(p: Payload): { metadata: Record<string, string>; data: string } {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) metadata[k] = Buffer.from(v).toString('base64');
  return { metadata, data: Buffer.from(p.data ?? new Uint8Array()).toString('base64') };
}

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Shared-token mode: every /encode and /decode needs `Authorization: Bearer <token>`. */
  authToken?: string;
  /**
   * OIDC mode (codec/oidc.ts): the UI user's access token is verified and the namespace authorised
   * per request. Exclusive with `authToken`.
   */
  oidc?: OidcVerifier;
  /** The Web UI's origin, e.g. `http://127.0.0.1:8233`. */
  uiOrigin: string;
  logger: pino.Logger;
  bodyLimit?: number;
  /**
   * Host names (besides loopback's) a request may be addressed to (CODEC_ALLOWED_HOSTS). A browser
   * page on a hostile site can make its own name resolve to 127.0.0.1 (DNS rebinding) and then call
   * this server as same-origin: its requests still carry that name in `Host`, and are refused.
   */
  allowedHosts?: string[];
  /** Where its requests are counted (the process's metrics; absent: not counted). */
  metrics?: Registry;
}

/** The host name of a `Host` header (`[::1]:8802` → `::1`), lower case; undefined when absent. */
export function hostNameOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const h = header.trim().toLowerCase();
  const v6 = /^\[([^\]]+)\]/.exec(h);
  if (v6) return v6[1];
  return h.replace(/:\d+$/, '');
}

export interface CodecServer {
  listen(port: number, host?: string): Promise<{ url: string }>;
  close(): Promise<void>;
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export function createCodecServer(opts: CodecServerOptions): CodecServer {
  const { codec, authToken, uiOrigin, logger, oidc } = opts;
  if (authToken && oidc) throw new CodecServerError('codec_auth_required', 'one auth mode: a shared token or OIDC, not both');
  const expected = authToken ? digest(`Bearer ${authToken}`) : undefined;
  const app = Fastify({ bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT, logger: false });
  if (opts.metrics) countHttpRequests(app, opts.metrics, 'codec');

  const send = (reply: FastifyReply, status: number, code: CodecServerErrorCode, message: string) => reply.code(status).send({ code, message });

  // CORS on every answer (errors included) so the UI can read the failure.
  app.addHook('onRequest', async (_req, reply) => {
    reply.header('Access-Control-Allow-Origin', uiOrigin);
    reply.header('Access-Control-Allow-Credentials', 'true');
    reply.header('Access-Control-Allow-Headers', 'Content-Type, Authorization, X-Namespace');
    reply.header('Access-Control-Allow-Methods', 'POST, OPTIONS');
    reply.header('Vary', 'Origin');
  });

  const allowedHosts = new Set([...LOOPBACK, ...(opts.allowedHosts ?? []).map((h) => h.toLowerCase())]);
  app.addHook('onRequest', async (req, reply) => {
    const host = hostNameOf(req.headers.host);
    if (host !== undefined && allowedHosts.has(host)) return;
    logger.warn({ code: 'codec_bad_host', path: req.url }, 'codec request refused: Host not allowed');
    return send(reply, 421, 'codec_bad_host', 'this server does not answer for that Host (CODEC_ALLOWED_HOSTS lists the names it answers for)');
  });

  // Preflight carries no credentials: answer it before the auth check.
  app.options('/*', async (_req, reply) => reply.header('Access-Control-Max-Age', '600').code(204).send());

  app.addHook('preHandler', async (req, reply) => {
    if (!expected || req.method === 'OPTIONS') return;
    const given = req.headers.authorization;
    // Compare digests: equal length, constant time.
    if (!given || !timingSafeEqual(digest(given), expected)) {
      logger.warn({ code: 'codec_unauthorized', path: req.url }, 'codec request refused');
      return send(reply, 401, 'codec_unauthorized', 'missing or wrong Authorization bearer token');
    }
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || err instanceof SyntaxError) {
      return send(reply, 400, 'codec_bad_json', 'request body is not valid JSON');
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return send(reply, 413, 'codec_body_too_large', `request body exceeds ${opts.bodyLimit ?? DEFAULT_BODY_LIMIT} bytes`);
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return send(reply, 415, 'codec_bad_request', 'Content-Type must be application/json');
    }
    if (err instanceof CodecError) {
      logger.warn({ code: err.code, keyId: err.keyId, path: req.url }, 'codec failed');
      return send(reply, 422, err.code, err.message);
    }
    logger.error({ err, path: req.url }, 'codec server error');
    return send(reply, 500, 'codec_internal_error', 'internal error');
  });

  const handler = (op: 'encode' | 'decode') => async (req: FastifyRequest, reply: FastifyReply) => {
    let subject: string | undefined;
    if (oidc) {
      const fromPath = (req.params as { namespace?: string }).namespace;
      const fromHeader = req.headers['x-namespace'];
      try {
        ({ subject } = await oidc.authorize(req.headers.authorization, fromPath ?? (typeof fromHeader === 'string' ? fromHeader : undefined), op));
      } catch (e) {
        if (!(e instanceof CodecAccessError)) throw e;
        logger.warn({ code: e.code, path: req.url }, 'codec request refused');
        return send(reply, e.status, e.code, e.message);
      }
    }
    const parsed = payloadsBodySchema.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return send(reply, 400, 'codec_bad_request', `expected {payloads: [{metadata, data}]}: ${issue.path.join('.') || 'body'}: ${issue.message}`);
    }
    const input = parsed.data.payloads.map(fromJsonPayload);
    const output = op === 'encode' ? await codec.encode(input) : await codec.decode(input);
    logger.debug({ op, count: input.length, namespace: req.headers['x-namespace'], subject }, 'codec request');
    return reply.code(200).send({ payloads: output.map(toJsonPayload) });
  };

  for (const op of ['encode', 'decode'] as const) {
    app.post(`/${op}`, handler(op));
    app.post(`/:namespace/${op}`, handler(op));
  }

  return {
    async listen(port: number, host = '127.0.0.1') {
      // Without a token the server must not be reachable beyond this machine.
      if (!authToken && !oidc && !LOOPBACK.has(host)) {
        throw new CodecServerError('codec_auth_required', `CODEC_AUTH_TOKEN or CODEC_OIDC_ISSUER is required to listen on ${host} (non-loopback)`);
      }
      await app.listen({ port, host });
      const addr = app.server.address();
      const bound = typeof addr === 'object' && addr ? addr.port : port;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      const url = `http://${shownHost}:${bound}`;
      logger.info({ url, auth: oidc ? 'oidc' : authToken ? 'shared-token' : 'none (loopback)', uiOrigin }, 'codec server listening');
      return { url };
    },
    async close() {
      await app.close();
    },
  };
}
