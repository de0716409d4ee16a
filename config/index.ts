import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { TIMING_DEFAULTS } from '../domain/timing-defaults';
import { parse as parseDotenv } from 'dotenv';
import { ConfigError } from './config-error';
import { isLoopbackHost, perimeterProblems } from './production-checks';

/**
 * The one configuration schema. Every environment variable the project reads is declared here,
 * and docker-compose.yml may only use names from it (a test checks). Values never come from code
 * defaults when they are secrets.
 */

/** The sandbox's default port, and its three platform URLs for any origin: defined once, here. */
export const DEFAULT_SANDBOX_PORT = 8800;
export const DEFAULT_SANDBOX_ORIGIN = `http://127.0.0.1:${DEFAULT_SANDBOX_PORT}`;
export function sandboxPlatformUrls(origin: string): { PLATFORM_BASE_URL: string; PLATFORM_V2_BASE_URL: string; PLATFORM_GRAPHQL_URL: string } {
  const o = origin.replace(/\/+$/, '');
  return { PLATFORM_BASE_URL: `${o}/v1/`, PLATFORM_V2_BASE_URL: `${o}/v2/`, PLATFORM_GRAPHQL_URL: `${o}/v1/graphql/` };
}

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');
const rate = (fallback: number) => z.coerce.number().min(0).max(1).default(fallback);
/** A comma-separated list of host names, trimmed and lower-cased (empty by default). */
const hostList = z
  .string()
  .default('')
  .transform((s) =>
    s
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
const optionalString = z.string().min(1).optional();

export const configSchema = z.object({
  KRAKEN_MIGRATE_MODE: z.enum(['development', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default('.data'),

  // Postgres: ledger, legacy source, events inbox, sandbox state. Unset = embedded Postgres.
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// connection URL')
    .optional(),
  PG_PORT: port(54329),
  PG_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * Days a finished run's personal data is kept in the ledger: `kraken-migrate db purge` (no
   * --run) purges the runs finished longer ago. Unset: nothing is purged by age unless asked.
   */
  LEDGER_RETENTION_DAYS: z.coerce.number().int().positive().optional(),
  /**
   * `db migrate` only (it runs as the owner): the password it gives the least-privilege role the
   * pipeline connects as (`kraken_migrate_app`, created by the migrations).
   */
  KRAKEN_MIGRATE_APP_DB_PASSWORD: z.string().min(16, 'at least 16 characters').optional(),

  // Temporal. The embedded stack's engine: the CLI's dev server (SQLite) or the full server on Postgres.
  KRAKEN_TEMPORAL_ENGINE: z.enum(['dev', 'server']).default('dev'),
  /** History shards of the embedded full server (fixed when its database is created). */
  TEMPORAL_HISTORY_SHARDS: z.coerce.number().int().min(1).max(1024).default(4),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('kraken-migrate'),
  TEMPORAL_UI_URL: z.string().default('http://127.0.0.1:8233'),
  TEMPORAL_PORT: port(7233),
  TEMPORAL_UI_PORT: port(8233),
  TEMPORAL_CLI_PATH: optionalString,
  TEMPORAL_TLS: bool(false),
  TEMPORAL_TLS_CERT_PATH: optionalString,
  TEMPORAL_TLS_KEY_PATH: optionalString,
  TEMPORAL_TLS_CA_PATH: optionalString,
  TEMPORAL_TLS_SERVER_NAME: optionalString,
  TEMPORAL_API_KEY: optionalString,
  /**
   * Hosts on a network only this installation's containers share (a compose network's service
   * names): production mode does not require TLS to them. Comma-separated; empty by default.
   */
  PRIVATE_NETWORK_HOSTS: hostList,
  /**
   * Worker Versioning: the worker deployment every worker of this installation belongs to (the
   * server refuses '.' and ':' in it, and a leading '__': service/worker/workerdeployment/util.go).
   */
  KRAKEN_DEPLOYMENT_NAME: z
    .string()
    .regex(/^(?!__)[A-Za-z0-9_-]{1,100}$/, "letters, digits, '-' and '_' only (no '.' or ':'), not starting with '__', at most 100")
    .default('kraken-migrate'),
  /** The worker's build ID; unset: `<package version>+<git commit>` (the image has no .git: set it at build time). */
  KRAKEN_BUILD_ID: z
    .string()
    .regex(/^(?!__)[A-Za-z0-9._+-]{1,100}$/, "letters, digits, '.', '_', '+' and '-' only, not starting with '__', at most 100")
    .optional(),

  // S3: the platform's document bucket (staging target) and where legacy documents live.
  S3_ENDPOINT: optionalString,
  S3_PORT: port(4566),
  S3_REGION: z.string().default('eu-west-2'),
  /** Both or neither: unset in production, the AWS default credential chain (role, AWS_* variables, profile); `local` in development. */
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_FORCE_PATH_STYLE: bool(true),
  PLATFORM_BUCKET: z.string().default('kraken-platform-documents'),
  SOURCE_DOCUMENTS_DIR: z.string().default('.data/source-documents'),
  MULTIPART_THRESHOLD_BYTES: z.coerce
    .number()
    .int()
    .min(5 * 1024 * 1024)
    .default(8 * 1024 * 1024),

  // SQS: where the platform's EventBridge rule delivers events. Unset = local queue.
  SQS_ENDPOINT: optionalString,
  EVENTS_QUEUE_URL: optionalString,
  EVENTS_QUEUE_NAME: z.string().default('kraken-data-import-events'),

  // The platform (a real tenant, or the sandbox).
  PLATFORM_BASE_URL: z.string().default(sandboxPlatformUrls(DEFAULT_SANDBOX_ORIGIN).PLATFORM_BASE_URL),
  PLATFORM_V2_BASE_URL: z.string().default(sandboxPlatformUrls(DEFAULT_SANDBOX_ORIGIN).PLATFORM_V2_BASE_URL),
  PLATFORM_GRAPHQL_URL: z.string().default(sandboxPlatformUrls(DEFAULT_SANDBOX_ORIGIN).PLATFORM_GRAPHQL_URL),
  PLATFORM_AUTH_MODE: z.enum(['token', 'jwt']).default('jwt'),
  PLATFORM_API_KEY: optionalString,
  PLATFORM_ORGANIZATION_SECRET_KEY: optionalString,
  /** Which obtainKrakenToken input obtains the first token; unset = the first one configured. */
  PLATFORM_TOKEN_INPUT: z.enum(['organizationSecretKey', 'APIKey', 'preSignedKey', 'refreshToken']).optional(),
  PLATFORM_PRESIGNED_KEY: optionalString,
  PLATFORM_REFRESH_TOKEN: optionalString,
  /** Ordinary REST endpoints (not data-import): `basic` = PLATFORM_API_KEY by HTTP Basic, `token` = the access token. */
  PLATFORM_REST_AUTH: z.enum(['token', 'basic']).default('token'),
  PLATFORM_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(50),
  /**
   * `adaptive` (the default): an account also takes a permit before its schedule call and keeps it while the
   * tenant processes it, from a window of accounts in processing every worker and run of the tenant
   * share, widened while the tenant accepts and narrowed on its 429s and 5xx (domain/platform-pace.ts;
   * docs/throughput.md); --concurrency stays each run's ceiling.
   * `fixed`: schedule calls go as fast as the queue's rate and the run's --concurrency allow.
   */
  PLATFORM_PACE: z.enum(['fixed', 'adaptive']).default('adaptive'),
  /** The adaptive window's first size for a tenant it has not met (accounts in processing at once). */
  PLATFORM_PACE_INITIAL_WINDOW: z.coerce.number().int().positive().default(4),
  /** The adaptive window's ceiling (accounts in processing at the tenant at once, every run together). */
  PLATFORM_MAX_IN_PROCESSING: z.coerce.number().int().positive().default(500),
  /** A permit whose account never records an outcome (its workflow terminated) is free again after this. */
  PLATFORM_PERMIT_LEASE_MINUTES: z.coerce.number().positive().default(60),
  /**
   * Workflows the main worker keeps in memory between their tasks (its sticky cache); an evicted one
   * replays its history at its next task. At least 2: the SDK has no cache of 1 (it makes it 2:
   * @temporalio/worker lib/worker-options.js), and its cache of 0 (sticky execution off) drops the
   * results of local activities still running when it evicts a run after each task (sdk-core
   * managed_run.rs warns so), which our run workflow uses: measured on 10 accounts without any fault,
   * 11 workflow tasks timed out (10 s each) where a cache of 2 had none.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce
    .number('a whole number of workflows')
    .int('a whole number of workflows')
    .min(2, 'at least 2 (0 turns sticky execution off, which drops local activity results in this SDK; 1 does not exist)')
    .default(1000),
  PLATFORM_HTTP_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** `ledgers` (the spec example's form) or `account` (the deprecated account-level balance fields). */
  PLATFORM_BALANCE_FIELDS: z.enum(['ledgers', 'account']).default('ledgers'),
  /** Tariff pre-flight against the public catalogue before scheduling (`false` leaves it to the platform). */
  PLATFORM_TARIFF_PREFLIGHT: bool(true),
  IMPORT_SUPPLIER_CODE: z.string().default('DEMO-SUPPLIER'),
  /** The supplier's document root on the platform (the operator tells you; the sandbox seeds the same). */
  IMPORT_SUPPLIER_DOCUMENT_ROOT: z.string().default('migrations/demo-supplier'),
  PHONE_DEFAULT_REGION: z.string().length(2).default('GB'),
  /** A JSON code mapping (legacy codes to platform codes) instead of source/default-mapping.json. */
  SOURCE_MAPPING_FILE: optionalString,

  // Outcome wait: how long to wait for an event before polling import status.
  OUTCOME_EVENT_WAIT_SECONDS: z.coerce.number().positive().default(TIMING_DEFAULTS.eventWaitSeconds),
  OUTCOME_POLL_MAX_SECONDS: z.coerce.number().positive().default(TIMING_DEFAULTS.pollMaxSeconds),
  // On a switch (run start --send-registration-flows): the back-off between reads of the meter point
  // statuses, doubling from the first to the second (tests run it in seconds).
  SUPPLY_POLL_MIN_SECONDS: z.coerce.number().positive().default(TIMING_DEFAULTS.supplyPollMinSeconds),
  SUPPLY_POLL_MAX_SECONDS: z.coerce.number().positive().default(TIMING_DEFAULTS.supplyPollMaxSeconds),

  /** Set by the stack: the worker writes its pid here once it polls (readiness, whatever LOG_LEVEL). */
  WORKER_READY_FILE: optionalString,

  // Metrics (docs/observability.md). Each long-running process (worker, events receiver, codec
  // server) serves Prometheus text at http://METRICS_ADDRESS/metrics; unset or empty: none. A worker serves
  // the Temporal SDK's own metrics there too, unless METRICS_OTLP_URL sends the SDK's to a collector.
  METRICS_ADDRESS: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'host:port (e.g. 127.0.0.1:9464, or 0.0.0.0:9464 in a container)')
      .optional(),
  ),
  METRICS_OTLP_URL: z
    .string()
    .regex(/^(grpcs?|https?):\/\//, 'an OTLP collector URL (grpc://, grpcs://, http:// or https://)')
    .optional(),
  /** The minutes of finished accounts a plan wave's measured rate (and so its projected end) is taken over. */
  METRICS_RATE_WINDOW_MINUTES: z.coerce.number().int().min(1).max(120).default(10),

  // Events receiver. The webhook authenticates an EventBridge API destination by the API-key header
  // its connection adds (the default); `hmac` checks X-Kraken-Signature for senders that sign bodies.
  EVENTS_PORT: port(8801),
  /** Loopback by default; a container sets 0.0.0.0 (its port is then published or proxied with TLS). */
  EVENTS_HOST: z.string().min(1).default('127.0.0.1'),
  EVENTS_WEBHOOK_AUTH: z.enum(['api-key', 'hmac']).default('api-key'),
  EVENTS_WEBHOOK_API_KEY: z.string().min(16, 'at least 16 characters').optional(),
  EVENTS_WEBHOOK_API_KEY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'an HTTP header name')
    .default('x-api-key')
    .transform((h) => h.toLowerCase()),
  EVENTS_WEBHOOK_SECRET: optionalString,
  EVENTS_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024),
  /** Refused deliveries a source may have in a burst before it is answered 429 (events/source-limiter.ts). */
  EVENTS_REJECTIONS_BURST: z.coerce.number().int().positive().default(20),
  /** Refused deliveries a source regains per minute. */
  EVENTS_REJECTIONS_PER_MINUTE: z.coerce.number().positive().default(30),
  /** The webhook is behind a proxy of ours: the client's address is read from X-Forwarded-For (for the per-source limit). */
  EVENTS_TRUST_PROXY: bool(false),

  // Payload encryption (Temporal data converter) and the UI codec server.
  CODEC_KEYS: optionalString,
  CODEC_KEY_FILE: optionalString,
  CODEC_PORT: port(8802),
  /** Anything but loopback needs CODEC_AUTH_TOKEN (the codec server refuses otherwise). */
  CODEC_HOST: z.string().min(1).default('127.0.0.1'),
  CODEC_AUTH_TOKEN: optionalString,
  /**
   * How the codec server decides who may decrypt: `oidc` verifies the Temporal UI user's access
   * token (a JWT from CODEC_OIDC_ISSUER, for CODEC_OIDC_AUDIENCE) and authorises the namespace;
   * `shared-token` checks CODEC_AUTH_TOKEN (or nothing on loopback). Unset: `oidc` when an issuer
   * is given. Production mode needs `oidc`, or `shared-token` stated outright (SECURITY.md).
   */
  CODEC_AUTH_MODE: z.enum(['oidc', 'shared-token']).optional(),
  CODEC_OIDC_ISSUER: z.url().optional(),
  CODEC_OIDC_AUDIENCE: optionalString,
  /** The issuer's JWKS; unset: discovered from the issuer (`.well-known/openid-configuration`). */
  CODEC_OIDC_JWKS_URL: z.url().optional(),
  /** The claim listing `namespace:role` permissions (Temporal's default claim mapper: `permissions`). */
  CODEC_OIDC_NAMESPACE_CLAIM: z.string().min(1).default('permissions'),
  /** Names the codec server answers for besides loopback's (its `Host` check against DNS rebinding). Comma-separated. */
  CODEC_ALLOWED_HOSTS: hostList,

  // The platform sandbox (only used when the project runs it)
  SANDBOX_PORT: port(DEFAULT_SANDBOX_PORT),
  SANDBOX_PROCESSING_DELAY_MS: z.coerce.number().int().min(0).default(500),
  SANDBOX_PROCESSING_DELAY_JITTER_MS: z.coerce.number().int().min(0).default(0),
  SANDBOX_FAULT_5XX_RATE: rate(0),
  SANDBOX_FAULT_429_RATE: rate(0),
  SANDBOX_FAULT_RETRY_AFTER_SECONDS: z.coerce.number().int().min(0).default(1),
  /** The tenant's optional limit on accounts in processing at once (0: none); past it a schedule call gets 429. */
  SANDBOX_CONCURRENCY_LIMIT: z.coerce.number().int().min(0).default(0),
  /** Retry-After on the limit's 429 (unset: none, as the spec documents none). */
  SANDBOX_CONCURRENCY_RETRY_AFTER_SECONDS: z.coerce.number().int().min(0).optional(),
  SANDBOX_FAULT_DROP_CONNECTION_RATE: rate(0),
  SANDBOX_FAULT_RESPONSE_LOST_RATE: rate(0),
  SANDBOX_LATENCY_MS: z.coerce.number().int().min(0).default(0),
  SANDBOX_LATENCY_JITTER_MS: z.coerce.number().int().min(0).default(0),
  SANDBOX_TOKEN_TTL_SECONDS: z.coerce.number().int().positive().default(3600),
  SANDBOX_EVENT_DROP_RATE: rate(0),
  SANDBOX_EVENT_DUPLICATE_RATE: rate(0),
  SANDBOX_EVENT_DELAY_MS: z.coerce.number().int().min(0).default(0),
  SANDBOX_EVENT_LATE_RATE: rate(0),
  SANDBOX_EVENT_REORDER: bool(false),
  /** The sandbox's account record also shows `customers` and `balance` (not in the documented record; assumed). */
  SANDBOX_ACCOUNT_RECORD_EXTRAS: bool(false),
  SANDBOX_EVENT_WEBHOOK_URL: optionalString,
  SANDBOX_SEED: z.coerce.number().int().default(1),
  /** Strict contract mode: every request checked against the contract, violations answered 4xx and recorded. */
  SANDBOX_STRICT: bool(false),
});

