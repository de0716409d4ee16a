import type { Pool } from '../clients/db';
import { attemptClassOf, ROUTABLE_EVENT_TYPES, type InboxRecord } from './inbox-record';
import type { MatchStatus, ReceivedVia } from './inbox-record';
import { openJson, SEALED, sealJson } from './sealing';
import type { AttemptRef } from './types';

/**
 * The inbox (`migrate.inbox`): every platform event delivery, deduped, and which attempt it was
 * matched to. The rule that ties an event to an attempt lives here once (`eventBelongsTo`): the
 * router uses it for a fresh delivery, the workflow's inbox read for one that arrived unseen.
 */

/** An attempt as the matching rule sees it. */
export interface MatchableAttempt {
  runId: string;
  workflowId: string;
  supplierCode: string;
  dryRun: boolean;
  outcome: string | null;
  outcomeSource: string | null;
  scheduledAt: Date | null;
  /** The schedule activity waiting for this attempt's event (domain/event-wait.ts), when one waits. */
  eventWaitActivityId: string | null;
}

export const MATCHABLE_COLUMNS = 'run_id, workflow_id, supplier_code, dry_run, outcome, outcome_source, scheduled_at, event_wait_activity_id';

export function matchableOf(a: Record<string, unknown>): MatchableAttempt {
  return {
    runId: a.run_id as string,
    workflowId: a.workflow_id as string,
    supplierCode: a.supplier_code as string,
    dryRun: a.dry_run as boolean,
    outcome: a.outcome as string | null,
    outcomeSource: a.outcome_source as string | null,
    scheduledAt: a.scheduled_at as Date | null,
    eventWaitActivityId: a.event_wait_activity_id as string | null,
  };
}

/**
 * The matching rule: an event belongs to an attempt that is waiting (scheduled, no outcome yet),
 * of the event's class (real or dry run; `cancelled` fits either), and was received after the
 * attempt was scheduled (an older event answers an older schedule call). A delivery being routed
 * as it arrives has no `receivedAt`: it is after every schedule call already made.
 */
export function eventBelongsTo(e: { eventType: string; receivedAt?: Date }, a: MatchableAttempt): boolean {
  const cls = attemptClassOf(e.eventType);
  if (!cls) return false;
  if (cls.dryRun !== null && cls.dryRun !== a.dryRun) return false;
  if (a.outcome !== null || a.scheduledAt === null) return false;
  return e.receivedAt === undefined || e.receivedAt.getTime() >= a.scheduledAt.getTime();
}

/** The attempts of one account, newest first, of the event's class. */
/** The attempts an event of an account may belong to: its account's, of the event's class (dry run or not). */
const attemptsOfAccount = (account: string, dryRun: string) => `external_account_number = ${account} and (${dryRun}::boolean is null or dry_run = ${dryRun})`;
const dryRunOf = (eventType: string) => attemptClassOf(eventType)?.dryRun ?? null;

export async function attemptsForEvent(pool: Pool, externalAccountNumber: string, eventType: string): Promise<MatchableAttempt[]> {
  const r = await pool.query(
    `select ${MATCHABLE_COLUMNS}
       from migrate.account_attempts
      where ${attemptsOfAccount('$1', '$2')}
      order by started_at desc`,
    [externalAccountNumber, dryRunOf(eventType)],
  );
  return r.rows.map(matchableOf);
}

/**
 * The event's match recorded; `freesPermitOf`: the account workflow the platform has finished with,
 * its permit in the tenant's window freed in the same statement (ledger/platform-pace.ts).
 */
export async function setMatch(
  pool: Pool,
  eventId: string,
  m: { matchStatus: MatchStatus; workflowId?: string; runId?: string; note?: string; freesPermitOf?: string },
): Promise<void> {
  await pool.query(
    `with m as (update migrate.inbox set match_status = $2, matched_workflow_id = $3, matched_run_id = $4, note = $5
                 where event_id = $1 and match_status <> 'matched')
     select migrate.free_platform_permit($6) where $6::text is not null`,
    [eventId, m.matchStatus, m.workflowId ?? null, m.runId ?? null, m.note ?? null, m.freesPermitOf ?? null],
  );
}

