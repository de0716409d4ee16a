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

/** Every secret key name, lower case, plus the headers that carry one: censored at any depth, even under an allowed field. */
const SECRET_KEY_NAMES = new Set([...SECRET_KEYS, 'x-api-key', 'x-kraken-signature', 'proxy-authorization'].map((k) => k.toLowerCase()));

// Top level, one and two levels deep (array indices count as a level: `customers.*.email`): a second
// layer under the allow-list below, for the names known to be personal or secret.
export const REDACT_PATHS: string[] = [...new Set([...SECRET_KEYS, ...PERSONAL_KEYS])].flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);

// A key's name does not say a value holds a connection string: a password inside one needs its own pass.
const CONNECTION_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^:@/\s]+):[^@\s]*@/gi;

export function scrubConnectionStrings(s: string): string {
  return s.replace(CONNECTION_PASSWORD, `$1:${REDACTED}@`);
}

/**
 * The fields a log record may carry with their value: identifiers, codes, counts and states that
 * the code logs on purpose. Anything else is shown as `[redacted]` (numbers and booleans excepted:
 * counts and flags quote no one): a field added to a log call without being added here cannot
 * leak a customer's value, whatever it holds. Objects and arrays under an allowed field are walked
 * with the same rule, so `errors: [{code, attr}]` keeps its codes and an `account: {…}` its
 * identifiers only.
 */
export const SAFE_LOG_FIELDS = new Set([
  // ours (a test keeps this list in step with the fields the code logs: test/unit/logger/allow-list.test.ts)
  'account',
  'attempt',
  'attempts',
  'attr',
  'auth',
  'buildId',
  'code',
  'component',
  'count',
  'deploymentName',
  // How many schedule activities' event waits the events process ended (events/server.ts): a count.
  'ended',
  'errCode',
  'errName',
  'errors',
  'eventId',
  'eventType',
  'externalId',
  'failureType',
  'importProcessId',
  'keyId',
  'kind',
  'matchStatus',
  'messageId',
  'messages',
  // The node flags a worker was started without (workers/node-flags.ts): flag names, no data.
  'missingFlags',
  'namespace',
  'note',
  'op',
  'outcome',
  'path',
  'pgCode',
  'pid',
  'reason',
  'recorded',
  'rejected',
  'remoteAddress',
  'retryAfterMs',
  'runId',
  'signal',
  'sinceStart',
  'source',
  'sqs',
  'stage',
  'status',
  'subject',
  'supplierCode',
  'taskQueue',
  'uiOrigin',
  'url',
  'workflowId',
  // the plan and stop the line: names of waves and rules, a sign-off's operator, sample account numbers
  'by',
  'min',
  'planId',
  'rule',
  'sampleAccounts',
  'wave',
  'error',
  'err',
  'cause',
  // the sandbox's (harness) contract-violation summaries, over synthetic data
  'violations',
  // the Temporal SDK's log metadata
  'sdkComponent',
  'workflowType',
  'activityId',
  'activityType',
  'isLocal',
  'taskToken',
  'durationMs',
  'identity',
  'workerId',
  'state',
  'workflowRunId',
  'parentWorkflowId',
  'childWorkflowId',
  'scheduledTime',
  'startedTime',
  'name',
  'type',
  'level',
  'msg',
]);

/** The fields of an error that are kept: what failed and where, never what the failing call carried (`detail`, `where`, `parameters`, bodies). */
const SAFE_ERROR_FIELDS = ['type', 'message', 'stack', 'code', 'errno', 'syscall', 'status', 'statusCode', 'attr', 'failureType'] as const;
const MAX_LOGGED_STRING = 2000;

const isErrorLike = (v: object): v is Error => v instanceof Error || (typeof (v as Error).message === 'string' && typeof (v as Error).stack === 'string');

/** An error as its allowed fields (and its cause's), connection strings masked. */
function errorFields(e: Error, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { type: e.name ?? 'Error' };
  for (const k of SAFE_ERROR_FIELDS) {
    const v = (e as unknown as Record<string, unknown>)[k];
    if (k === 'type' && typeof v !== 'string') continue;
    if (typeof v === 'string') out[k] = scrubConnectionStrings(v.slice(0, MAX_LOGGED_STRING * 4));
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  const cause = (e as { cause?: unknown }).cause;
  if (depth > 0 && cause && typeof cause === 'object') out.cause = isErrorLike(cause) ? errorFields(cause, depth - 1) : allowListed(cause, depth - 1);
  return out;
}

/** The allow-list applied to a value logged under an allowed field (see SAFE_LOG_FIELDS). */
export function allowListed(value: unknown, depth = 8): unknown {
  if (typeof value === 'string') return scrubConnectionStrings(value.length > MAX_LOGGED_STRING ? `${value.slice(0, MAX_LOGGED_STRING)}…` : value);
  if (value === null || typeof value !== 'object') return value;
  if (isErrorLike(value)) return errorFields(value, 3);
  if (depth <= 0) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => allowListed(v, depth - 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (SECRET_KEY_NAMES.has(k.toLowerCase())) out[k] = v === null ? v : REDACTED;
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null) out[k] = v;
    else if (SAFE_LOG_FIELDS.has(k)) out[k] = allowListed(v, depth - 1);
    else out[k] = REDACTED;
  }
  return out;
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
    // pino's own err serializer would copy every enumerable field back (detail included): the allow-list below has done the work.
    serializers: { err: (e: unknown) => e },
    formatters: {
      // By allow-list (SAFE_LOG_FIELDS): errors by their allowed fields, anything unknown redacted.
      log: (obj) => allowListed(obj, 8) as Record<string, unknown>,
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
    // The SDK logs each activation and activity at trace and debug: below the level, nothing to build.
    if (!logger.isLevelEnabled(target)) return;
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
