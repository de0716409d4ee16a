import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type pg from 'pg';
import pino from 'pino';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { sandboxOptionsSchema, type SandboxOptionsInput } from './options';
import { loadSpec } from './openapi/spec';
import { createSpecValidator } from './openapi/validator';
import { createStrictChecker, type Violation } from './openapi/strict';
import { createPrng } from './prng';
import type { RuntimeState } from './state';
import { SupplierStore } from './suppliers';
import { ForcedOutcomeStore } from './forced-outcomes';
import { EventOutbox } from './events/outbox';
import { ImportProcessor } from './imports/processor';
import { registerGraphqlRoutes } from './routes/graphql';
import { registerDataImportRoutes } from './routes/data-import';
import { registerCatalogueRoutes } from './routes/catalogue';
import { registerAdminRoutes } from './routes/admin';
import { registerQueryRoutes } from './routes/query';
import { RequestWitness } from './witness';
import { POST_IMPORT_SCHEMAS, registerPostImportRoutes } from './routes/post-import';
import { registerRegistrationRoutes } from './routes/registration';
import { walkDue } from './supply/store';
import { startLoop, type Loop } from './loop';

export { sandboxOptionsSchema, sandboxOptionsFromConfig, type SandboxOptions, type SandboxOptionsInput } from './options';

export interface SandboxDeps {
  pool: pg.Pool;
  s3: S3Client;
  sqs?: SQSClient;
  options: SandboxOptionsInput;
  logger?: pino.Logger;
}