export type Config = z.infer<typeof configSchema>;

export { ConfigError };

/** Reads `.env` (if any) under the environment: the environment wins. */
export function loadEnv(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  const file = path.join(cwd, '.env');
  const fromFile = fs.existsSync(file) ? parseDotenv(fs.readFileSync(file)) : {};
  // Empty strings count as unset so `FOO=` in a shell does not fail a regex.
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') merged[k] = v;
  return merged;
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const known = Object.keys(configSchema.shape);
  const subset: Record<string, string | undefined> = {};
  for (const k of known) if (env[k] !== undefined && env[k] !== '') subset[k] = env[k];
  const result = configSchema.safeParse(subset);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((i) => {
        const name = String(i.path[0] ?? '?');
        const shown = SECRET_NAMES.has(name) ? '(hidden)' : JSON.stringify(subset[name]);
        return `${name}=${shown}: ${i.message}`;
      }),
    );
  }
  const cfg = result.data;
  const codecAuth = codecAuthProblems(cfg);
  if (cfg.KRAKEN_MIGRATE_MODE === 'production') {
    const problems: string[] = [...codecAuth];
    if (!cfg.CODEC_KEYS && !cfg.CODEC_KEY_FILE) problems.push('CODEC_KEYS or CODEC_KEY_FILE: required in production mode (payload encryption keys)');
    problems.push(...insecurePlatformUrls(cfg));
    problems.push(...perimeterProblems(cfg));
    if (problems.length > 0) throw new ConfigError(problems);
    return cfg;
  }
  if (codecAuth.length > 0) throw new ConfigError(codecAuth);
  // Development: the local S3/SQS stand-in's keys unless given.
  return { ...cfg, S3_ACCESS_KEY_ID: cfg.S3_ACCESS_KEY_ID ?? 'local', S3_SECRET_ACCESS_KEY: cfg.S3_SECRET_ACCESS_KEY ?? 'local' };
}

