import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { countHistory, replayCheck } from '../../rehearsal/replay-check';

/**
 * A real history: the run workflow of a 10-account run on two workers without a workflow cache, one
 * of them frozen past the workflow task timeout (recorded by test/e2e/rehearsal/replay-check.test.ts
 * with REPLAY_CHECK_FIXTURE; payloads decrypted). Its first workflow task (event 3) was handed to
 * the frozen worker and timed out (event 4); the retry completed.
 */
const raw = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'run-task-timed-out.json'), 'utf8'));
const recorded = temporal.api.history.v1.History.decode(Buffer.from(raw.history, 'base64'));
const EventType = temporal.api.enums.v1.EventType;
const Cause = temporal.api.enums.v1.WorkflowTaskFailedCause;

/**
 * The recorded history with a workflow task failure appended, in the form the server records one
 * (a WorkflowTaskFailed event after the task's Started event). The message is the TypeScript SDK's
 * for a nondeterministic replay (the README's known issue quotes it).
 */
function withFailure(cause: number, message: string, events = recorded.events) {
  const last = events.length;
  return [
    ...events.slice(0, -1),
    temporal.api.history.v1.HistoryEvent.fromObject({ eventId: last, eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED }),
    temporal.api.history.v1.HistoryEvent.fromObject({ eventId: last + 1, eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED }),
    temporal.api.history.v1.HistoryEvent.fromObject({
      eventId: last + 2,
      eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
      workflowTaskFailedEventAttributes: { cause, identity: 'kraken-migrate-worker@vm:1', failure: { message } },
    }),
  ];
}
const NDE = '[TMPRL1100] Nondeterminism error: No command scheduled for event 688, StartChildWorkflowExecutionInitiated';

describe('countHistory', () => {
  it('counts the timed-out workflow task of a real history, and nothing failed', () => {
    expect(countHistory(recorded.events)).toEqual({
      events: 80,
      workflowTaskFailed: 0,
      failedByCause: {},
      nondeterminism: 0,
      workflowTaskTimedOut: 1,
      timedOutByType: { START_TO_CLOSE: 1 },
      // The frozen worker (pid 21140) had started the task (event 3).
      timedOutByWorker: { 'kraken-migrate-worker@vm:21140': 1 },
      timedOutBetween: { first: Date.parse('2026-11-25T19:13:46.311Z'), last: Date.parse('2026-11-25T19:13:46.311Z') },
      failures: [],
    });
  });

  it('counts a nondeterministic replay as a failure and as nondeterminism, with its event id, cause, message and worker', () => {
    const c = countHistory(withFailure(Cause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR, NDE));
    expect(c).toMatchObject({ workflowTaskFailed: 1, failedByCause: { NON_DETERMINISTIC_ERROR: 1 }, nondeterminism: 1, workflowTaskTimedOut: 1 });
    expect(c.failures).toEqual([
      { eventId: 82, cause: 'NON_DETERMINISTIC_ERROR', nondeterministic: true, message: NDE, identity: 'kraken-migrate-worker@vm:1' },
    ]);
  });

  it('takes the cause NON_DETERMINISTIC_ERROR as nondeterminism whatever the message says', () => {
    const c = countHistory(withFailure(Cause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR, 'Workflow activation completion failed'));
    expect(c).toMatchObject({ workflowTaskFailed: 1, nondeterminism: 1, failures: [{ nondeterministic: true }] });
  });

  it('counts other workflow task failures by cause without calling them nondeterminism, unless the SDK says TMPRL1100', () => {
    const other = countHistory(withFailure(Cause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND, 'unhandled command'));
    expect(other).toMatchObject({ workflowTaskFailed: 1, failedByCause: { UNHANDLED_COMMAND: 1 }, nondeterminism: 0 });
    const unhandled = countHistory(withFailure(Cause.WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE, NDE));
    expect(unhandled).toMatchObject({ workflowTaskFailed: 1, failedByCause: { WORKFLOW_WORKER_UNHANDLED_FAILURE: 1 }, nondeterminism: 1 });
  });
});

/** A Temporal client with `n` account workflows and one run workflow, each `history`; counts fetches in flight. */
function fakeClient(n: number, history: (i: number) => temporal.api.history.v1.IHistoryEvent[]) {
  const runId = 'run-fake';
  const accounts = Array.from({ length: n }, (_, i) => ({ type: 'accountImportWorkflow', workflowId: `account-import/S/A-${i}`, runId: `r${i}` }));
  const run = { type: 'migrationRunWorkflow', workflowId: `migration-run/${runId}`, runId: 'r-run' };
  const queries: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client = {
    options: { loadedDataConverter: { payloadCodecs: [], payloadConverter: {} } },
    workflow: {
      async *list({ query }: { query: string }) {
        queries.push(query);
        // The run workflow carries KmRunId too: both queries find it, and it is read once.
        if (query.startsWith('KmRunId')) yield* [...accounts, run];
        else yield run;
      },
      getHandle(workflowId: string) {
        return {
          async fetchHistory() {
            inFlight += 1;
            maxInFlight = Math.max(maxInFlight, inFlight);
            await new Promise((r) => setImmediate(r));
            inFlight -= 1;
            const i = accounts.findIndex((a) => a.workflowId === workflowId);
            return { events: history(i) };
          },
        };
      },
    },
  } as unknown as Client;
  return { client, runId, queries, maxInFlight: () => maxInFlight };
}

