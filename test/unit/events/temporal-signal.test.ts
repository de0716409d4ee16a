import { provisionTemporalCli } from '../../../harness/stack/temporal-cli';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { CompleteAsyncError, Context } from '@temporalio/activity';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createLedger } from '../../../ledger';
import { endOverdueWaits } from '../../../events/router';
import { temporalCompleter, temporalSignaller } from '../../../events/signaller';
import { parseConfig } from '../../../config';
import { startEventsReceiver, type EventsReceiver } from '../../../events/server';
import { WEBHOOK_PATH } from '../../../events/webhook';
import type { awaitImportEvent, awaitScheduleAnswer } from './fixtures/workflows';
import { envelope, inboxRow, insertAttempt, insertRun, quietLogger, signedPost, startTestDb, uniq } from './helpers';

/** The webhook → router → Temporal signal path against a real dev server. */
// The CLI the project provisions (npm run temporal:provision; CI does it before the tests).
const cli = provisionTemporalCli({ quiet: true });
const TEMPORAL_BIN = cli.path;
const TASK_QUEUE = 'events-signal-test';
const SECRET = 'whsec-temporal-test';

let db: Awaited<ReturnType<typeof startTestDb>>;
let env: TestWorkflowEnvironment;
let worker: Worker;
let workerRun: Promise<void>;
let receiver: EventsReceiver;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  [db, env] = await Promise.all([
    startTestDb('temporal'),
    TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'existing-path', path: TEMPORAL_BIN }, ip: '127.0.0.1' } }),
  ]);
  worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue: TASK_QUEUE,
    workflowsPath: path.resolve(__dirname, 'fixtures/workflows.ts'),
    activities: {
      // The schedule activity's wait, as activities/schedule.ts writes it: then it completes asynchronously.
      async waitForEvent(a: { runId: string; externalAccountNumber: string }) {
        const ref = { ...a, supplierCode: 'SUP-A', dryRun: false };
        await createLedger(db.pool).awaitEvent(ref, { activityId: Context.current().info.activityId, seconds: 60 });
        throw new CompleteAsyncError();
      },
    },
  });
  workerRun = worker.run();
  receiver = await startEventsReceiver({
    config: parseConfig({ EVENTS_PORT: '0', EVENTS_WEBHOOK_AUTH: 'hmac', EVENTS_WEBHOOK_SECRET: SECRET }),
    pool: db.pool,
    temporalClient: env.client,
    logger: quietLogger(),
  });
}, 240_000);

afterAll(async () => {
  await receiver?.close();
  worker?.shutdown();
  await workerRun;
  await env?.teardown();
  await db?.stop();
}, 60_000);

describe('signalling the waiting account workflow (real Temporal)', () => {
  it('delivers a signed completion event to the workflow named by the attempt; a later one is late', async () => {
    const runId = uniq('run');
    const ext = uniq('ACC');
    const workflowId = `account-${ext}`;
    const handle = await env.client.workflow.start<typeof awaitImportEvent>('awaitImportEvent', { taskQueue: TASK_QUEUE, workflowId });
    await insertRun(db.pool, runId);
    await insertAttempt(db.pool, { runId, ext, workflowId });

    const id = uniq('evt');
    const body = JSON.stringify(
      envelope('data_import.import_process.complete', { resource_type: 'account', external_identifier: ext, identifier: 'A-5E1F2A3B' }, id),
    );
    const res = await signedPost(receiver.url + WEBHOOK_PATH, SECRET, body);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ status: 'recorded', eventId: id, matchStatus: 'matched', workflowId });

    expect(await handle.result()).toEqual({ eventId: id, type: 'data_import.import_process.complete', identifier: 'A-5E1F2A3B' });
    expect(await inboxRow(db.pool, id)).toMatchObject({ match_status: 'matched', matched_workflow_id: workflowId, matched_run_id: runId });

    // The workflow has returned but the ledger row still looks open: the signal fails, the event is late.
    const lateId = uniq('evt');
    const errBody = JSON.stringify(
      envelope(
        'data_import.import_process.error',
        { resource_type: 'account', external_identifier: ext, error_code: 'import_failed', error_detail: 'x' },
        lateId,
      ),
    );
    const late = await signedPost(receiver.url + WEBHOOK_PATH, SECRET, errBody);
    expect(late.status).toBe(202);
    expect(await late.json()).toMatchObject({ status: 'recorded', eventId: lateId, matchStatus: 'late' });
    expect(await inboxRow(db.pool, lateId)).toMatchObject({ match_status: 'late', note: 'late: workflow already closed' });
  });

  it("completes the schedule activity waiting for the event (through the client's codec), and says so once it is gone (the sweep then clears the wait)", async () => {
    const runId = uniq('run');
    const ext = uniq('ACC');
    const workflowId = `account-${ext}`;
    await insertRun(db.pool, runId);
    await insertAttempt(db.pool, { runId, ext, workflowId });
    const handle = await env.client.workflow.start<typeof awaitScheduleAnswer>('awaitScheduleAnswer', {
      taskQueue: TASK_QUEUE,
      workflowId,
      args: [{ runId, externalAccountNumber: ext }],
    });
    // The activity has written its wait.
    for (let i = 0; i < 200; i++) {
      const r = await db.pool.query(`select event_wait_activity_id from migrate.account_attempts where run_id = $1`, [runId]);
      if (r.rows[0]?.event_wait_activity_id) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    const id = uniq('evt');
    const body = JSON.stringify(
      envelope('data_import.import_process.complete', { resource_type: 'account', external_identifier: ext, identifier: 'A-5E1F2A3C' }, id),
    );
    const res = await signedPost(receiver.url + WEBHOOK_PATH, SECRET, body);
    expect(await res.json()).toEqual({ status: 'recorded', eventId: id, matchStatus: 'matched', workflowId });
    expect(await handle.result()).toEqual({ kind: 'accepted', event: { eventId: id, type: 'data_import.import_process.complete', identifier: 'A-5E1F2A3C' } });
    // No signal: the answer came as the activity's completion.
    const history = await handle.fetchHistory();
    expect(history.events?.some((e) => e.workflowExecutionSignaledEventAttributes)).toBe(false);

    // The activity is gone now: completing it again says so, and the sweep clears the wait.
    const deps = { pool: db.pool, logger: quietLogger(), signal: temporalSignaller(env.client), complete: temporalCompleter(env.client) };
    await expect(deps.complete({ workflowId, activityId: '1' }, { kind: 'accepted', waited: true })).rejects.toMatchObject({ code: 'workflow_gone' });
    await db.pool.query(`update migrate.account_attempts set event_wait_until = now() - interval '1 second' where run_id = $1`, [runId]);
    expect(await endOverdueWaits(deps)).toBe(0);
    const r = await db.pool.query(`select event_wait_activity_id from migrate.account_attempts where run_id = $1`, [runId]);
    expect(r.rows[0].event_wait_activity_id).toBeNull();
  });
});