export interface PendingEvent {
  eventId: string;
  eventType: string;
  externalIdentifier: string | null;
  identifier: string | null;
  errorCode: string | null;
  /** `post_import.*` events: the item kind, read from the stored delivery. */
  resourceType?: string | null;
}

/** Recent routable events nobody has been signalled for yet (the rematch timer's work list). */
export async function pendingEvents(pool: Pool, withinMinutes: number, limit: number): Promise<PendingEvent[]> {
  const r = await pool.query(
    `select event_id, event_type, external_identifier, identifier, error_code,
            resource_type
       from migrate.inbox
      where match_status in ('pending', 'unmatched') and event_type = any($1)
        and received_at > now() - make_interval(mins => $2)
      order by received_at limit $3`,
    [ROUTABLE_EVENT_TYPES, withinMinutes, limit],
  );
  return r.rows.map((row) => ({
    eventId: row.event_id,
    eventType: row.event_type,
    externalIdentifier: row.external_identifier,
    identifier: row.identifier,
    errorCode: row.error_code,
    resourceType: row.resource_type,
  }));
}

/**
 * The first event in the inbox that belongs to this attempt (by `eventBelongsTo`), marked matched.
 * For the workflow that finds no signal waiting: an event can be kept but not routed.
 */
export async function claimInboxEvent(pool: Pool, ref: AttemptRef): Promise<PendingEvent | undefined> {
  const a = await pool.query(`select ${MATCHABLE_COLUMNS} from migrate.account_attempts where run_id = $1 and external_account_number = $2`, [
    ref.runId,
    ref.externalAccountNumber,
  ]);
  const row = a.rows[0];
  if (!row) return undefined;
  const attempt = matchableOf(row);
  const events = await pool.query(
    `select event_id, event_type, external_identifier, identifier, error_code, received_at
       from migrate.inbox where external_identifier = $1 and match_status <> 'ambiguous' order by received_at`,
    [ref.externalAccountNumber],
  );
  const e = events.rows.find((ev) => eventBelongsTo({ eventType: ev.event_type, receivedAt: ev.received_at }, attempt));
  if (!e) return undefined;
  await setMatch(pool, e.event_id, { matchStatus: 'matched', workflowId: attempt.workflowId, runId: ref.runId, note: 'read by the workflow' });
  return { eventId: e.event_id, eventType: e.event_type, externalIdentifier: e.external_identifier, identifier: e.identifier, errorCode: e.error_code };
}

/** The platform's `error_detail` in a stored delivery (v2 nests the event under `payload`). */
export function eventErrorDetailOf(raw: unknown): string | undefined {
  const detail = (raw as { detail?: Record<string, unknown> } | null)?.detail;
  const payload = detail?.payload as Record<string, unknown> | undefined;
  const v = payload?.error_detail ?? detail?.error_detail;
  return typeof v === 'string' ? v : v === undefined || v === null ? undefined : JSON.stringify(v);
}

/** The platform's own words for an error code of this account, from its latest event. */
export async function platformErrorDetail(pool: Pool, externalAccountNumber: string, code: string): Promise<string> {
  const r = await pool.query(`select raw from migrate.inbox where external_identifier = $1 and error_code = $2 order by received_at desc limit 1`, [
    externalAccountNumber,
    code,
  ]);
  return r.rows[0] ? (eventErrorDetailOf(openJson(pool, SEALED.inboxRaw, r.rows[0].raw)) ?? '') : '';
}

const INSERT_INBOX = `insert into migrate.inbox (event_id, dedupe_key, event_type, payload_version, external_identifier, identifier, error_code, raw, received_via, match_status, note, resource_type)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12)
     on conflict do nothing`;

