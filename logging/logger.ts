import pino from 'pino';
import { z } from 'zod';
import type { Logger as TemporalLogger, LogLevel as TemporalLogLevel, LogMetadata } from '@temporalio/common';
import { getConfig, SECRET_NAMES } from '../config';

export const REDACTED = '[redacted]';

/** Credentials, whatever object carries them. */
const SECRET_KEYS = [
  'authorization',
  'Authorization',
  'cookie',
  'token',
  'accessToken',
  'refreshToken',
  'apiKey',
  'APIKey',
  'password',
  'secret',
  'organizationSecretKey',
  'databaseUrl',
  'connectionString',
  ...SECRET_NAMES,
];

/** Personal data of the platform's account payload. `payload` itself: a whole account must never be logged. */
const PERSONAL_KEYS = [
  'given_name',
  'family_name',
  'email',
  'mobile',
  'landline',
  'phone',
  'date_of_birth',
  'billing_name',
  ...[1, 2, 3, 4, 5].map((n) => `billing_address${n}`),
  ...[1, 2, 3, 4, 5].map((n) => `supply_address${n}`),
  'payload',
];

/** Every secret key name, lower case, plus the headers that carry one: censored at any depth scrubDeep walks. */
const SECRET_KEY_NAMES = new Set([...SECRET_KEYS, 'x-api-key', 'x-kraken-signature', 'proxy-authorization'].map((k) => k.toLowerCase()));

/** Fields of an error that can quote data: Postgres's `detail` ("Key (…)=(…) already exists"), a query's parameters. */
const ERROR_FIELDS_DROPPED = ['detail', 'parameters', 'where'];

// Top level, one and two levels deep (array indices count as a level: `customers.*.email`).
export const REDACT_PATHS: string[] = [...new Set([...SECRET_KEYS, ...PERSONAL_KEYS])].flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);

// pino's redact matches keys, not values: a password inside a connection string needs its own pass.
const CONNECTION_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^:@/\s]+):[^@\s]*@/gi;

export function scrubConnectionStrings(s: string): string {
  return s.replace(CONNECTION_PASSWORD, `$1:${REDACTED}@`);
}

function scrubDeep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubConnectionStrings(value);
  if (depth <= 0 || value === null || typeof value !== 'object' || value instanceof Error) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const s = scrubDeep(v, depth - 1);
      changed ||= s !== v;
      return s;
    });
    return changed ? out : value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  // Copy on write: never mutate the caller's object.
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const s = SECRET_KEY_NAMES.has(k.toLowerCase()) && v !== undefined && v !== null ? REDACTED : scrubDeep(v, depth - 1);
    if (s !== v) {
      out ??= { ...(value as Record<string, unknown>) };
      out[k] = s;
    }
  }
  return out ?? value;
}

export interface CreateLoggerOptions {
  level?: string;
  destination?: pino.DestinationStream;
}

