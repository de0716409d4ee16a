import { createHash } from 'node:crypto';
import type { ParsedEvent } from '../schemas/events';
import { z } from 'zod';
import { isLifecycleEvent, isPostImportEvent, LIFECYCLE_EVENT_TYPES, POST_IMPORT_EVENT_TYPES, TERMINAL_EVENT_TYPES } from '../domain/event-types';

/**
 * Pure mapping from a parsed delivery to the inbox row the ledger keeps. No I/O here so the
 * dedupe and routing keys can be tested on their own.
 */

export const MATCH_STATUSES = ['pending', 'matched', 'unmatched', 'ambiguous', 'late', 'unknown_type'] as const;
export const matchStatusSchema = z.enum(MATCH_STATUSES);
export type MatchStatus = z.infer<typeof matchStatusSchema>;

/** How a delivery reached the inbox. */
export const RECEIVED_VIA = ['webhook', 'sqs', 'test'] as const;
export type ReceivedVia = (typeof RECEIVED_VIA)[number];

/**
 * Event types an account workflow waits on (the workflow's own list), and which attempts they can
 * belong to: a type only real imports end on, only dry runs, or both (a cancelled window says
 * nothing about dry run vs real).
 */
const ROUTABLE: Record<string, { dryRun: boolean | null }> = Object.fromEntries(
  [...new Set([...TERMINAL_EVENT_TYPES.real, ...TERMINAL_EVENT_TYPES.dry])].map((t) => {
    const real = (TERMINAL_EVENT_TYPES.real as readonly string[]).includes(t);
    const dry = (TERMINAL_EVENT_TYPES.dry as readonly string[]).includes(t);
    return [t, { dryRun: real && dry ? null : dry }];
  }),
);
export const ROUTABLE_EVENT_TYPES = [...Object.keys(ROUTABLE), ...POST_IMPORT_EVENT_TYPES, ...LIFECYCLE_EVENT_TYPES];

/** undefined = not routed to account workflows; null = dry-run or real. */
export function attemptClassOf(eventType: string): { dryRun: boolean | null } | undefined {
  return ROUTABLE[eventType];
}

export interface InboxRecord {
  eventId: string;
  dedupeKey: string;
  eventType: string;
  payloadVersion: string | null;
  externalIdentifier: string | null;
  identifier: string | null;
  errorCode: string | null;
  /** `post_import.*` events: the item kind, stored apart (`raw` is sealed, and rematch filters on it). */
  resourceType?: string | null;
  raw: unknown;
  matchStatus: MatchStatus;
  note: string | null;
}

export function sha256Hex(body: string | Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

/** The envelope id; without one, a deterministic id from the body so a redelivery still dedupes. */
export function eventIdOf(value: unknown, rawText: string): string {
  const id = value && typeof value === 'object' ? (value as Record<string, unknown>).id : undefined;
  if (typeof id === 'string' && id.trim() !== '') return id;
  return `sha256:${sha256Hex(rawText)}`;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function detailOf(value: unknown): Record<string, unknown> {
  const d = value && typeof value === 'object' ? (value as Record<string, unknown>).detail : undefined;
  if (!d || typeof d !== 'object' || Array.isArray(d)) return {};
  // The catalogue payload may sit in detail itself or in detail.payload (see schemas/events.ts).
  const inner = (d as Record<string, unknown>).payload;
  return inner && typeof inner === 'object' && !Array.isArray(inner)
    ? { ...(d as Record<string, unknown>), ...(inner as Record<string, unknown>) }
    : (d as Record<string, unknown>);
}

/**
 * Same platform event delivered under two envelope ids: type + account + what distinguishes one
 * outcome from another (new account number, error code, or the expired window).
 */
export function dedupeKeyOf(eventType: string, externalIdentifier: string | null, detail: Record<string, unknown>, eventId?: string): string {
  if (isPostImportEvent(eventType)) {
    // Completed: the item's identifier tells items apart. Errors name no item: two items of one
    // account can fail with the same code, so only the envelope id dedupes them.
    const which = eventType.endsWith('.completed') ? (str(detail.identifier) ?? '') : (eventId ?? '');
    return [eventType, externalIdentifier ?? '', str(detail.resource_type) ?? '', which].join('|');
  }
  if (isLifecycleEvent(eventType)) {
    // One process, one change: the account, its join process and the points it names.
    const points = Array.isArray(detail.supply_points) ? detail.supply_points.map((p) => str((p as Record<string, unknown>)?.external_identifier) ?? '') : [];
    return [eventType, str(detail.account_number) ?? '', str(detail.join_supplier_process_number) ?? '', points.join(',')].join('|');
  }
  const discriminator = str(detail.identifier) ?? str(detail.error_code) ?? str(detail.expiry_window_end) ?? '';
  return [eventType, externalIdentifier ?? '', discriminator].join('|');
}

export function toInboxRecord(parsed: ParsedEvent, value: unknown, rawText: string): InboxRecord {
  const eventId = eventIdOf(value, rawText);
  const detail = detailOf(value);
  const externalIdentifier = str(detail.external_identifier) ?? str(detail.import_process_external_identifier);
  if (parsed.kind === 'unknown') {
    // Kept for the report, never routed; the id alone dedupes it.
    return {
      eventId,
      dedupeKey: `unknown|${eventId}`,
      eventType: parsed.type ?? '(none)',
      payloadVersion: str(detail.version) ?? str(detail.payload_version),
      externalIdentifier,
      identifier: str(detail.identifier),
      errorCode: str(detail.error_code),
      raw: value,
      matchStatus: 'unknown_type',
      note: `unknown_type: ${parsed.reason}`,
    };
  }
  const d = parsed.detail as Record<string, unknown>;
  const routedId = str(d.external_identifier) ?? str(d.import_process_external_identifier) ?? externalIdentifier;
  return {
    eventId,
    dedupeKey: dedupeKeyOf(parsed.type, routedId, d, eventId),
    eventType: parsed.type,
    payloadVersion: parsed.version,
    externalIdentifier: routedId,
    // A lifecycle event names the platform's account number, kept where a complete event keeps it.
    identifier: str(d.identifier) ?? str(d.account_number),
    errorCode: str(d.error_code),
    resourceType: str(d.resource_type),
    raw: value,
    matchStatus: 'pending',
    note: null,
  };
}