export interface Sandbox {
  app: FastifyInstance;
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The platform sandbox: auth, account import v2, public catalogue, events and fault injection,
 * with all state in Postgres schema `sandbox` (apply sandbox/migrations first). Background loops
 * (import processing, event delivery) start here and stop in `close()`.
 */
export async function createSandbox(deps: SandboxDeps): Promise<Sandbox> {
  const options = sandboxOptionsSchema.parse(deps.options);
  const logger = deps.logger ?? pino({ level: 'silent' });
  const { pool } = deps;

  const doc = loadSpec();
  const validator = createSpecValidator(doc, { compile: ['ValidateAccount', 'ScheduleAccountCreation', ...POST_IMPORT_SCHEMAS] });

  const state: RuntimeState = { faults: { ...options.faults }, targets: { ...options.eventTargets } };
  // Separate streams so one knob's draws do not shift another's sequence.
  const requestPrng = createPrng(options.seed);
  const eventPrng = createPrng(options.seed ^ 0x5eed);
  const jwtSecret = options.jwtSecret ?? randomBytes(32).toString('hex');

  const suppliers = new SupplierStore(pool);
  await suppliers.seed(options.suppliers);
  const forced = new ForcedOutcomeStore(pool);
  await forced.load();
  const witness = new RequestWitness(pool);
  await witness.load();

  const outbox = new EventOutbox({
    pool,
    sqs: deps.sqs,
    state,
    prng: eventPrng,
    envelope: { source: options.eventSource, account: options.eventAccount, region: options.eventRegion },
    logger,
    pollIntervalMs: options.pollIntervalMs,
    leaseMs: options.leaseMs,
    webhookRetryForMs: options.webhookRetryForMs,
    webhookTimeoutMs: options.webhookTimeoutMs,
  });
  const processor = new ImportProcessor({
    pool,
    s3: deps.s3,
    bucket: options.bucket,
    suppliers,
    forced,
    outbox,
    definitions: validator.definitions,
    logger,
    pollIntervalMs: options.pollIntervalMs,
    batchSize: options.processingBatchSize,
    leaseMs: options.leaseMs,
  });

  const app: FastifyInstance = Fastify({
    // tsc needs this cast (pino's Logger is not fastify's base logger type); the lint rule reads the wider contextual type.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    loggerInstance: logger as FastifyBaseLogger,
    // Per-request logs would cost throughput and say nothing the admin API does not.
    logController: new LogController({ disableRequestLogging: true }),
    // Nor a child logger a request: its bindings pass through the logger's redaction (2.6% of the
    // sandbox's CPU in a bench profile), and nothing logs through `req.log`.
    childLoggerFactory: (parent) => parent,
    bodyLimit: options.bodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setErrorHandler((err: { statusCode?: number; code?: string; message: string }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) logger.error({ err }, 'sandbox request failed');
    const code =
      err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'parse_error' : status === 500 ? 'server_error' : 'invalid';
    return reply.code(status).send({ detail: status === 500 ? 'A server error occurred.' : err.message, code });
  });
  app.get('/healthz', async () => ({ ok: true }));

  // Strict mode: the contract checks every request first (admin and health are not contract traffic).
  const violations: Violation[] = [];
  const MAX_VIOLATIONS = 1000;
  const record = (v: Omit<Violation, 'at'>[]) => {
    for (const x of v) if (violations.length < MAX_VIOLATIONS) violations.push({ at: new Date().toISOString(), ...x });
    logger.warn({ violations: v.map((x) => `${x.kind}: ${x.detail}`), path: v[0]?.path }, 'contract violation (strict mode)');
  };
  const violationBody = (v: Omit<Violation, 'at'>[]) => ({
    detail: 'The request does not follow the contract.',
    code: 'contract_violation',
    violations: v.map(({ kind, detail }) => ({ kind, detail })),
  });
  app.get('/admin/violations', async () => ({ strict: options.strict, count: violations.length, violations }));
  app.delete('/admin/violations', async () => {
    violations.length = 0;
    return { ok: true };
  });
  if (options.strict) {
    const checker = createStrictChecker(doc, validator);
    const exempt = (url: string) => url.startsWith('/admin/') || url === '/healthz';
    app.addHook('onRequest', async (req, reply) => {
      if (exempt(req.url)) return;
      const { route, violations: v } = checker.checkRequest(req.method, req.url, req.headers.authorization);
      if (v.length > 0) {
        record(v);
        const status = v.some((x) => x.kind === 'path') ? 404 : v.some((x) => x.kind === 'method') ? 405 : v.some((x) => x.kind === 'auth') ? 401 : 400;
        return reply.code(status).send(violationBody(v));
      }
      (req as unknown as { contractRoute?: unknown }).contractRoute = route;
    });
    app.addHook('preHandler', async (req, reply) => {
      const route = (req as unknown as { contractRoute?: Parameters<typeof checker.checkBody>[0] }).contractRoute;
      if (!route) return;
      const v = checker.checkBody(route, req.method, new URL(req.url, 'http://sandbox.invalid').pathname, req.body);
      if (v.length > 0) {
        record(v);
        return reply.code(400).send(violationBody(v));
      }
    });
  }

  registerGraphqlRoutes(app, {
    state,
    organizationSecretKey: options.organizationSecretKey,
    dataImportKey: options.dataImportKey,
    jwtSecret,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds,
    pool,
  });
  const authContext = { dataImportKey: options.dataImportKey, jwtSecret, nowSeconds: () => Math.floor(Date.now() / 1000) + state.faults.clockOffsetSeconds };
  registerDataImportRoutes(app, {
    pool,
    validator,
    suppliers,
    forced,
    state,
    prng: requestPrng,
    auth: authContext,
    windowStartToleranceMs: options.windowStartToleranceMs,
    witness,
  });
  registerPostImportRoutes(app, {
    pool,
    s3: deps.s3,
    bucket: options.bucket,
    validator,
    suppliers,
    outbox,
    state,
    prng: requestPrng,
    auth: authContext,
  });
  registerQueryRoutes(app, { pool, state, prng: requestPrng, auth: authContext });
  registerRegistrationRoutes(app, { pool, outbox, forced, state, prng: requestPrng, auth: authContext });
  let walker: Loop | undefined;
  registerCatalogueRoutes(app);
  const onLoopError = (what: string) => (e: unknown) => logger.error({ err: e }, `${what} loop failed; retrying`);
  let closed = false;
  const startLoops = () => {
    processor.start(onLoopError('import processing'));
    outbox.start(onLoopError('event delivery'));
    walker = startLoop(() => walkDue({ pool, outbox, stepMs: state.faults.supplyStepMs }), options.pollIntervalMs, onLoopError('supply walk'));
  };
  const stopLoops = async () => {
    await processor.stop();
    await outbox.stop();
    await walker?.stop();
    walker = undefined;
  };
  registerAdminRoutes(app, {
    pool,
    options,
    state,
    suppliers,
    forced,
    witness,
    reseed() {
      requestPrng.reseed(options.seed);
      eventPrng.reseed(options.seed ^ 0x5eed);
    },
    async whileLoopsPaused(fn) {
      await stopLoops();
      try {
        return await fn();
      } finally {
        if (!closed) startLoops();
      }
    },
  });
  startLoops();

  return {
    app,
    async listen(port: number, host = '127.0.0.1') {
      await app.listen({ port, host });
      const addr = app.server.address() as AddressInfo;
      return `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await stopLoops();
    },
  };
}