/** The codec server's auth mode as configured: `oidc` when an issuer is given, unless stated. */
export function codecAuthMode(cfg: Pick<Config, 'CODEC_AUTH_MODE' | 'CODEC_OIDC_ISSUER'>): 'oidc' | 'shared-token' {
  return cfg.CODEC_AUTH_MODE ?? (cfg.CODEC_OIDC_ISSUER ? 'oidc' : 'shared-token');
}

function codecAuthProblems(cfg: Config): string[] {
  const problems: string[] = [];
  const mode = codecAuthMode(cfg);
  if (mode === 'oidc') {
    if (!cfg.CODEC_OIDC_ISSUER) problems.push("CODEC_OIDC_ISSUER: required when CODEC_AUTH_MODE=oidc (the issuer of the Temporal UI users' tokens)");
    if (!cfg.CODEC_OIDC_AUDIENCE) problems.push("CODEC_OIDC_AUDIENCE: required with CODEC_OIDC_ISSUER (the audience the UI's access tokens are issued for)");
    if (cfg.CODEC_AUTH_TOKEN) problems.push('CODEC_AUTH_TOKEN: not used in OIDC mode; unset it (one auth mode at a time)');
  }
  if (cfg.KRAKEN_MIGRATE_MODE === 'production') {
    if (mode === 'shared-token' && cfg.CODEC_AUTH_MODE !== 'shared-token') {
      problems.push(
        "CODEC_AUTH_MODE: production mode verifies each Temporal UI user's OIDC token (set CODEC_OIDC_ISSUER and CODEC_OIDC_AUDIENCE); " +
          'state CODEC_AUTH_MODE=shared-token only when the UI and the codec server are published on loopback alone, with no UI login (every UI user is the operator at that machine)',
      );
    }
    for (const name of ['CODEC_OIDC_ISSUER', 'CODEC_OIDC_JWKS_URL'] as const) {
      const v = cfg[name];
      if (mode === 'oidc' && v && new URL(v).protocol !== 'https:' && !isLoopbackHost(new URL(v).hostname)) {
        problems.push(`${name}=${JSON.stringify(v)}: must be an https:// URL in production mode (the keys that decide who decrypts)`);
      }
    }
  }
  return problems;
}

