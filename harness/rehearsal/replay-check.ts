import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { runWorkflowId } from '../../domain/workflow-ids';
import { eachInParallel } from '../measure/each-in-parallel';

/**
 * The replay check of a run: every workflow the run wrote (its account workflows, found by their
 * `KmRunId` search attribute (activities/run.ts `startAccounts` sets it), and every segment of the
 * run workflow itself), read back from Temporal's history and counted for what a lost workflow cache
 * shows: workflow tasks that failed (a nondeterministic replay above all) and workflow tasks that
 * timed out (a worker that froze or died holding them, rehearsal/stall-worker.ts). A run replays
 * cleanly when `nondeterminism` is 0; the timeouts prove the replays really happened.
 */

const EventType = temporal.api.enums.v1.EventType;
const WorkflowTaskFailedCause = temporal.api.enums.v1.WorkflowTaskFailedCause;
const TimeoutType = temporal.api.enums.v1.TimeoutType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A workflow task that failed: where, why, and the SDK's own words (at most MESSAGE_CHARS). */
export interface WorkflowTaskFailure {
  workflowId: string;
  runId: string;
  workflowType: string;
  eventId: number;
  /** The cause without its `WORKFLOW_TASK_FAILED_CAUSE_` prefix: `NON_DETERMINISTIC_ERROR`, … */
  cause: string;
  nondeterministic: boolean;
  message: string;
  /** The worker that failed the task. */
  identity: string;
}

/** What one history holds of interest to the check. */
export interface HistoryCounts {
  events: number;
  workflowTaskFailed: number;
  /** WorkflowTaskFailed events by cause (prefix dropped). */
  failedByCause: Record<string, number>;
  nondeterminism: number;
  workflowTaskTimedOut: number;
  /** WorkflowTaskTimedOut events by timeout type: `START_TO_CLOSE` (a worker held the task), `SCHEDULE_TO_START` (a sticky queue nobody polled). */
  timedOutByType: Record<string, number>;
  /** WorkflowTaskTimedOut events by the identity of the worker that held the task (its WorkflowTaskStarted event); `(not started)` for SCHEDULE_TO_START. */
  timedOutByWorker: Record<string, number>;
  /** When the first and the last WorkflowTaskTimedOut event were recorded (ms since the epoch): inside a stall, or all along? */
  timedOutBetween?: { first: number; last: number };
  /** The failed tasks' events, in history order. */
  failures: Array<{ eventId: number; cause: string; nondeterministic: boolean; message: string; identity: string; encoded?: temporal.api.failure.v1.IFailure }>;
}

/** The counts of every history of a run added up (`HistoryCounts`), with what was scanned. */
export interface ReplayCheckSummary extends Omit<HistoryCounts, 'timedOutBetween' | 'failures'> {
  runId: string;
  /** Every workflow execution read: account workflows, run segments and any other workflow of the run. */
  workflowsScanned: number;
  accountWorkflows: number;
  runSegments: number;
  /** First and last WorkflowTaskTimedOut event (ISO 8601), to set beside the stall's start and end. */
  timedOutBetween?: { first: string; last: string };
  /** Workflow executions with at least one WorkflowTaskTimedOut event (each one replayed on a retry). */
  workflowsWithTimeouts: number;
  /** Every nondeterministic failure, then other failures, up to `maxFailures`. */
  failures: WorkflowTaskFailure[];
  /** How long the scan took, listing included (s). */
  seconds: number;
}

export interface ReplayCheckOptions {
  /** Histories fetched at once (default 8). */
  concurrency?: number;
  /** Failures listed in the summary (default 50; the counts are always complete). */
  maxFailures?: number;
  /** Called every `progressEvery` histories (default 1,000) with how many are read so far. */
  onProgress?: (read: number, total: number) => void;
  progressEvery?: number;
}

/** Messages are the SDK's, about commands and events; still, only the first characters are kept for a report. */
export const MESSAGE_CHARS = 500;

