import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { runWorkflowId } from '../../domain/workflow-ids';
import { eachInParallel } from '../measure/each-in-parallel';

const E = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The SDK's marker for a local activity's result. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

export interface ActionCount {
  workflowStarts: number;
  activityAttempts: number;
  /** Workflow tasks that ran at least one local activity: they count once each, however many ran. */
  localActivityTasks: number;
  timers: number;
  signals: number;
  upserts: number;
  updates: number;
  total: number;
}

/**
 * Temporal Cloud actions recorded in one history, by Temporal's published rules
 * (docs.temporal.io/cloud/actions): a workflow start (client, child or continue-as-new), each
 * activity attempt, the local activities of one workflow task together, each timer started
 * (`condition` with a timeout included), each signal (counted where it is received, so a signal
 * between workflows is not counted twice), each search-attribute upsert, each accepted update.
 * Not visible in history and so not counted: queries, activity heartbeats, rejected updates.
 */
export function actionsOf(events: readonly HistoryEvent[]): ActionCount {
  const c: ActionCount = { workflowStarts: 0, activityAttempts: 0, localActivityTasks: 0, timers: 0, signals: 0, upserts: 0, updates: 0, total: 0 };
  const laTasks = new Set<string>();
  for (const e of events) {
    switch (e.eventType) {
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        c.workflowStarts++;
        break;
      case E.EVENT_TYPE_ACTIVITY_TASK_STARTED:
        // Retries are not in history: the started event carries the attempt that completed or failed last.
        c.activityAttempts += Math.max(1, e.activityTaskStartedEventAttributes?.attempt ?? 1);
        break;
      case E.EVENT_TYPE_MARKER_RECORDED:
        if (e.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER)
          laTasks.add(String(e.markerRecordedEventAttributes.workflowTaskCompletedEventId));
        break;
      case E.EVENT_TYPE_TIMER_STARTED:
        c.timers++;
        break;
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        c.signals++;
        break;
      case E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
        c.upserts++;
        break;
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        c.updates++;
        break;
    }
  }
  c.localActivityTasks = laTasks.size;
  c.total = c.workflowStarts + c.activityAttempts + c.localActivityTasks + c.timers + c.signals + c.upserts + c.updates;
  return c;
}

function add(a: ActionCount, b: ActionCount): ActionCount {
  const out = { ...a };
  for (const k of Object.keys(b) as (keyof ActionCount)[]) out[k] += b[k];
  return out;
}

export interface RunHistoryCost {
  accounts: number;
  /** History events of the account workflows, per account. */
  accountEventsPerAccount: number;
  /** The run workflow's events (every continue-as-new segment) divided by the accounts. */
  runEventsPerAccount: number;
  /** Both together: what one account costs in history. */
  eventsPerAccount: number;
  actionsPerAccount: number;
  /** Actions by kind, per account, run included. */
  actionsByKind: Omit<ActionCount, 'total'>;
  runSegments: number;
}

/**
 * What a run cost in Temporal history and actions, read from every history it wrote: its account
 * workflows (found by `KmRunId`) and every segment of the run workflow.
 */