const PLATFORM_URLS = ['PLATFORM_BASE_URL', 'PLATFORM_V2_BASE_URL', 'PLATFORM_GRAPHQL_URL'] as const;

/** The platform's API is HTTPS only (the API reference; sandbox/README.md records what it states): production refuses anything else at start-up. */
function insecurePlatformUrls(cfg: Config): string[] {
  return PLATFORM_URLS.filter((name) => {
    try {
      return new URL(cfg[name]).protocol !== 'https:';
    } catch {
      return true;
    }
  }).map((name) => `${name}=${JSON.stringify(cfg[name])}: must be an https:// URL in production mode (the platform API is HTTPS only)`);
}

let cached: Config | undefined;
export function getConfig(): Config {
  cached ??= parseConfig(loadEnv());
  return cached;
}

/** Names whose values are secrets: masked in `config print`, logs and errors. */
export const SECRET_NAMES = new Set([
  'DATABASE_URL',
  'KRAKEN_MIGRATE_APP_DB_PASSWORD',
  'TEMPORAL_API_KEY',
  'S3_SECRET_ACCESS_KEY',
  'PLATFORM_API_KEY',
  'PLATFORM_ORGANIZATION_SECRET_KEY',
  'PLATFORM_PRESIGNED_KEY',
  'PLATFORM_REFRESH_TOKEN',
  'EVENTS_WEBHOOK_SECRET',
  'EVENTS_WEBHOOK_API_KEY',
  'CODEC_KEYS',
  'CODEC_AUTH_TOKEN',
]);

export function maskedConfig(cfg: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(cfg)) {
    if (v === undefined) continue;
    if (k === 'DATABASE_URL' && typeof v === 'string') out[k] = maskUrlPassword(v);
    else out[k] = SECRET_NAMES.has(k) ? '***' : v;
  }
  return out;
}

/**
 * `postgres://user:secret@host/db` → `postgres://user:***@host/db`, and a password given as a
 * parameter (`?password=…`, `sslpassword`) masked too: the one way a connection URL is shown.
 */
export function maskUrlPassword(url: string): string {
  return url.replace(/:\/\/([^:@/]+):([^@]*)@/, '://$1:***@').replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1***');
}
