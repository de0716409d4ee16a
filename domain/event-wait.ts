import { isTerminalEvent } from './event-types';
import type { ImportEventSignal } from './inputs';
import type { ScheduleOutcome } from './step-results';

/**
 * The schedule activity waits for the platform's event itself (activities/schedule.ts): after an
 * accepted answer it completes asynchronously, and the events router completes it with the event
 * (events/router.ts). The activity's completion is the workflow task that follows the schedule
 * anyway, so the account's history has no timer, no signal and no workflow task of their own.
 * While it waits it holds no worker slot and sends no heartbeat (a heartbeat is a billed action).
 */

/** The accepted answer: with the event when it came with it; `waited` when an event wait already ran out. */
export type Accepted = Extract<ScheduleOutcome, { kind: 'accepted' }>;

/**
 * The answer the events process gives a wait that ran out (no event in time, or lost): accepted,
 * without an event, so the workflow reads the inbox and polls as it does after its own timer.
 */
export const WAIT_RAN_OUT: Accepted = { kind: 'accepted', waited: true };

/**
 * What the schedule activity answers once it has asked the ledger to wait (`waits`: this attempt
 * now waits): an earlier attempt already waited and timed out (no events process completed it), so
 * this one answers at once and the workflow reads the inbox and polls, never a second wait; the
 * event beat the wait into the inbox, so it is the answer; otherwise `undefined`: it waits
 * (completes asynchronously).
 */
export function acceptedAnswer(f: { waits: boolean; kept?: ImportEventSignal; dryRun: boolean }): Accepted | undefined {
  if (!f.waits) return WAIT_RAN_OUT;
  if (f.kept !== undefined && isTerminalEvent(f.kept.type, f.dryRun)) return { kind: 'accepted', event: f.kept };
  return undefined;
}

/**
 * How the router delivers an account's event: to the schedule activity waiting for it (its id),
 * or, when none waits or the event does not end the import, by signal to the workflow.
 */
export function waitingActivityFor(eventType: string, a: { dryRun: boolean; eventWaitActivityId: string | null }): string | undefined {
  return a.eventWaitActivityId !== null && isTerminalEvent(eventType, a.dryRun) ? a.eventWaitActivityId : undefined;
}

/** The workflow's event after the schedule: the activity's, or a signal's (the fallback). */
export function eventAfterSchedule(accepted: Accepted, signalled: ImportEventSignal | undefined, dryRun: boolean): ImportEventSignal | undefined {
  if (signalled !== undefined) return signalled;
  return accepted.event !== undefined && isTerminalEvent(accepted.event.type, dryRun) ? accepted.event : undefined;
}

/** Whether the workflow still waits for the event on a timer: not when the activity's wait already ran out. */
export function eventWaitLeft(accepted: Accepted): boolean {
  return accepted.waited !== true;
}

/**
 * How long after its wait runs out the events process completes it at the latest: its sweep runs
 * with the rematch (events/server.ts, every 15 s), plus the sweep's own work and a margin.
 */
export const EVENT_WAIT_SWEEP_SECONDS = 30;
