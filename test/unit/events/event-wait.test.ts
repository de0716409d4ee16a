import { describe, expect, it } from 'vitest';
import { ingestEvent } from '../../../events/ingest';
import { endOverdueWaits } from '../../../events/router';
import { createLedger } from '../../../ledger';
import { envelope, eventsTestBed, inboxRow, insertAttempt, insertRun, uniq } from './helpers';

/**
 * The schedule activity waiting for its account's event (domain/event-wait.ts), on the real
 * Postgres: the ledger's wait written with the stage, the router completing the activity instead of
 * signalling, its fallback to the signal, and the sweep of waits that ran out.
 */

const COMPLETE = 'data_import.import_process.complete';
const DRY_COMPLETE = 'data_import.import_process.dry_run_complete';

const bed = eventsTestBed('event-wait');

/** A scheduled attempt whose schedule activity `7` waits (for `seconds`, as the activity writes it). */
async function waitingAttempt(seconds = 60) {
  const runId = uniq('run');
  const ext = uniq('ACC');
  await insertRun(bed.db.pool, runId);
  const workflowId = `wf-${runId}-${ext}`;
  await insertAttempt(bed.db.pool, { runId, ext, workflowId });
  const ref = { runId, externalAccountNumber: ext, supplierCode: 'SUP-A', dryRun: false };
  expect(await createLedger(bed.db.pool).awaitEvent(ref, { activityId: '7', seconds })).toEqual({ waits: true });
  return { runId, ext, workflowId, ref };
}

/** A completion event for this account, delivered as the webhook does; its id. */
async function deliverCompletion(ext: string, identifier: string, type = COMPLETE) {
  const id = uniq('evt');
  const routed = await ingestEvent(bed.deps, JSON.stringify(envelope(type, { resource_type: 'account', external_identifier: ext, identifier }, id)), 'test');
  return { id, routed };
}

const waitOf = async (runId: string, ext: string) =>
  (
    await bed.db.pool.query(
      `select stage, event_wait_activity_id, event_wait_until > now() as ahead from migrate.account_attempts where run_id = $1 and external_account_number = $2`,
      [runId, ext],
    )
  ).rows[0];

describe('the ledger: a wait written with the stage', () => {
  it('is written once; a later attempt of the activity clears it and answers at once', async () => {
    const a = await waitingAttempt();
    expect(await waitOf(a.runId, a.ext)).toEqual({ stage: 'await', event_wait_activity_id: '7', ahead: true });
    expect(await createLedger(bed.db.pool).awaitEvent(a.ref, { activityId: '7', seconds: 60 })).toEqual({ waits: false });
    expect(await waitOf(a.runId, a.ext)).toEqual({ stage: 'await', event_wait_activity_id: null, ahead: null });
  });
});

describe('the ledger: the inbox read with the wait', () => {
  it('claims an event that beat the wait (received after the schedule), not an older one nor one of another kind', async () => {
    const runId = uniq('run');
    const ext = uniq('ACC');
    await insertRun(bed.db.pool, runId);
    const workflowId = `wf-${runId}-${ext}`;
    // An earlier schedule's event, kept before this attempt was scheduled: not this attempt's.
    await deliverCompletion(ext, 'A-OLD');
    await insertAttempt(bed.db.pool, { runId, ext, workflowId });
    await deliverCompletion(ext, 'A-DRY', DRY_COMPLETE);
    const ref = { runId, externalAccountNumber: ext, supplierCode: 'SUP-A', dryRun: false };
    expect(await createLedger(bed.db.pool).awaitEvent(ref, { activityId: '7', seconds: 60 })).toEqual({ waits: true });

    // Routed before the wait was written: signalled (the fake) and kept in the inbox.
    const { id } = await deliverCompletion(ext, 'A-NEW');
    await bed.db.pool.query(`update migrate.account_attempts set event_wait_activity_id = null where run_id = $1`, [runId]);
    await bed.db.pool.query(`update migrate.inbox set match_status = 'pending' where event_id = $1`, [id]);
    expect(await createLedger(bed.db.pool).awaitEvent(ref, { activityId: '7', seconds: 60 })).toEqual({
      waits: true,
      kept: { eventId: id, eventType: COMPLETE, externalIdentifier: ext, identifier: 'A-NEW', errorCode: null },
    });
    expect(await inboxRow(bed.db.pool, id)).toMatchObject({ match_status: 'matched', matched_workflow_id: workflowId, note: 'read by the schedule activity' });
  });
});