export function createLogger(name: string, opts: CreateLoggerOptions = {}): pino.Logger {
  const options: pino.LoggerOptions = {
    name,
    level: opts.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: {
      // The std serializer's result has its own prototype: copy it so scrubDeep walks it.
      err: (e: unknown) => {
        const out: Record<string, unknown> = { ...pino.stdSerializers.err(e as Error) };
        for (const k of ERROR_FIELDS_DROPPED) delete out[k];
        return scrubDeep(out, 6);
      },
    },
    formatters: {
      log: (obj) => scrubDeep(obj, 8) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((a) => (typeof a === 'string' ? scrubConnectionStrings(a) : a));
        return method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

// ---- platform errors -------------------------------------------------------------------------

const fieldErrorSchema = z.object({
  code: z.string(),
  attr: z.string().nullish(),
  detail: z.string().nullish(),
});

/** The platform's 400 body: `{detail, code, errors: [{detail, code, attr}]}` (errors optional). */
const platformErrorBodySchema = z.object({
  code: z.string(),
  detail: z.string().nullish(),
  errors: z.array(fieldErrorSchema).optional(),
});

type PlatformErrorBody = z.infer<typeof platformErrorBodySchema>;

function findPlatformBody(err: unknown): PlatformErrorBody | undefined {
  // An Error with a `code` (ECONNRESET…) is not a platform body; its `body` may hold one.
  const candidates: unknown[] = err instanceof Error ? [] : [err];
  if (err && typeof err === 'object') {
    const o = err as Record<string, unknown>;
    candidates.push(o.body, o.data, o.response, o.cause);
  }
  for (const c of candidates) {
    const parsed = platformErrorBodySchema.safeParse(c);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/**
 * Logs a platform error by its stable codes and attrs at warn level. `detail` prose can quote the
 * rejected value (a phone number, a name), so it goes to a separate debug record only.
 */
export function logPlatformError(logger: pino.Logger, err: unknown, msg = 'platform error'): void {
  const body = findPlatformBody(err);
  const status = err && typeof err === 'object' && typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : undefined;
  if (!body) {
    const e = err instanceof Error ? err : undefined;
    const code = err && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
    logger.warn({ code: typeof code === 'string' ? code : 'unknown_error', status, errName: e?.name }, msg);
    if (e) logger.debug({ err: e }, `${msg} (detail)`);
    return;
  }
  logger.warn({ code: body.code, status, errors: body.errors?.map((f) => ({ code: f.code, attr: f.attr ?? undefined })) }, msg);
  logger.debug(
    {
      code: body.code,
      detail: body.detail ?? undefined,
      errors: body.errors?.map((f) => ({ code: f.code, attr: f.attr ?? undefined, detail: f.detail ?? undefined })),
    },
    `${msg} (detail)`,
  );
}

// ---- Temporal SDK logs ----------------------------------------------------------------------

const TEMPORAL_LEVELS: Record<TemporalLogLevel, pino.Level> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

// Errors logged from the workflow sandbox come from another realm (and through a sink that keeps
// only name/message/stack): duck-type rather than instanceof.
function describeError(e: unknown, depth = 2): Record<string, unknown> {
  if (!e || typeof e !== 'object') return { errName: typeof e };
  const o = e as { name?: unknown; type?: unknown; code?: unknown; cause?: unknown };
  return {
    errName: typeof o.name === 'string' ? o.name : 'unknown',
    failureType: typeof o.type === 'string' ? o.type : undefined,
    code: typeof o.code === 'string' ? o.code : undefined,
    cause: depth > 0 && o.cause && typeof o.cause === 'object' ? describeError(o.cause, depth - 1) : undefined,
  };
}

/**
 * A Temporal `Logger` (for `Runtime.install({ logger })`) writing through pino with redaction.
 * The SDK logs a failed workflow's error, whose message quotes personal data and which pino's
 * key-based redaction cannot see: the message and stack go to debug only.
 */
export function createTemporalLogger(logger: pino.Logger): TemporalLogger {
  const write = (level: TemporalLogLevel, message: string, meta?: LogMetadata) => {
    const target = TEMPORAL_LEVELS[level] ?? 'info';
    const { error, ...rest } = (meta ?? {}) as Record<string, unknown>;
    if (error === undefined) return logger[target](rest, message);
    logger[target]({ ...rest, error: describeError(error) }, message);
    logger.debug({ ...rest, err: error }, `${message} (detail)`);
  };
  return {
    log: write,
    trace: (m, meta) => write('TRACE', m, meta),
    debug: (m, meta) => write('DEBUG', m, meta),
    info: (m, meta) => write('INFO', m, meta),
    warn: (m, meta) => write('WARN', m, meta),
    error: (m, meta) => write('ERROR', m, meta),
  };
}

// ---- root logger -----------------------------------------------------------------------------

let root: pino.Logger | undefined;

/** Created on first use so importing this module never reads configuration. */
export function getRootLogger(): pino.Logger {
  root ??= createLogger('kraken-migrate', { level: getConfig().LOG_LEVEL });
  return root;
}
