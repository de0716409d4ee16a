import type { Pool } from '../clients/db';

/**
 * Schedule activities waiting for their account's event (domain/event-wait.ts), as the events
 * process's sweep sees them: the waits that ran out, and clearing one once it is completed.
 */

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
