import { attemptClassOf } from '../ledger/inbox-record';
import { isLifecycleEvent, isPostImportEvent, isTerminalEvent } from '../domain/event-types';
import {
  attemptsForEvent,
  clearEventWait,
  createPostImportLedger,
  createSupplyLedger,
  eventBelongsTo,
  overdueEventWaits,
  pendingEvents,
  setMatch,
  type MatchableAttempt,
  type PendingEvent,
} from '../ledger';
import { SignalError, type EventsDeps, type MatchStatus } from './types';
import { importEventSignalOf, type ImportEventSignal } from '../domain/inputs';
import { WAIT_RAN_OUT, waitingActivityFor, type Accepted } from '../domain/event-wait';

/** What the router needs of an inbox row: the ledger's pending-event shape, defined once there. */
export type RoutableEvent = PendingEvent;

export interface RouteOutcome {
  matchStatus: MatchStatus;
  workflowId?: string;
  runId?: string;
  note?: string;
  /** The platform is done with this account workflow: its permit is freed with the match. */
  freesPermitOf?: string;
}

/**
 * Finds the account workflow waiting for this event and delivers it: to its schedule activity when
 * that waits for it (domain/event-wait.ts), else by signal (also when that activity is gone: timed
 * out, retried, or its workflow closed). Events name no import
 * supplier, so an account number in flight for two suppliers is ambiguous: nobody is signalled
 * and those workflows fall back to status polling, which is supplier-specific.
 */
export async function routeEvent(deps: EventsDeps, e: RoutableEvent, attempts?: MatchableAttempt[]): Promise<RouteOutcome> {
  const outcome = await decide(deps, e, attempts);
  await setMatch(deps.pool, e.eventId, outcome);
  return outcome;
}

