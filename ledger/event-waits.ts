import type { Pool } from '../clients/db';
import { eventBelongsTo, MATCHABLE_COLUMNS, matchableOf, setMatch, type PendingEvent } from './inbox';
import type { AttemptRef } from './types';

/**
 * Schedule activities waiting for their account's event (domain/event-wait.ts), as the events
 * process's sweep sees them: the waits that ran out, and clearing one once it is completed.
 */

/**
 * An accepted schedule whose activity waits for the event: the stage `await`, the activity to
 * complete and when its wait runs out, and the inbox read for an event that beat it, in one
 * statement (the stage was one statement before the wait; the happy path adds no round trip). A
 * wait already written by an earlier attempt of the activity (it timed out) is cleared instead:
 * `waits` false, that attempt answers at once. An event found is claimed (matched) for this attempt.
 *
 * The router writes the inbox and reads the attempt in one statement (ledger/inbox.ts): it sees the
 * wait, or this statement sees its event, except when the two statements run at once. Then the router signals,
 * and the workflow takes the signalled event when the sweep ends the wait: later, never lost.
 */
export async function beginEventWait(
  pool: Pool,
  ref: AttemptRef,
  wait: { activityId: string; seconds: number },
): Promise<{ waits: boolean; kept?: PendingEvent }> {
  const r = await pool.query(
    `with w as (
       update migrate.account_attempts
          set stage = 'await', updated_at = now(),
              event_wait_activity_id = case when event_wait_activity_id is null then $3 end,
              event_wait_until = case when event_wait_activity_id is null then now() + make_interval(secs => $4) end
        where run_id = $1 and external_account_number = $2 and outcome is null
        returning event_wait_activity_id is not null as waits, ${MATCHABLE_COLUMNS})
     select w.*, i.event_id, i.event_type, i.external_identifier, i.identifier, i.error_code, i.received_at
       from w left join migrate.inbox i
         on w.waits and i.external_identifier = $2 and i.match_status <> 'ambiguous' and i.received_at >= w.scheduled_at
      order by i.received_at`,
    [ref.runId, ref.externalAccountNumber, wait.activityId, wait.seconds],
  );
  if (r.rows.length === 0) return { waits: false };
  const attempt = matchableOf(r.rows[0]);
  const e = r.rows.find((ev) => ev.event_id !== null && eventBelongsTo({ eventType: ev.event_type, receivedAt: ev.received_at }, attempt));
  if (!e) return { waits: r.rows[0].waits };
  await setMatch(pool, e.event_id, { matchStatus: 'matched', workflowId: attempt.workflowId, runId: ref.runId, note: 'read by the schedule activity' });
  return {
    waits: true,
    kept: { eventId: e.event_id, eventType: e.event_type, externalIdentifier: e.external_identifier, identifier: e.identifier, errorCode: e.error_code },
  };
}

/** A waiting schedule activity: which attempt, and the ids Temporal completes it by. */
export interface EventWait {
  runId: string;
  externalAccountNumber: string;
  workflowId: string;
  activityId: string;
}

/** Open attempts whose activity's event wait has run out (an event late or lost), oldest first. */
export async function overdueEventWaits(pool: Pool, limit: number): Promise<EventWait[]> {
  const r = await pool.query(
    `select run_id, external_account_number, workflow_id, event_wait_activity_id
       from migrate.account_attempts
      where outcome is null and event_wait_activity_id is not null and event_wait_until < now()
      order by event_wait_until limit $1`,
    [limit],
  );
  return r.rows.map((w) => ({
    runId: w.run_id,
    externalAccountNumber: w.external_account_number,
    workflowId: w.workflow_id,
    activityId: w.event_wait_activity_id,
  }));
}

/** The wait is over (completed, or its activity is gone): the sweep does not visit it again. */
export async function clearEventWait(pool: Pool, w: EventWait): Promise<void> {
  await pool.query(
    `update migrate.account_attempts set event_wait_activity_id = null, event_wait_until = null
      where run_id = $1 and external_account_number = $2 and event_wait_activity_id = $3`,
    [w.runId, w.externalAccountNumber, w.activityId],
  );
}
