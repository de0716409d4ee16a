import { parseEvent } from '../schemas/events';
import { attemptClassOf, toInboxRecord, type InboxRecord } from '../ledger/inbox-record';
import {
  bumpDeliveries,
  inboxByDedupeKey,
  insertInboxRecord,
  insertInboxRecordReadingAttempts,
  recordRejection,
  rescheduledSince,
  type MatchableAttempt,
} from '../ledger';
import { routeEvent } from './router';
import type { EventsDeps, IngestResult, ReceivedVia } from './types';

/**
 * The one ingestion path of both receivers. The inbox row is committed before this returns, so a
 * receiver that acknowledges after it never loses an event; routing happens after the commit and
 * its failures leave the row for the rematch timer.
 *
 * `raw` is the body as received (string or Buffer), or an already parsed object (tests).
 */
export async function ingestEvent(deps: EventsDeps, raw: unknown, via: ReceivedVia, meta: { remoteAddress?: string } = {}): Promise<IngestResult> {
  const rawText = Buffer.isBuffer(raw) ? raw.toString('utf8') : typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? 'null');
  const parsed = parseEvent(rawText);
  if (parsed.kind === 'unknown' && parsed.reason === 'not_json') {
    await recordRejection(deps.pool, { receivedVia: via, reason: 'malformed_json', body: rawText, remoteAddress: meta.remoteAddress });
    return { status: 'rejected', code: 'malformed_json' };
  }
  const value: unknown = JSON.parse(rawText);
  const record = toInboxRecord(parsed, value, rawText);

  // The attempts it may belong to, read with the insert when the router will need them.
  let attempts: MatchableAttempt[] | undefined;
  try {
    const first = await insertFirst(deps, record, via);
    if (first.inserted) attempts = first.attempts;
    else {
      const dup = await duplicateOf(deps, record, via);
      if (dup) return dup;
    }
  } catch (err) {
    // jsonb refuses some valid JSON (\u0000 in a string): redelivering would never succeed.
    if ((err as { code?: string }).code === '22P05') {
      await recordRejection(deps.pool, { receivedVia: via, reason: 'unstorable_body', body: rawText, remoteAddress: meta.remoteAddress });
      return { status: 'rejected', code: 'unstorable_body' };
    }
    throw err;
  }

  if (record.matchStatus === 'unknown_type') {
    deps.logger.warn({ eventId: record.eventId, eventType: record.eventType, note: record.note }, 'event of unknown type kept');
    return { status: 'recorded', eventId: record.eventId, matchStatus: 'unknown_type' };
  }
  try {
    const routed = await routeEvent(deps, record, attempts);
    deps.logger.info({ eventId: record.eventId, eventType: record.eventType, matchStatus: routed.matchStatus, workflowId: routed.workflowId }, 'event routed');
    return { status: 'recorded', eventId: record.eventId, matchStatus: routed.matchStatus, ...(routed.workflowId ? { workflowId: routed.workflowId } : {}) };
  } catch (err) {
    // Recorded is what the sender needs to hear; routing is retried by the rematch timer.
    deps.logger.warn({ eventId: record.eventId, err }, 'event recorded but not routed');
    return { status: 'recorded', eventId: record.eventId, matchStatus: 'pending' };
  }
}

/** The first insert of a delivery; for an account's terminal event, with the attempts the router reads. */
async function insertFirst(deps: EventsDeps, rec: InboxRecord, via: ReceivedVia): Promise<{ inserted: boolean; attempts?: MatchableAttempt[] }> {
  if (rec.matchStatus === 'unknown_type' || !attemptClassOf(rec.eventType) || !rec.externalIdentifier)
    return { inserted: await insert(deps, rec, rec.dedupeKey, via) };
  return insertInboxRecordReadingAttempts(deps.pool, rec, rec.dedupeKey, via, rec.externalIdentifier);
}

async function insert(deps: EventsDeps, rec: InboxRecord, dedupeKey: string, via: ReceivedVia): Promise<boolean> {
  return insertInboxRecord(deps.pool, rec, dedupeKey, via);
}

/**
 * Returns the duplicate result, or undefined when the event turned out to be a new occurrence
 * (and has now been inserted). Same dedupe key is a new occurrence only when the earlier event
 * was already consumed and the account has since been scheduled again (a second dry run emits
 * an identical `dry_run_complete`).
 */
async function duplicateOf(deps: EventsDeps, rec: InboxRecord, via: ReceivedVia): Promise<IngestResult | undefined> {
  const byId = await bumpDeliveries(deps.pool, 'event_id', rec.eventId);
  if (byId) return { status: 'duplicate', eventId: byId.event_id, deliveries: byId.deliveries };

  const prev = await inboxByDedupeKey(deps.pool, rec.dedupeKey);
  if (prev && ['matched', 'late', 'ambiguous'].includes(prev.match_status) && rec.externalIdentifier) {
    if (await rescheduledSince(deps.pool, rec.externalIdentifier, prev.event_id, attemptClassOf(rec.eventType)?.dryRun ?? null)) {
      if (await insert(deps, rec, `${rec.dedupeKey}#${rec.eventId}`, via)) return undefined;
      const again = await bumpDeliveries(deps.pool, 'event_id', rec.eventId);
      if (again) return { status: 'duplicate', eventId: again.event_id, deliveries: again.deliveries };
    }
  }
  const byKey = await bumpDeliveries(deps.pool, 'dedupe_key', rec.dedupeKey);
  if (byKey) return { status: 'duplicate', eventId: byKey.event_id, deliveries: byKey.deliveries };
  // The conflicting row vanished between statements (only a manual delete does that): insert again.
  if (await insert(deps, rec, rec.dedupeKey, via)) return undefined;
  throw Object.assign(new Error(`inbox conflict for ${rec.eventId} could not be resolved`), { code: 'inbox_conflict' });
}
