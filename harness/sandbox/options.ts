import { z } from 'zod';
import type { Config } from '../../config';

const rate = z.number().min(0).max(1);
const ms = z.number().int().min(0);

export const supplierStatusSchema = z.enum(['ONGOING', 'PAUSED', 'COMPLETE']);
export type SupplierStatus = z.infer<typeof supplierStatusSchema>;

export const supplierSeedSchema = z.object({
  code: z.string().min(1),
  documentRoot: z.string(),
  status: supplierStatusSchema.default('ONGOING'),
});
export type SupplierSeed = z.infer<typeof supplierSeedSchema>;

/** Fault knobs: initial values come from options, `PUT /admin/faults` changes them at run time. */
export const faultsSchema = z.object({
  error5xxRate: rate.default(0),
  error429Rate: rate.default(0),
  retryAfterSeconds: z.number().int().min(0).default(1),
  dropConnectionRate: rate.default(0),
  /** Share of accepted schedule calls whose answer is lost (the import exists; the client sees a dropped connection or a 502). */
  responseLostRate: rate.default(0),
  latencyMs: ms.default(0),
  /**
   * The blind-resend trap (0 = off): an import whose schedule answer did not reach the client (lost
   * by `responseLostRate`, or the client gone first) stays PENDING this long, and a schedule repeated
   * while an import is live opens a second import instead of the idempotent 201. A client that
   * schedules again without reading the status first shows up as `import_process_count` 2.
   */
  blindResendTrapMs: ms.default(0),
  /**
   * The tenant's optional concurrency limit (sandbox/concurrency-limit.ts): accounts being processed
   * at once (scheduled, import not yet ended); a schedule call past it gets 429. 0: no limit.
   * The time each account is processed is `processingDelayMs` (+ jitter), so capacity = limit / that.
   */
  concurrencyLimit: z.number().int().min(0).default(0),
  /** Retry-After (seconds) on the limit's 429; null: none, as the spec documents none. */
  concurrencyRetryAfterSeconds: z.number().int().min(0).nullable().default(null),
  /** Extra delay for schedule calls only (a chaos run needs schedule calls in flight to cut off). */
  scheduleLatencyMs: ms.default(0),
  latencyJitterMs: ms.default(0),
  tokenTtlSeconds: z.number().int().positive().default(3600),
  /** Shifts the sandbox's clock for token expiry, so a test sees a token expire without waiting for it. */
  clockOffsetSeconds: z.number().int().min(0).default(0),
  processingDelayMs: ms.default(500),
  /** Each import's processing delay is processingDelayMs plus a uniform share of this (a tenant's queue is not a metronome). */
  processingDelayJitterMs: ms.default(0),
  eventDelayMs: ms.default(0),
  eventDropRate: rate.default(0),
  eventDuplicateRate: rate.default(0),
  /** Share of events held back a random time in [eventLateMinMs, eventLateMaxMs] on top of eventDelayMs. */
  eventLateRate: rate.default(0),
  eventLateMinMs: ms.default(30_000),
  eventLateMaxMs: ms.default(120_000),
  eventReorder: z.boolean().default(false),
  /** With reorder on, events are held until this many are due (or the hold time passes), then shuffled. */
  eventReorderWindow: z.number().int().min(2).max(100).default(5),
  eventReorderHoldMs: ms.default(1000),
  /** Share of accounts whose `GET accounts/<number>/` record shows `accountAlterField` altered (reconciliation tests). */
  accountAlterRate: rate.default(0),
  /** Dot path into the account record, e.g. `properties.0.electricity_meter_points.0.agreements.0.tariff_code` or `properties.0.address_line_1`. */
  accountAlterField: z.string().min(1).default('properties.0.electricity_meter_points.0.agreements.0.tariff_code'),
  /** Dot paths (`*` for every index) left out of every account record: a tenant whose record lacks that section. */
  accountOmitFields: z.array(z.string().min(1)).default([]),
  /** Adds `customers` (names) and `balance` to the account record: not in the documented record (assumed). */
  accountRecordExtras: z.boolean().default(false),
  /** Share of accounts whose GraphQL `account` read-back shows `balance` and each ledger's `balance` with the sign flipped. */
  graphqlFlipBalanceRate: rate.default(0),
  /** Share of accounts whose GraphQL `account` read-back shows the first customer's `familyName` altered (`<name>-ALTERED`). */
  graphqlAlterNameRate: rate.default(0),
  /** Share of post-import items accepted but then refused (`post_import.error`, code `post_import_forced_error`). */
  postImportErrorRate: rate.default(0),
  /** The switch (sandbox/supply/): the time a meter point takes for each status step after its flow is accepted. */
  supplyStepMs: ms.default(1000),
  /** Shares of meter points whose flow is refused (REGISTRATION_FLOW_ERROR), that are objected to, or rejected; a forced cohort (forced outcomes, by MPxN) wins. */
  registrationRefuseRate: rate.default(0),
  registrationObjectRate: rate.default(0),
  registrationRejectRate: rate.default(0),
});
export type Faults = z.infer<typeof faultsSchema>;
export const faultsPatchSchema = faultsSchema.partial().strict();

