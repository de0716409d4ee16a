import { attemptClassOf, isPostImportEvent, ROUTABLE_EVENT_TYPES } from './inbox-record';
import { createPostImportLedger } from '../ledger/post-import-items';
import { SignalError, type EventsDeps, type MatchStatus } from './types';
import type { ImportEventSignal } from '../workflows/inputs';

/** What the router needs of an inbox row. */
export interface RoutableEvent {
  eventId: string;
  eventType: string;
  externalIdentifier: string | null;
  identifier: string | null;
  errorCode: string | null;
  /** `post_import.*` events: the item kind (NOTE, TRANSACTION, …). */
  resourceType?: string | null;
}

export interface RouteOutcome {
  matchStatus: MatchStatus;
  workflowId?: string;
  runId?: string;
  note?: string;
}

interface AttemptRow {
  run_id: string;
  workflow_id: string;
  supplier_code: string;
  dry_run: boolean;
  outcome: string | null;
  outcome_source: string | null;
  scheduled_at: Date | null;
}

/**
 * Finds the account workflow waiting for this event and signals it. Events name no import
 * supplier, so an account number in flight for two suppliers is ambiguous: nobody is signalled
 * and those workflows fall back to status polling, which is supplier-specific.
 */
export async function routeEvent(deps: EventsDeps, e: RoutableEvent): Promise<RouteOutcome> {
  const outcome = await decide(deps, e);
  await deps.pool.query(
    `update migrate.inbox set match_status = $2, matched_workflow_id = $3, matched_run_id = $4, note = $5
      where event_id = $1 and match_status <> 'matched'`,
    [e.eventId, outcome.matchStatus, outcome.workflowId ?? null, outcome.runId ?? null, outcome.note ?? null],
  );
  return outcome;
}

async function decide(deps: EventsDeps, e: RoutableEvent): Promise<RouteOutcome> {
  if (isPostImportEvent(e.eventType)) return decidePostImport(deps, e);
  const cls = attemptClassOf(e.eventType);
  if (!cls) return { matchStatus: 'unmatched', note: 'not_routed: no account workflow waits on this event type' };
  if (!e.externalIdentifier) return { matchStatus: 'unmatched', note: 'not_routed: event has no external_identifier' };

  const r = await deps.pool.query<AttemptRow>(
    `select run_id, workflow_id, supplier_code, dry_run, outcome, outcome_source, scheduled_at
       from migrate.account_attempts
      where external_account_number = $1 and ($2::boolean is null or dry_run = $2)
      order by started_at desc`,
    [e.externalIdentifier, cls.dryRun],
  );
  const waiting = r.rows.filter((a) => a.outcome === null && a.scheduled_at !== null);

  if (waiting.length > 1) {
    const who = waiting.map((a) => `${a.supplier_code}/${a.run_id}`).join(', ');
    return { matchStatus: 'ambiguous', note: `ambiguous: in flight for ${waiting.length} attempts (${who}); none signalled, they poll` };
  }
  if (waiting.length === 1) {
    const a = waiting[0];
    const signal: ImportEventSignal = { eventId: e.eventId, type: e.eventType };
    if (e.identifier) signal.identifier = e.identifier;
    if (e.errorCode) signal.errorCode = e.errorCode;
    try {
      await deps.signal(a.workflow_id, signal);
      return { matchStatus: 'matched', workflowId: a.workflow_id, runId: a.run_id };
    } catch (err) {
      if (err instanceof SignalError && err.code === 'workflow_gone') {
        return { matchStatus: 'late', workflowId: a.workflow_id, runId: a.run_id, note: 'late: workflow already closed' };
      }
      // Temporal unreachable: stays pending, the rematch timer tries again.
      const code = err instanceof SignalError ? err.code : 'signal_failed';
      deps.logger.warn({ eventId: e.eventId, workflowId: a.workflow_id, code }, 'could not signal account workflow');
      return { matchStatus: 'pending', note: `${code}: will retry` };
    }
  }
  if (r.rows.some((a) => a.outcome === null)) {
    // The attempt exists but has not recorded its schedule call yet: rematch will find it.
    return { matchStatus: 'unmatched', note: 'unmatched: attempt not scheduled yet' };
  }
  const done = r.rows.find((a) => a.outcome !== null);
  if (done) {
    return {
      matchStatus: 'late',
      runId: done.run_id,
      note: `late: outcome ${done.outcome} already recorded (${done.outcome_source ?? 'unknown source'}); ignored`,
    };
  }
  return { matchStatus: 'unmatched', note: 'unmatched: no attempt for this account' };
}

/** A post-import outcome goes to the workflow sending that account's items (the ledger names it). */
async function decidePostImport(deps: EventsDeps, e: RoutableEvent): Promise<RouteOutcome> {
  if (!e.externalIdentifier) return { matchStatus: 'unmatched', note: 'not_routed: event has no import_process_external_identifier' };
  const waiting = await createPostImportLedger(deps.pool).waitingWorkflows(e.externalIdentifier);
  if (waiting.length === 0) return { matchStatus: 'unmatched', note: 'unmatched: no post-import item in flight for this account' };
  if (waiting.length > 1) return { matchStatus: 'ambiguous', note: `ambiguous: ${waiting.length} post-import workflows in flight; they ask again` };
  const signal: ImportEventSignal = { eventId: e.eventId, type: e.eventType };
  if (e.identifier) signal.identifier = e.identifier;
  if (e.errorCode) signal.errorCode = e.errorCode;
  if (e.resourceType) signal.resourceType = e.resourceType;
  try {
    await deps.signal(waiting[0], signal);
    return { matchStatus: 'matched', workflowId: waiting[0] };
  } catch (err) {
    if (err instanceof SignalError && err.code === 'workflow_gone') return { matchStatus: 'late', workflowId: waiting[0], note: 'late: workflow already closed' };
    const code = err instanceof SignalError ? err.code : 'signal_failed';
    return { matchStatus: 'pending', note: `${code}: will retry` };
  }
}

/**
 * Retries routing of recent events that found no waiting workflow yet (an event can beat the
 * ledger's scheduled_at) or could not be signalled.
 */
export async function rematchPending(
  deps: EventsDeps,
  opts: { withinMinutes?: number; limit?: number } = {},
): Promise<{ tried: number; matched: number }> {
  const r = await deps.pool.query<{ event_id: string; event_type: string; external_identifier: string | null; identifier: string | null; error_code: string | null; resource_type: string | null }>(
    `select event_id, event_type, external_identifier, identifier, error_code,
            coalesce(raw->'detail'->'payload'->>'resource_type', raw->'detail'->>'resource_type') as resource_type
       from migrate.inbox
      where match_status in ('pending', 'unmatched') and event_type = any($1)
        and received_at > now() - make_interval(mins => $2)
      order by received_at limit $3`,
    [ROUTABLE_EVENT_TYPES, opts.withinMinutes ?? 60, opts.limit ?? 500],
  );
  let matched = 0;
  let tried = 0;
  for (const row of r.rows) {
    tried++;
    const o = await routeEvent(deps, {
      eventId: row.event_id,
      eventType: row.event_type,
      externalIdentifier: row.external_identifier,
      identifier: row.identifier,
      errorCode: row.error_code,
      resourceType: row.resource_type,
    });
    if (o.matchStatus === 'matched') matched++;
    // Temporal unreachable: the rest would each wait out the signal deadline. Next tick retries.
    if (o.matchStatus === 'pending') break;
  }
  return { tried, matched };
}