/** The SDK names a nondeterministic replay TMPRL1100 (docs: "Nondeterminism error"), whatever cause a failure carries. */
const NONDETERMINISM_MESSAGE = /TMPRL1100|nondetermin/i;

const enumName = (names: Record<number, string>, value: number | null | undefined, prefix: string) =>
  (names[value ?? 0] ?? `UNKNOWN_${value}`).replace(prefix, '');
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(String(v)));
const bump = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);

/** Every count at zero: where one history's counts start, and the run's sum. */
function noCounts(): Omit<HistoryCounts, 'timedOutBetween' | 'failures'> {
  return { events: 0, workflowTaskFailed: 0, failedByCause: {}, nondeterminism: 0, workflowTaskTimedOut: 0, timedOutByType: {}, timedOutByWorker: {} };
}

/** Counts one workflow execution's history. */
export function countHistory(events: readonly HistoryEvent[]): HistoryCounts {
  const c: HistoryCounts = { ...noCounts(), events: events.length, failures: [] };
  /** Who started each workflow task, by the Started event's id: a timeout names its worker through it. */
  const startedBy = new Map<number, string>();
  for (const e of events) {
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) startedBy.set(num(e.eventId), e.workflowTaskStartedEventAttributes?.identity ?? '');
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) {
      const a = e.workflowTaskFailedEventAttributes ?? {};
      const cause = enumName(WorkflowTaskFailedCause, a.cause, 'WORKFLOW_TASK_FAILED_CAUSE_');
      const message = a.failure?.message ?? '';
      const nondeterministic = a.cause === WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR || NONDETERMINISM_MESSAGE.test(message);
      c.workflowTaskFailed += 1;
      bump(c.failedByCause, cause);
      if (nondeterministic) c.nondeterminism += 1;
      c.failures.push({
        eventId: num(e.eventId),
        cause,
        nondeterministic,
        message: message.slice(0, MESSAGE_CHARS),
        identity: a.identity ?? '',
        ...(a.failure?.encodedAttributes ? { encoded: a.failure } : {}),
      });
    } else if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT) {
      const a = e.workflowTaskTimedOutEventAttributes ?? {};
      c.workflowTaskTimedOut += 1;
      bump(c.timedOutByType, enumName(TimeoutType, a.timeoutType, 'TIMEOUT_TYPE_'));
      bump(c.timedOutByWorker, startedBy.get(num(a.startedEventId ?? 0)) || '(not started)');
      const at = e.eventTime ? num(e.eventTime.seconds) * 1000 + Math.floor((e.eventTime.nanos ?? 0) / 1e6) : undefined;
      if (at !== undefined) c.timedOutBetween = { first: Math.min(c.timedOutBetween?.first ?? at, at), last: Math.max(c.timedOutBetween?.last ?? at, at) };
    }
  }
  return c;
}

interface Execution {
  workflowId: string;
  runId: string;
  workflowType: string;
}

/** A run id goes into a visibility query between single quotes: refuse one that would end them. */
function quoted(runId: string): string {
  if (!/^[A-Za-z0-9._:/+-]+$/.test(runId)) throw new RangeError(`replayCheck runId=${JSON.stringify(runId)}: letters, digits and . _ : / + - only`);
  return `'${runId}'`;
}

/** Every execution of the run: what carries its KmRunId, and each segment of the run workflow (deduplicated). */
async function executionsOf(client: Client, runId: string): Promise<Execution[]> {
  const seen = new Map<string, Execution>();
  for (const query of [`KmRunId = ${quoted(runId)}`, `WorkflowId = ${quoted(runWorkflowId(runId))}`]) {
    for await (const wf of client.workflow.list({ query })) {
      seen.set(`${wf.workflowId}\n${wf.runId}`, { workflowId: wf.workflowId, runId: wf.runId, workflowType: wf.type });
    }
  }
  return [...seen.values()];
}

/**
 * Scans every workflow of `runId` and counts what their histories say about replays (countHistory).
 * Histories are fetched `concurrency` at a time and dropped once counted, so memory stays flat: at 8
 * at a time, 10,000 account workflows of ~20 events each read in a minute or two on a local server.
 */
