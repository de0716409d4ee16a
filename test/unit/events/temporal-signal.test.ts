import { provisionTemporalCli } from '../../../harness/stack/temporal-cli';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { parseConfig } from '../../../config';
import { startEventsReceiver, type EventsReceiver } from '../../../events/server';
import { WEBHOOK_PATH } from '../../../events/webhook';
import type { awaitImportEvent } from './fixtures/workflows';
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
});
