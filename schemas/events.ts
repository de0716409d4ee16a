import { z } from 'zod';

/**
 * The platform's `data_import.*` events (platform-event-catalogue.md, all v1) and the EventBridge
 * envelope they arrive in.
 *
 * Where type and version live is not documented beyond "each event has an event type and a payload
 * version". We read the type from `detail-type`, which may also carry the catalogue identifier
 * `<type>-<version>` (e.g. `data_import.import_process.complete-v1`). The version is taken, in order,
 * from `detail.version` / `detail.payload_version`, else that identifier suffix, else assumed to be the
 * type's only catalogued version. Payload fields not in the catalogue are dropped; missing required
 * ones make the event `unknown` (reason `invalid_detail`), never an exception.
 */

const req = z.string();

export const dataImportEventSchemas = {
  'data_import.import_process.cancelled': {
    v1: z.object({ resource_type: req, external_identifier: req, expiry_window_end: req }),
  },
  'data_import.import_process.complete': {
    v1: z.object({ resource_type: req, external_identifier: req, identifier: req }),
  },
  'data_import.import_process.dry_run_complete': {
    v1: z.object({ resource_type: req, external_identifier: req }),
  },
  'data_import.import_process.dry_run_error': {
    v1: z.object({ resource_type: req, external_identifier: req, error_code: req, error_detail: req }),
  },
  'data_import.import_process.error': {
    v1: z.object({ resource_type: req, external_identifier: req, error_code: req, error_detail: req }),
  },
  'data_import.import_process.post_import.completed': {
    v1: z.object({
      resource_type: req,
      import_process_resource_type: req,
      import_process_external_identifier: req,
      identifier: req,
    }),
  },
  'data_import.import_process.post_import.error': {
    v1: z.object({
      resource_type: req,
      import_process_resource_type: req,
      import_process_external_identifier: req,
      error_code: req,
      error_detail: req,
    }),
  },
  'data_import.order_process.cancelled': {
    v1: z.object({ external_order_id: req, expiry_window_end: req }),
  },
  'data_import.order_process.complete': {
    v1: z.object({ external_order_id: req, process_id: req }),
  },
  'data_import.order_process.error': {
    v1: z.object({ external_order_id: req, error_code: req, error_detail: req }),
  },
} as const;

export type DataImportEventType = keyof typeof dataImportEventSchemas;
export const DATA_IMPORT_EVENT_TYPES = Object.keys(dataImportEventSchemas) as DataImportEventType[];

const joinProcess = { account_number: req, join_supplier_process_number: req, subtype: req, supply_points: z.array(z.object({ external_identifier: req })) };
/**
 * The switch's supply lifecycle (catalogue, "Supply lifecycle": JP = account_number,
 * join_supplier_process_number; the points by MPxN): what the tool needs to route them to the
 * account's supply workflow (domain/event-types.ts).
 */
export const lifecycleEventSchemas = {
  'lifecycle.join-supplier.requested': { v1: z.object(joinProcess) },
  'lifecycle.join-supplier.completed': { v1: z.object(joinProcess) },
  'lifecycle.join-supplier.cancelled': { v1: z.object(joinProcess) },
  'lifecycle.join-supplier.reversed': { v1: z.object(joinProcess) },
} as const;

/** Every event type the tool reads. */
const eventSchemas = { ...dataImportEventSchemas, ...lifecycleEventSchemas };
export type KnownEventType = keyof typeof eventSchemas;

/** Version labels the catalogue uses. */
const VERSION_LABELS = ['v1', 'v2', 'v3', 'v-alpha1', '1.0.0'];

/** EventBridge's envelope; only `detail-type` and `detail` are needed to make sense of an event. */
export const eventEnvelopeSchema = z.object({
  version: z.string().optional(),
  id: z.string().optional(),
  'detail-type': z.string().min(1),
  source: z.string().optional(),
  account: z.string().optional(),
  time: z.string().optional(),
  region: z.string().optional(),
  resources: z.array(z.string()).optional(),
  detail: z.record(z.string(), z.unknown()),
});
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;

type VersionsOf<T extends KnownEventType> = keyof (typeof eventSchemas)[T] & string;

export type KnownEvent = {
  [T in KnownEventType]: {
    [V in VersionsOf<T>]: {
      kind: 'known';
      type: T;
      version: V;
      id?: string;
      time?: string;
      detail: z.infer<(typeof eventSchemas)[T][V & keyof (typeof eventSchemas)[T]]>;
      envelope: EventEnvelope;
    };
  }[VersionsOf<T>];
}[KnownEventType];

export type UnknownEventReason = 'not_json' | 'not_an_object' | 'invalid_envelope' | 'foreign_type' | 'unknown_version' | 'invalid_detail';

export type UnknownEvent = { kind: 'unknown'; reason: UnknownEventReason; type?: string; raw: unknown };
export type ParsedEvent = KnownEvent | UnknownEvent;

function splitDetailType(detailType: string): { type: string; version?: string } {
  if (detailType in eventSchemas) return { type: detailType };
  for (const label of VERSION_LABELS) {
    const suffix = `-${label}`;
    if (detailType.endsWith(suffix)) return { type: detailType.slice(0, -suffix.length), version: label };
  }
  return { type: detailType };
}

function versionIn(detail: Record<string, unknown>): string | undefined {
  for (const key of ['version', 'payload_version']) {
    const v = detail[key];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

/**
 * Where the catalogue payload sits in `detail` is not documented: directly, or wrapped with its type
 * and version (`{event_type, version, payload: {…}}`, as some buses publish). Accept both.
 */
function payloadOf(detail: Record<string, unknown>): unknown {
  const inner = detail.payload;
  return typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? inner : detail;
}

/**
 * Parses one delivery (the envelope object, or its JSON text as an SQS body carries it).
 * Never throws.
 */
export function parseEvent(raw: unknown): ParsedEvent {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return { kind: 'unknown', reason: 'not_json', raw };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'unknown', reason: 'not_an_object', raw };

  const envelope = eventEnvelopeSchema.safeParse(value);
  if (!envelope.success) {
    const detailType = (value as Record<string, unknown>)['detail-type'];
    return { kind: 'unknown', reason: 'invalid_envelope', type: typeof detailType === 'string' ? detailType : undefined, raw };
  }

  const { type, version: suffixVersion } = splitDetailType(envelope.data['detail-type']);
  if (!(type in eventSchemas)) return { kind: 'unknown', reason: 'foreign_type', type, raw };
  const eventType = type as KnownEventType;
  const versions = eventSchemas[eventType] as Record<string, z.ZodType>;
  const known = Object.keys(versions);
  const version = versionIn(envelope.data.detail) ?? suffixVersion ?? (known.length === 1 ? known[0] : undefined);
  if (version === undefined) return { kind: 'unknown', reason: 'unknown_version', type, raw };

  // A version the catalogue does not list (a newer one, say) is read by the fields it shares with a
  // listed version: the first listed schema whose fields it carries reads it; the version stays as sent.
  const candidates = version in versions ? [versions[version]] : known.map((k) => versions[k]);
  const detail = candidates.map((schema) => schema.safeParse(payloadOf(envelope.data.detail))).find((r) => r.success);
  if (!detail) return { kind: 'unknown', reason: version in versions ? 'invalid_detail' : 'unknown_version', type, raw };

  return {
    kind: 'known',
    type: eventType,
    version,
    id: envelope.data.id,
    time: envelope.data.time,
    detail: detail.data,
    envelope: envelope.data,
  } as KnownEvent;
}