/** `known`: the account's attempts, already read with the inbox insert (ledger/inbox.ts). */
async function decide(deps: EventsDeps, e: RoutableEvent, known?: MatchableAttempt[]): Promise<RouteOutcome> {
  if (isPostImportEvent(e.eventType)) return decidePostImport(deps, e);
  if (isLifecycleEvent(e.eventType)) return decideLifecycle(deps, e);
  const cls = attemptClassOf(e.eventType);
  if (!cls) return { matchStatus: 'unmatched', note: 'not_routed: no account workflow waits on this event type' };
  if (!e.externalIdentifier) return { matchStatus: 'unmatched', note: 'not_routed: event has no external_identifier' };

  const attempts = known ?? (await attemptsForEvent(deps.pool, e.externalIdentifier, e.eventType));
  const waiting = attempts.filter((a) => eventBelongsTo({ eventType: e.eventType }, a));

  if (waiting.length > 1) {
    const who = waiting.map((a) => `${a.supplierCode}/${a.runId}`).join(', ');
    return { matchStatus: 'ambiguous', note: `ambiguous: in flight for ${waiting.length} attempts (${who}); none signalled, they poll` };
  }
  if (waiting.length === 1) {
    const a = waiting[0];
    // An account's terminal event: the item kind is not part of its signal.
    const signal = importEventSignalOf({ ...e, resourceType: null });
    // The platform is done with the account: its permit in the tenant's window frees with the match
    // (one statement), not when the workflow gets round to recording the outcome
    // (domain/platform-pace.ts: the window counts what the tenant counts), whether or not the signal reached it.
    const frees = isTerminalEvent(e.eventType, a.dryRun) ? { freesPermitOf: a.workflowId } : {};
    try {
      const activityId = waitingActivityFor(e.eventType, a);
      if (activityId === undefined || !(await completed(deps, { workflowId: a.workflowId, activityId }, { kind: 'accepted', event: signal }))) {
        await deps.signal(a.workflowId, signal);
        if (activityId === undefined && isTerminalEvent(e.eventType, a.dryRun)) await completeWaitBegunMeanwhile(deps, e, a, signal);
      }
      return { matchStatus: 'matched', workflowId: a.workflowId, runId: a.runId, ...frees };
    } catch (err) {
      if (err instanceof SignalError && err.code === 'workflow_gone') {
        return { matchStatus: 'late', workflowId: a.workflowId, runId: a.runId, note: 'late: workflow already closed', ...frees };
      }
      // Temporal unreachable: stays pending, the rematch timer tries again.
      const code = err instanceof SignalError ? err.code : 'signal_failed';
      deps.logger.warn({ eventId: e.eventId, workflowId: a.workflowId, code }, 'could not signal account workflow');
      return { matchStatus: 'pending', note: `${code}: will retry`, ...frees };
    }
  }
  if (attempts.some((a) => a.outcome === null)) {
    // The attempt exists but has not recorded its schedule call yet: rematch will find it.
    return { matchStatus: 'unmatched', note: 'unmatched: attempt not scheduled yet' };
  }
  const done = attempts.find((a) => a.outcome !== null);
  if (done) {
    return {
      matchStatus: 'late',
      runId: done.runId,
      note: `late: outcome ${done.outcome} already recorded (${done.outcomeSource ?? 'unknown source'}); ignored`,
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
  const signal = importEventSignalOf(e);
  try {
    await deps.signal(waiting[0], signal);
    return { matchStatus: 'matched', workflowId: waiting[0] };
  } catch (err) {
    if (err instanceof SignalError && err.code === 'workflow_gone')
      return { matchStatus: 'late', workflowId: waiting[0], note: 'late: workflow already closed' };
    const code = err instanceof SignalError ? err.code : 'signal_failed';
    return { matchStatus: 'pending', note: `${code}: will retry` };
  }
}

/**
 * A supply lifecycle event wakes the workflow following that platform account's switch (the ledger
 * names it); it reads the statuses at once. No follow in progress: the event is late or not ours.
 */
async function decideLifecycle(deps: EventsDeps, e: RoutableEvent): Promise<RouteOutcome> {
  if (!e.identifier) return { matchStatus: 'unmatched', note: 'not_routed: event has no account_number' };
  const waiting = await createSupplyLedger(deps.pool).workflowsForAccountNumber(e.identifier);
  if (waiting.length === 0) return { matchStatus: 'unmatched', note: 'unmatched: no switch followed for this account' };
  for (const workflowId of waiting) {
    try {
      await deps.signal(workflowId, importEventSignalOf(e));
    } catch (err) {
      if (err instanceof SignalError && err.code === 'workflow_gone')
        return { matchStatus: 'late', workflowId, note: 'late: the switch is no longer followed' };
      const code = err instanceof SignalError ? err.code : 'signal_failed';
      return { matchStatus: 'pending', note: `${code}: will retry` };
    }
  }
  return { matchStatus: 'matched', workflowId: waiting[0] };
}

/**
 * Retries routing of recent events that found no waiting workflow yet (an event can beat the
 * ledger's scheduled_at) or could not be signalled.
 */
export async function rematchPending(deps: EventsDeps, opts: { withinMinutes?: number; limit?: number } = {}): Promise<{ tried: number; matched: number }> {
  const rows = await pendingEvents(deps.pool, opts.withinMinutes ?? 60, opts.limit ?? 500);
  let matched = 0;
  let tried = 0;
  for (const row of rows) {
    tried++;
    const o = await routeEvent(deps, row);
    if (o.matchStatus === 'matched') matched++;
    // Temporal unreachable: the rest would each wait out the signal deadline. Next tick retries.
    if (o.matchStatus === 'pending') break;
  }
  return { tried, matched };
}

/**
 * The schedule activity writes its wait and reads the inbox in one statement (ledger/event-waits.ts),
 * and the inbox insert reads the attempt in another (ledger/inbox.ts): run at the same moment, each
 * can miss the other, and the workflow, signalled, would sit on an activity that waits until the
 * sweep ends it (the event wait and the sweep, 45 s with the defaults). So after the signal, a
 * second look at the attempt: a wait begun meanwhile is completed with the event. An activity
 * that read the event itself is no longer there; Temporal out of reach leaves the sweep to end it.
 */
async function completeWaitBegunMeanwhile(deps: EventsDeps, e: RoutableEvent, a: MatchableAttempt, signal: ImportEventSignal): Promise<void> {
  const now = (await attemptsForEvent(deps.pool, e.externalIdentifier!, e.eventType)).find((x) => x.runId === a.runId && x.workflowId === a.workflowId);
  const activityId = now && eventBelongsTo({ eventType: e.eventType }, now) ? waitingActivityFor(e.eventType, now) : undefined;
  if (activityId === undefined) return;
  try {
    await completed(deps, { workflowId: a.workflowId, activityId }, { kind: 'accepted', event: signal });
  } catch (err) {
    const code = err instanceof SignalError ? err.code : 'complete_failed';
    deps.logger.warn({ eventId: e.eventId, workflowId: a.workflowId, code }, 'could not complete an event wait begun with the event; the sweep ends it');
  }
}

/** Completes a waiting schedule activity; false when it is no longer there (the caller signals instead). */
async function completed(deps: EventsDeps, activity: { workflowId: string; activityId: string }, result: Accepted): Promise<boolean> {
  try {
    await deps.complete(activity, result);
    return true;
  } catch (err) {
    if (err instanceof SignalError && err.code === 'workflow_gone') return false;
    throw err;
  }
}

/**
 * Ends the schedule activities' event waits that ran out (an event late or lost): completed as
 * accepted without an event, so their workflows read the inbox and poll, as after their own timer.
 * An activity no longer there needs nothing; Temporal unreachable: the next tick tries again.
 */
export async function endOverdueWaits(deps: EventsDeps, limit = 500): Promise<number> {
  let ended = 0;
  for (const w of await overdueEventWaits(deps.pool, limit)) {
    try {
      if (await completed(deps, { workflowId: w.workflowId, activityId: w.activityId }, WAIT_RAN_OUT)) ended++;
    } catch (err) {
      deps.logger.warn({ workflowId: w.workflowId, code: err instanceof SignalError ? err.code : 'complete_failed' }, 'could not end an event wait');
      break;
    }
    await clearEventWait(deps.pool, w);
  }
  return ended;
}