describe('the router and a waiting schedule activity', () => {
  it('completes the activity with the event instead of signalling the workflow', async () => {
    const a = await waitingAttempt();
    const { id, routed: r } = await deliverCompletion(a.ext, 'A-7');
    expect(r).toMatchObject({ status: 'recorded', matchStatus: 'matched', workflowId: a.workflowId });
    expect(bed.fake.completions).toEqual([
      { workflowId: a.workflowId, activityId: '7', result: { kind: 'accepted', event: { eventId: id, type: COMPLETE, identifier: 'A-7' } } },
    ]);
    expect(bed.fake.calls).toEqual([]);
  });

  it('signals the workflow when the activity is no longer there (timed out, retried)', async () => {
    const a = await waitingAttempt();
    bed.fake.state.completeFailsWith = 'workflow_gone';
    const { id, routed: r } = await deliverCompletion(a.ext, 'A-8');
    expect(r).toMatchObject({ matchStatus: 'matched', workflowId: a.workflowId });
    expect(bed.fake.calls).toEqual([{ workflowId: a.workflowId, signal: { eventId: id, type: COMPLETE, identifier: 'A-8' } }]);
  });

  it('completes a wait begun while the event was recorded: each statement missed the other, so the router looks again after the signal', async () => {
    const runId = uniq('run');
    const ext = uniq('ACC');
    await insertRun(bed.db.pool, runId);
    const workflowId = `wf-${runId}-${ext}`;
    await insertAttempt(bed.db.pool, { runId, ext, workflowId });
    // The activity's statement committed its wait on a snapshot taken before the event's insert committed (it read no event).
    const beginWait = () =>
      bed.db.pool.query(
        `update migrate.account_attempts set stage = 'await', event_wait_activity_id = '7', event_wait_until = now() + interval '60 seconds' where run_id = $1`,
        [runId],
      );
    bed.fake.state.whileSignalling = beginWait;
    const { id, routed } = await deliverCompletion(ext, 'A-10');
    const event = { eventId: id, type: COMPLETE, identifier: 'A-10' };
    expect(routed).toMatchObject({ matchStatus: 'matched', workflowId });
    expect(bed.fake.calls).toEqual([{ workflowId, signal: event }]);
    expect(bed.fake.completions).toEqual([{ workflowId, activityId: '7', result: { kind: 'accepted', event } }]);

    // No wait begun: the signal alone. A wait whose completion Temporal refuses: still matched (the signal went through), the sweep ends it.
    const other = uniq('ACC');
    await insertAttempt(bed.db.pool, { runId, ext: other, workflowId: `${workflowId}-2` });
    bed.fake.state.whileSignalling = undefined;
    await deliverCompletion(other, 'A-11');
    expect(bed.fake.completions).toHaveLength(1);
    await bed.db.pool.query(`update migrate.account_attempts set outcome = 'completed' where run_id = $1 and external_account_number = $2`, [runId, other]);
    const third = uniq('ACC');
    await insertAttempt(bed.db.pool, { runId, ext: third, workflowId: `${workflowId}-3` });
    bed.fake.state.whileSignalling = async () => {
      await bed.db.pool.query(`update migrate.account_attempts set event_wait_activity_id = '9' where external_account_number = $1`, [third]);
      bed.fake.state.completeFailsWith = 'signal_failed';
    };
    expect((await deliverCompletion(third, 'A-12')).routed).toMatchObject({ matchStatus: 'matched', workflowId: `${workflowId}-3` });
    expect(bed.fake.completions).toHaveLength(1);
  });

  it('keeps the event pending for the rematch when Temporal cannot be reached', async () => {
    const a = await waitingAttempt();
    bed.fake.state.completeFailsWith = 'signal_failed';
    const { id, routed: r } = await deliverCompletion(a.ext, 'A-9');
    expect(r).toMatchObject({ matchStatus: 'pending' });
    expect(bed.fake.calls).toEqual([]);
    expect((await inboxRow(bed.db.pool, id)).match_status).toBe('pending');
  });
});

describe('the sweep of waits that ran out', () => {
  it('completes an overdue wait without an event and clears it; a wait still running is left alone', async () => {
    const overdue = await waitingAttempt(0);
    const running = await waitingAttempt(600);
    expect(await endOverdueWaits(bed.deps)).toBeGreaterThanOrEqual(1);
    expect(bed.fake.completions).toContainEqual({ workflowId: overdue.workflowId, activityId: '7', result: { kind: 'accepted', waited: true } });
    expect(bed.fake.completions.map((c) => c.workflowId)).not.toContain(running.workflowId);
    expect((await waitOf(overdue.runId, overdue.ext)).event_wait_activity_id).toBeNull();
    expect((await waitOf(running.runId, running.ext)).event_wait_activity_id).toBe('7');
    // Cleared: the next sweep does not visit it again.
    bed.fake.completions.length = 0;
    await endOverdueWaits(bed.deps);
    expect(bed.fake.completions.map((c) => c.workflowId)).not.toContain(overdue.workflowId);
  });

  it('clears a wait whose activity is gone, without counting it; keeps it when Temporal cannot be reached', async () => {
    bed.fake.state.completeFailsWith = 'signal_failed';
    const kept = await waitingAttempt(0);
    await endOverdueWaits(bed.deps);
    expect((await waitOf(kept.runId, kept.ext)).event_wait_activity_id).toBe('7');
    bed.fake.state.completeFailsWith = 'workflow_gone';
    await endOverdueWaits(bed.deps);
    expect((await waitOf(kept.runId, kept.ext)).event_wait_activity_id).toBeNull();
  });

  it('leaves an attempt with a recorded outcome alone', async () => {
    const a = await waitingAttempt(0);
    await bed.db.pool.query(`update migrate.account_attempts set outcome = 'completed' where run_id = $1`, [a.runId]);
    await endOverdueWaits(bed.deps);
    expect(bed.fake.completions.map((c) => c.workflowId)).not.toContain(a.workflowId);
  });
});