describe('replayCheck', () => {
  it('reads every workflow of the run once, at most `concurrency` at a time, and adds up their counts', async () => {
    const f = fakeClient(10_000, (i) => (i === 4242 ? withFailure(Cause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR, NDE) : recorded.events));
    const progress: number[] = [];
    const s = await replayCheck(f.client, f.runId, { concurrency: 8, onProgress: (read) => progress.push(read) });
    expect(f.queries).toEqual([`KmRunId = 'run-fake'`, `WorkflowId = 'migration-run/run-fake'`]);
    expect(f.maxInFlight()).toBe(8);
    expect(progress).toEqual([1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000]);
    expect(s).toMatchObject({
      runId: 'run-fake',
      workflowsScanned: 10_001,
      accountWorkflows: 10_000,
      runSegments: 1,
      events: 10_001 * 80 + 2,
      workflowTaskFailed: 1,
      failedByCause: { NON_DETERMINISTIC_ERROR: 1 },
      nondeterminism: 1,
      workflowTaskTimedOut: 10_001,
      timedOutByType: { START_TO_CLOSE: 10_001 },
      timedOutByWorker: { 'kraken-migrate-worker@vm:21140': 10_001 },
      timedOutBetween: { first: '2026-11-25T19:13:46.311Z', last: '2026-11-25T19:13:46.311Z' },
      workflowsWithTimeouts: 10_001,
    });
    expect(s.failures).toEqual([
      {
        workflowId: 'account-import/S/A-4242',
        runId: 'r4242',
        workflowType: 'accountImportWorkflow',
        eventId: 82,
        cause: 'NON_DETERMINISTIC_ERROR',
        nondeterministic: true,
        message: NDE,
        identity: 'kraken-migrate-worker@vm:1',
      },
    ]);
  });

  it('lists every nondeterministic failure first and other failures only up to maxFailures', async () => {
    const f = fakeClient(6, (i) =>
      i < 0
        ? recorded.events // the run workflow
        : i < 4
          ? withFailure(Cause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND, `other ${i}`)
          : withFailure(Cause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR, NDE),
    );
    const s = await replayCheck(f.client, f.runId, { concurrency: 1, maxFailures: 1 });
    expect(s.workflowTaskFailed).toBe(6);
    expect(s.nondeterminism).toBe(2);
    expect(s.failures.map((x) => [x.workflowId, x.nondeterministic])).toEqual([
      ['account-import/S/A-4', true],
      ['account-import/S/A-5', true],
    ]);
  });

  it('spans the timeouts from the first to the last, and names each worker that held one', async () => {
    const later = recorded.events.map((ev) =>
      ev.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT
        ? temporal.api.history.v1.HistoryEvent.fromObject({
            ...temporal.api.history.v1.HistoryEvent.toObject(ev as temporal.api.history.v1.HistoryEvent),
            eventTime: { seconds: 1795634026 + 60, nanos: 0 },
          })
        : ev.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED && Number(String(ev.eventId)) === 3
          ? temporal.api.history.v1.HistoryEvent.fromObject({
              eventId: 3,
              eventType: ev.eventType,
              workflowTaskStartedEventAttributes: { identity: 'kraken-migrate-worker@vm:2' },
            })
          : ev,
    );
    const f = fakeClient(2, (i) => (i === 1 ? later : recorded.events));
    const s = await replayCheck(f.client, f.runId);
    expect(s.timedOutBetween).toEqual({ first: '2026-11-25T19:13:46.311Z', last: '2026-11-25T19:14:46.000Z' });
    expect(s.timedOutByWorker).toEqual({ 'kraken-migrate-worker@vm:21140': 2, 'kraken-migrate-worker@vm:2': 1 });
  });

  it('refuses a run id that would break out of the visibility query, and a concurrency below 1', async () => {
    const f = fakeClient(1, () => recorded.events);
    await expect(replayCheck(f.client, "x' OR KmKind = 'run")).rejects.toThrow(
      /replayCheck runId="x' OR KmKind = 'run": letters, digits and \. _ : \/ \+ - only/,
    );
    await expect(replayCheck(f.client, f.runId, { concurrency: 0 })).rejects.toThrow(/concurrency=0: a whole number, 1 or more/);
  });
});