export async function runHistoryCost(client: Client, runId: string, opts: { parallel?: number } = {}): Promise<RunHistoryCost> {
  const accounts: { workflowId: string; runId: string }[] = [];
  for await (const wf of client.workflow.list({ query: `KmRunId = '${runId}' AND KmKind = 'account'` }))
    accounts.push({ workflowId: wf.workflowId, runId: wf.runId });
  const segments: { workflowId: string; runId: string }[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = '${runWorkflowId(runId)}'` }))
    segments.push({ workflowId: wf.workflowId, runId: wf.runId });

  const zero = actionsOf([]);
  const cost = async (list: { workflowId: string; runId: string }[]) => {
    let events = 0;
    let actions = zero;
    await eachInParallel(list, opts.parallel ?? 8, async (w) => {
      const h = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      const evs = h.events ?? [];
      events += evs.length;
      actions = add(actions, actionsOf(evs));
    });
    return { events, actions };
  };
  const a = await cost(accounts);
  const r = await cost(segments);
  const n = Math.max(1, accounts.length);
  const all = add(a.actions, r.actions);
  const per = (x: number) => Math.round((x / n) * 100) / 100;
  return {
    accounts: accounts.length,
    accountEventsPerAccount: per(a.events),
    runEventsPerAccount: per(r.events),
    eventsPerAccount: per(a.events + r.events),
    actionsPerAccount: per(all.total),
    actionsByKind: {
      workflowStarts: per(all.workflowStarts),
      activityAttempts: per(all.activityAttempts),
      localActivityTasks: per(all.localActivityTasks),
      timers: per(all.timers),
      signals: per(all.signals),
      upserts: per(all.upserts),
      updates: per(all.updates),
    },
    runSegments: segments.length,
  };
}

/**
 * Activity attempts in one history by activity type. An activity's started event carries its last
 * attempt's number; a local activity's marker carries the same in its data (sdk-core's
 * LocalActivityMarkerData, JSON), and a marker with a backoff is an attempt retried later behind a
 * timer: the later marker's number counts it.
 */
export function attemptsByActivity(events: readonly HistoryEvent[]): Map<string, number> {
  const types = new Map<string, string>();
  const out = new Map<string, number>();
  for (const e of events) {
    if (e.eventType === E.EVENT_TYPE_MARKER_RECORDED && e.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER) {
      const raw = e.markerRecordedEventAttributes.details?.data?.payloads?.[0]?.data;
      if (!raw) continue;
      const d = JSON.parse(Buffer.from(raw).toString('utf8')) as { attempt?: number; activity_type?: string; backoff?: unknown };
      if (d.backoff) continue;
      const type = d.activity_type ?? '?';
      out.set(type, (out.get(type) ?? 0) + Math.max(1, d.attempt ?? 1));
    }
    if (e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) types.set(String(e.eventId), e.activityTaskScheduledEventAttributes?.activityType?.name ?? '?');
    if (e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      const a = e.activityTaskStartedEventAttributes;
      const type = types.get(String(a?.scheduledEventId)) ?? '?';
      out.set(type, (out.get(type) ?? 0) + Math.max(1, a?.attempt ?? 1));
    }
  }
  return out;
}

export interface RunActivityAttempts {
  accounts: number;
  /** Every activity attempt of the account workflows, per account. */
  perAccount: number;
  /** Per activity type, per account. */
  byActivity: Record<string, number>;
  /** The schedule activity's attempts: per account, and the most any account took. */
  schedulePerAccount: number;
  scheduleMax: number;
}

/**
 * Activity attempts per account of a run, from its account workflows' histories (Temporal keeps no
 * retried attempt in history, only the attempt number of the last: that number is the count).
 */
export async function runActivityAttempts(
  client: Client,
  runId: string,
  opts: { parallel?: number; scheduleActivity?: string } = {},
): Promise<RunActivityAttempts> {
  const scheduleActivity = opts.scheduleActivity ?? 'scheduleAccount';
  const list: { workflowId: string; runId: string }[] = [];
  for await (const wf of client.workflow.list({ query: `KmRunId = '${runId}' AND KmKind = 'account'` }))
    list.push({ workflowId: wf.workflowId, runId: wf.runId });
  const total = new Map<string, number>();
  let scheduleMax = 0;
  await eachInParallel(list, opts.parallel ?? 4, async (w) => {
    const h = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
    const by = attemptsByActivity(h.events ?? []);
    scheduleMax = Math.max(scheduleMax, by.get(scheduleActivity) ?? 0);
    for (const [k, v] of by) total.set(k, (total.get(k) ?? 0) + v);
  });
  const n = Math.max(1, list.length);
  const per = (x: number) => Math.round((x / n) * 100) / 100;
  return {
    accounts: list.length,
    perAccount: per([...total.values()].reduce((a, b) => a + b, 0)),
    byActivity: Object.fromEntries([...total].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, per(v)])),
    schedulePerAccount: per(total.get(scheduleActivity) ?? 0),
    scheduleMax,
  };
}
