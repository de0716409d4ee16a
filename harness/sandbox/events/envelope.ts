import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { isoSeconds } from '../time';

/**
 * `data_import.import_process.*` events (v1 payloads of the event catalogue) in the EventBridge
 * envelope. The catalogue gives every event a type and a payload version: the type goes in
 * `detail-type` (what EventBridge rules match on) and again in `detail.event_type`, the version in
 * `detail.version`, the catalogue payload in `detail.payload`.
 */
export const IMPORT_EVENT_TYPES = {
  complete: 'data_import.import_process.complete',
  error: 'data_import.import_process.error',
  dry_run_complete: 'data_import.import_process.dry_run_complete',
  dry_run_error: 'data_import.import_process.dry_run_error',
  cancelled: 'data_import.import_process.cancelled',
} as const;
/** Outcomes of items sent to the v1 post-import endpoints (notes, transactions, statements, payment instructions). */
export const POST_IMPORT_EVENT_TYPES = {
  completed: 'data_import.import_process.post_import.completed',
  error: 'data_import.import_process.post_import.error',
} as const;
/** The switch's supply lifecycle (catalogue, "Supply lifecycle"), keyed by the platform's account number. */
export const LIFECYCLE_EVENT_TYPES = {
  requested: 'lifecycle.join-supplier.requested',
  completed: 'lifecycle.join-supplier.completed',
  cancelled: 'lifecycle.join-supplier.cancelled',
} as const;
export type ImportEventType =
  | (typeof IMPORT_EVENT_TYPES)[keyof typeof IMPORT_EVENT_TYPES]
  | (typeof POST_IMPORT_EVENT_TYPES)[keyof typeof POST_IMPORT_EVENT_TYPES]
  | (typeof LIFECYCLE_EVENT_TYPES)[keyof typeof LIFECYCLE_EVENT_TYPES];

export const PAYLOAD_VERSION = 'v1';

const base = { resource_type: z.string(), external_identifier: z.string() };
const joinProcess = { account_number: z.string(), join_supplier_process_number: z.string(), subtype: z.string() };
const joinSupplyPoint = z.object({ external_identifier: z.string(), market_name: z.string(), requested_supply_start_date: z.string() });
const joinActivated = z.object({ external_identifier: z.string(), market_name: z.string(), confirmed_supply_start_date: z.string() });
const postImportBase = { resource_type: z.string(), import_process_resource_type: z.string(), import_process_external_identifier: z.string() };
export const importEventPayloadSchemas = {
  [IMPORT_EVENT_TYPES.complete]: z.object({ ...base, identifier: z.string() }),
  [IMPORT_EVENT_TYPES.error]: z.object({ ...base, error_code: z.string(), error_detail: z.string() }),
  [IMPORT_EVENT_TYPES.dry_run_complete]: z.object({ ...base }),
  [IMPORT_EVENT_TYPES.dry_run_error]: z.object({ ...base, error_code: z.string(), error_detail: z.string() }),
  [IMPORT_EVENT_TYPES.cancelled]: z.object({ ...base, expiry_window_end: z.string() }),
  [POST_IMPORT_EVENT_TYPES.completed]: z.object({ ...postImportBase, identifier: z.string() }),
  [POST_IMPORT_EVENT_TYPES.error]: z.object({ ...postImportBase, error_code: z.string(), error_detail: z.string() }),
  [LIFECYCLE_EVENT_TYPES.requested]: z.object({ ...joinProcess, supply_points: z.array(joinSupplyPoint), requested_at: z.string() }),
  [LIFECYCLE_EVENT_TYPES.completed]: z.object({ ...joinProcess, supply_points: z.array(joinActivated) }),
  [LIFECYCLE_EVENT_TYPES.cancelled]: z.object({ ...joinProcess, supply_points: z.array(joinSupplyPoint) }),
} as const;
export type ImportEventPayload<T extends ImportEventType> = z.infer<(typeof importEventPayloadSchemas)[T]>;

export const eventEnvelopeSchema = z.object({
  version: z.literal('0'),
  id: z.uuid(),
  'detail-type': z.string(),
  source: z.string(),
  account: z.string().regex(/^\d{12}$/),
  time: z.string(),
  region: z.string(),
  resources: z.array(z.string()),
  detail: z.object({
    event_type: z.string(),
    version: z.string(),
    payload: z.record(z.string(), z.unknown()),
  }),
});
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;

export interface EnvelopeContext {
  source: string;
  account: string;
  region: string;
}

export function buildEnvelope<T extends ImportEventType>(type: T, payload: ImportEventPayload<T>, ctx: EnvelopeContext, nowMs: number): EventEnvelope {
  const checked = importEventPayloadSchemas[type].parse(payload) as Record<string, unknown>;
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': type,
    source: ctx.source,
    account: ctx.account,
    time: isoSeconds(nowMs),
    region: ctx.region,
    resources: [],
    detail: { event_type: type, version: PAYLOAD_VERSION, payload: checked },
  };
}