export async function replayCheck(client: Client, runId: string, opts: ReplayCheckOptions = {}): Promise<ReplayCheckSummary> {
  const concurrency = opts.concurrency ?? 8;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`replayCheck concurrency=${concurrency}: a whole number, 1 or more`);
  const maxFailures = opts.maxFailures ?? 50;
  const started = Date.now();
  const executions = await executionsOf(client, runId);
  const runWf = runWorkflowId(runId);
  const total: ReplayCheckSummary = {
    runId,
    workflowsScanned: 0,
    accountWorkflows: executions.filter((x) => x.workflowType === 'accountImportWorkflow').length,
    runSegments: executions.filter((x) => x.workflowId === runWf).length,
    ...noCounts(),
    workflowsWithTimeouts: 0,
    failures: [],
    seconds: 0,
  };
  const failures: WorkflowTaskFailure[] = [];
  let first = Infinity;
  let last = -Infinity;
  await eachInParallel(executions, concurrency, async (x) => {
    const history = await client.workflow.getHandle(x.workflowId, x.runId).fetchHistory();
    const c = countHistory(history.events ?? []);
    total.workflowsScanned += 1;
    total.events += c.events;
    total.workflowTaskFailed += c.workflowTaskFailed;
    total.nondeterminism += c.nondeterminism;
    total.workflowTaskTimedOut += c.workflowTaskTimedOut;
    if (c.workflowTaskTimedOut > 0) total.workflowsWithTimeouts += 1;
    for (const [k, n] of Object.entries(c.failedByCause)) total.failedByCause[k] = (total.failedByCause[k] ?? 0) + n;
    for (const [k, n] of Object.entries(c.timedOutByType)) total.timedOutByType[k] = (total.timedOutByType[k] ?? 0) + n;
    for (const [k, n] of Object.entries(c.timedOutByWorker)) total.timedOutByWorker[k] = (total.timedOutByWorker[k] ?? 0) + n;
    if (c.timedOutBetween) {
      first = Math.min(first, c.timedOutBetween.first);
      last = Math.max(last, c.timedOutBetween.last);
    }
    for (const f of c.failures) {
      // Nondeterminism is the finding: every one is kept; other failures while there is room.
      if (!f.nondeterministic && failures.length >= maxFailures) continue;
      const message = f.encoded ? await decodedMessage(client, f.encoded) : f.message;
      failures.push({
        workflowId: x.workflowId,
        runId: x.runId,
        workflowType: x.workflowType,
        eventId: f.eventId,
        cause: f.cause,
        nondeterministic: f.nondeterministic,
        message,
        identity: f.identity,
      });
    }
    if (opts.onProgress && total.workflowsScanned % (opts.progressEvery ?? 1000) === 0) opts.onProgress(total.workflowsScanned, executions.length);
  });
  failures.sort((a, b) => Number(b.nondeterministic) - Number(a.nondeterministic));
  total.failures = failures.slice(0, Math.max(maxFailures, failures.filter((f) => f.nondeterministic).length));
  if (first <= last) total.timedOutBetween = { first: new Date(first).toISOString(), last: new Date(last).toISOString() };
  total.seconds = Math.round((Date.now() - started) / 100) / 10;
  return total;
}

/**
 * A failure whose message the project's failure converter moved into encrypted attributes
 * (codec/failure-converter.ts): decoded with the client's own codec, as the Web UI's codec server would.
 */
async function decodedMessage(client: Client, failure: temporal.api.failure.v1.IFailure): Promise<string> {
  const dc = client.options.loadedDataConverter;
  try {
    let payloads = [failure.encodedAttributes!];
    for (const codec of [...dc.payloadCodecs].reverse()) payloads = await codec.decode(payloads);
    const attrs = dc.payloadConverter.fromPayload<{ message?: string }>(payloads[0]);
    return (attrs.message ?? failure.message ?? '').slice(0, MESSAGE_CHARS);
  } catch {
    return (failure.message ?? '').slice(0, MESSAGE_CHARS);
  }
}