/** Inserts a delivery; false when either unique key (event id, dedupe key) already has a row. */
export async function insertInboxRecord(pool: Pool, rec: InboxRecord, dedupeKey: string, via: ReceivedVia): Promise<boolean> {
  const r = await pool.query(INSERT_INBOX, insertParams(pool, rec, dedupeKey, via));
  return (r.rowCount ?? 0) > 0;
}

/**
 * Inserts a delivery and, when it is new, reads the attempts of its account it may belong to (as
 * {@link attemptsForEvent}) in the same round trip: the router's first two statements as one. The
 * read's snapshot is the statement's, taken before the insert commits (ledger/event-waits.ts says
 * what that means for a wait being written at the same moment).
 */
export async function insertInboxRecordReadingAttempts(
  pool: Pool,
  rec: InboxRecord,
  dedupeKey: string,
  via: ReceivedVia,
  externalAccountNumber: string,
): Promise<{ inserted: false } | { inserted: true; attempts: MatchableAttempt[] }> {
  const r = await pool.query(
    `with ins as (${INSERT_INBOX} returning event_id)
     select exists (select 1 from ins) as inserted, ${MATCHABLE_COLUMNS}
       from (select 1) as one
       left join migrate.account_attempts
         on exists (select 1 from ins) and ${attemptsOfAccount('$13', '$14')}
      order by started_at desc`,
    [...insertParams(pool, rec, dedupeKey, via), externalAccountNumber, dryRunOf(rec.eventType)],
  );
  if (!r.rows[0].inserted) return { inserted: false };
  return { inserted: true, attempts: r.rows.filter((row) => row.run_id !== null).map(matchableOf) };
}

function insertParams(pool: Pool, rec: InboxRecord, dedupeKey: string, via: ReceivedVia): unknown[] {
  return [
    rec.eventId,
    dedupeKey,
    rec.eventType,
    rec.payloadVersion,
    rec.externalIdentifier,
    rec.identifier,
    rec.errorCode,
    sealJson(pool, SEALED.inboxRaw, rec.raw),
    via,
    rec.matchStatus,
    rec.note,
    rec.resourceType ?? null,
  ];
}

/** Counts one more delivery of a kept event. */
export async function bumpDeliveries(
  pool: Pool,
  column: 'event_id' | 'dedupe_key',
  value: string,
): Promise<{ event_id: string; deliveries: number } | undefined> {
  const r = await pool.query<{ event_id: string; deliveries: number }>(
    `update migrate.inbox set deliveries = deliveries + 1 where ${column === 'event_id' ? 'event_id' : 'dedupe_key'} = $1 returning event_id, deliveries`,
    [value],
  );
  return r.rows[0];
}

export async function inboxByDedupeKey(pool: Pool, dedupeKey: string): Promise<{ event_id: string; received_at: Date; match_status: string } | undefined> {
  const r = await pool.query(`select event_id, received_at, match_status from migrate.inbox where dedupe_key = $1`, [dedupeKey]);
  return r.rows[0];
}

/**
 * Whether the account was scheduled again after the inbox row `sinceEventId` was received (a repeated
 * identical event is then new). Compared in Postgres: a JS Date keeps milliseconds only, and a
 * truncated `received_at` made a redelivery in the same millisecond look like a later occurrence.
 */
export async function rescheduledSince(pool: Pool, externalAccountNumber: string, sinceEventId: string, dryRun: boolean | null): Promise<boolean> {
  const r = await pool.query(
    `select 1 from migrate.account_attempts a join migrate.inbox i on i.event_id = $2
      where a.external_account_number = $1 and a.scheduled_at > i.received_at and ($3::boolean is null or a.dry_run = $3) limit 1`,
    [externalAccountNumber, sinceEventId, dryRun],
  );
  return (r.rowCount ?? 0) > 0;
}