export const eventTargetsSchema = z.object({
  webhookUrl: z.url().optional(),
  webhookSecret: z.string().min(1).optional(),
  /** As an EventBridge connection with API_KEY authorization: this header and value on every call. */
  webhookApiKeyHeader: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/)
    .optional(),
  webhookApiKey: z.string().min(1).optional(),
  sqsQueueUrl: z.string().min(1).optional(),
});
export type EventTargets = z.infer<typeof eventTargetsSchema>;
/** `null` clears a target. */
export const eventTargetsPatchSchema = z
  .object({
    webhookUrl: z.url().nullable(),
    webhookSecret: z.string().min(1).nullable(),
    webhookApiKeyHeader: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/)
      .nullable(),
    webhookApiKey: z.string().min(1).nullable(),
    sqsQueueUrl: z.string().min(1).nullable(),
  })
  .partial()
  .strict();

export const sandboxOptionsSchema = z.object({
  bucket: z.string().min(1).default('kraken-platform-documents'),
  organizationSecretKey: z.string().min(1).optional(),
  dataImportKey: z.string().min(1).optional(),
  /** HS256 key for issued JWTs; random per start when absent (tokens then die with the process). */
  jwtSecret: z.string().min(16).optional(),
  refreshTokenTtlSeconds: z
    .number()
    .int()
    .positive()
    .default(7 * 24 * 3600),
  suppliers: z.array(supplierSeedSchema).default([{ code: 'DEMO-SUPPLIER', documentRoot: 'migrations/demo-supplier', status: 'ONGOING' }]),
  faults: faultsSchema.prefault({}),
  eventTargets: eventTargetsSchema.prefault({}),
  /** How long a webhook delivery is retried (with backoff) before the event is marked failed. */
  webhookRetryForMs: ms.default(60_000),
  webhookTimeoutMs: z.number().int().positive().default(5_000),
  seed: z.number().int().default(1),
  pollIntervalMs: z.number().int().positive().default(100),
  processingBatchSize: z.number().int().positive().default(50),
  /** A claimed import or event whose worker died is picked up again after this lease. */
  leaseMs: z.number().int().positive().default(30_000),
  eventSource: z.string().default('kraken.data-import'),
  eventAccount: z
    .string()
    .regex(/^\d{12}$/)
    .default('123456789012'),
  eventRegion: z.string().default('eu-west-2'),
  /** Allowed clock skew for `schedule_window_start` "not in the past". */
  windowStartToleranceMs: ms.default(5_000),
  bodyLimitBytes: z
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /** Strict mode: every request checked against the contract; a violation is answered 4xx and recorded. */
  strict: z.boolean().default(false),
});
export type SandboxOptions = z.infer<typeof sandboxOptionsSchema>;
export type SandboxOptionsInput = z.input<typeof sandboxOptionsSchema>;

export function sandboxOptionsFromConfig(cfg: Config, extra: Partial<SandboxOptionsInput> = {}): SandboxOptions {
  const supplierCode = cfg.IMPORT_SUPPLIER_CODE;
  return sandboxOptionsSchema.parse({
    bucket: cfg.PLATFORM_BUCKET,
    organizationSecretKey: cfg.PLATFORM_ORGANIZATION_SECRET_KEY,
    dataImportKey: cfg.PLATFORM_API_KEY,
    seed: cfg.SANDBOX_SEED,
    suppliers: [{ code: supplierCode, documentRoot: `migrations/${supplierCode.toLowerCase()}`, status: 'ONGOING' }],
    faults: {
      error5xxRate: cfg.SANDBOX_FAULT_5XX_RATE,
      error429Rate: cfg.SANDBOX_FAULT_429_RATE,
      retryAfterSeconds: cfg.SANDBOX_FAULT_RETRY_AFTER_SECONDS,
      concurrencyLimit: cfg.SANDBOX_CONCURRENCY_LIMIT,
      concurrencyRetryAfterSeconds: cfg.SANDBOX_CONCURRENCY_RETRY_AFTER_SECONDS ?? null,
      dropConnectionRate: cfg.SANDBOX_FAULT_DROP_CONNECTION_RATE,
      responseLostRate: cfg.SANDBOX_FAULT_RESPONSE_LOST_RATE,
      latencyMs: cfg.SANDBOX_LATENCY_MS,
      latencyJitterMs: cfg.SANDBOX_LATENCY_JITTER_MS,
      tokenTtlSeconds: cfg.SANDBOX_TOKEN_TTL_SECONDS,
      processingDelayMs: cfg.SANDBOX_PROCESSING_DELAY_MS,
      processingDelayJitterMs: cfg.SANDBOX_PROCESSING_DELAY_JITTER_MS,
      eventDelayMs: cfg.SANDBOX_EVENT_DELAY_MS,
      eventDropRate: cfg.SANDBOX_EVENT_DROP_RATE,
      eventDuplicateRate: cfg.SANDBOX_EVENT_DUPLICATE_RATE,
      eventLateRate: cfg.SANDBOX_EVENT_LATE_RATE,
      eventReorder: cfg.SANDBOX_EVENT_REORDER,
      accountRecordExtras: cfg.SANDBOX_ACCOUNT_RECORD_EXTRAS,
    },
    eventTargets: {
      webhookUrl: cfg.SANDBOX_EVENT_WEBHOOK_URL,
      webhookSecret: cfg.EVENTS_WEBHOOK_SECRET,
      webhookApiKeyHeader: cfg.EVENTS_WEBHOOK_API_KEY ? cfg.EVENTS_WEBHOOK_API_KEY_HEADER : undefined,
      webhookApiKey: cfg.EVENTS_WEBHOOK_API_KEY,
      sqsQueueUrl: cfg.EVENTS_QUEUE_URL,
    },
    eventRegion: cfg.S3_REGION,
    strict: cfg.SANDBOX_STRICT,
    ...extra,
  });
}
