import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { PlanActivities } from '../activities/plan';
import { dispatchLimitSignal, type RunProgress } from '../domain/messages';
import {
  approveGate,
  controlPlan,
  planStatusQuery,
  type ApproveGateArgs,
  type GateStatus,
  type PlanArgs,
  type PlanState,
  type PlanStatus,
  type PlanWaveArgs,
  type WaveStatus,
} from '../domain/plan-messages';
import { dispatchGate, expandWindows, localDay, windowAt, type Interval } from '../domain/plan-windows';
import { runWorkflowId } from '../domain/workflow-ids';
import { approvalRefusal, exitNumbersMet, reconciledRate } from '../domain/plan-gates';

const acts = proxyActivities<PlanActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 30 },
});

const TERMINAL = new Set(['completed', 'skipped', 'cancelled']);
const iso = (t: number) => new Date(t).toISOString();

/**
 * A cutover plan (docs/plan.md): its waves in order, each a migration run started with its dispatch
 * held. The plan opens the run's dispatch while one of the wave's windows is open and its daily cap
 * allows (dispatchLimitSignal: a count and an instant, so the run itself never dispatches past a
 * window's end), closes it otherwise (accounts in flight finish, the rest wait; none is marked
 * failed), and waits for the sign-offs its gates name. Durable timers only; continues as new to
 * keep its history bounded over weeks. The wave's run stops its own line (its stopLine settings).
 */
export async function cutoverPlanWorkflow(input: PlanArgs): Promise<PlanStatus> {
  const st: PlanState = input.state ?? {
    current: 0,
    cancelled: false,
    waves: input.waves.map((w) => ({ state: 'pending', runStarted: false, status: initialStatus(w) })),
  };
  const intervals: Interval[][] = input.waves.map((w) => expandWindows(w.windows, input.timezone));
  if (!input.state) st.waves.forEach((ws, i) => (ws.status.windows = intervals[i].map((x) => ({ start: iso(x.start), end: iso(x.end) }))));
  let woken = false;

  const status = (): PlanStatus => ({
    id: input.planId,
    name: input.name,
    timezone: input.timezone,
    state: st.cancelled ? 'cancelled' : st.current >= input.waves.length ? 'completed' : 'running',
    current_wave: input.waves[st.current]?.name ?? null,
    waves: st.waves.map((w) => ({ ...w.status, state: w.state })),
  });
  const waveIndex = (name: string | undefined): number => {
    const i = input.waves.findIndex((w) => w.name === name);
    if (i < 0)
      throw ApplicationFailure.create({ type: 'unknown_wave', message: `no wave ${JSON.stringify(name)} in plan ${input.planId}`, nonRetryable: true });
    return i;
  };

  setHandler(planStatusQuery, status);
  setHandler(
    approveGate,
    async ({ wave, gate, by, note }) => {
      const i = waveIndex(wave);
      const ws = st.waves[i];
      const g = ws.status.gates[gate];
      const rec = await acts.recordPlanSignOff({ planId: input.planId, wave, gate, signedBy: by, note: note ?? null });
      Object.assign(g, { state: 'approved', approved_by: rec.signedBy, approved_at: rec.signedAt, note: rec.note });
      log.info('plan gate signed off', { planId: input.planId, wave, gate, by: rec.signedBy });
      woken = true;
      return { ...ws.status, state: ws.state };
    },
    {
      validator: ({ wave, gate, by }: ApproveGateArgs) => {
        const ws = st.waves[waveIndex(wave)];
        const refusal = approvalRefusal({ wave, gate, by, waveState: ws.state, status: ws.status.gates[gate] });
        if (refusal) throw new Error(refusal);
      },
    },
  );
  setHandler(controlPlan, async ({ action, wave }) => {
    if (action === 'cancel') {
      st.cancelled = true;
      const run = input.waves[st.current]?.run.runId;
      if (run && st.waves[st.current].runStarted) await acts.controlPlanRun({ runId: run, action: 'cancel', reason: `plan ${input.planId} cancelled` });
    } else {
      const i = waveIndex(wave);
      const ws = st.waves[i];
      if (action === 'skip') {
        if (!TERMINAL.has(ws.state)) ws.state = 'skipped';
        if (ws.runStarted) await acts.controlPlanRun({ runId: input.waves[i].run.runId, action: 'cancel', reason: `wave ${wave} skipped` });
      } else if (ws.runStarted) await acts.controlPlanRun({ runId: input.waves[i].run.runId, action: 'resume' });
    }
    woken = true;
    return status();
  });

  for (; st.current < input.waves.length && !st.cancelled; st.current++) {
    const i = st.current;
    const w = input.waves[i];
    const ws = st.waves[i];
    if (TERMINAL.has(ws.state)) continue;

    // Entry gate: a named sign-off before anything of the wave starts.
    if (ws.status.gates.entry.state !== 'not_required' && ws.status.gates.entry.state !== 'approved') {
      ws.state = 'waiting_entry_sign_off';
      ws.status.gates.entry.state = 'waiting';
      details();
      await condition(() => ws.status.gates.entry.state === 'approved' || ws.state === 'skipped' || st.cancelled);
      if (skipped(ws) || st.cancelled) continue;
    }

    if (!ws.runStarted) {
      ws.state = 'waiting_window';
      await acts.startPlanRun({ planId: input.planId, wave: w.name, run: { ...w.run, dispatch: { limit: 0, until: null } } });
      ws.runStarted = true;
    }

    // Windows and the daily cap, until the run ends.
    for (;;) {
      const r = await acts.planRunProgress({ runId: w.run.runId });
      if (r.progress) book(ws, r.progress);
      if (r.closed || ws.state === 'skipped' || st.cancelled) break;
      const p = r.progress!;
      const now = Date.now();
      const day = localDay(now, input.timezone);
      if (ws.day?.day !== day) ws.day = { day, base: p.totals.dispatched };
      const startedToday = p.totals.dispatched - ws.day.base;
      const gate = dispatchGate({ intervals: intervals[i], now, zone: input.timezone, dailyCap: w.dailyCap, startedToday });
      // Closed: nothing more (until 0 has passed); open: up to the day's cap, and never past the window's end or the cap's midnight.
      const bound = gate.open ? { limit: w.dailyCap === undefined ? null : ws.day.base + w.dailyCap, until: gate.until } : { limit: 0, until: 0 };
      if (ws.bound?.limit !== bound.limit || ws.bound?.until !== bound.until) {
        await getExternalWorkflowHandle(runWorkflowId(w.run.runId)).signal(dispatchLimitSignal, bound);
        ws.bound = bound;
      }
      ws.status.started_today = startedToday;
      const next = gate.open
        ? windowAt(intervals[i], now)
        : gate.reason === 'no_window_left'
          ? undefined
          : { start: gate.until, end: windowAt(intervals[i], gate.until)?.end ?? gate.until };
      ws.status.next_window = next ? { start: iso(next.start), end: iso(next.end) } : null;
      if (p.stopLine?.state.tripped) ws.state = 'stopped_line';
      else if (gate.open) ws.state = 'running';
      else ws.state = gate.reason === 'daily_cap' ? 'capped' : gate.reason === 'outside_window' ? 'waiting_window' : 'out_of_windows';
      details();

      if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > input.continueAsNewAtEvents) {
        await condition(allHandlersFinished);
        await continueAsNew<typeof cutoverPlanWorkflow>({ ...input, state: st });
      }
      woken = false;
      const wait = Math.max(1, Math.min('until' in gate ? gate.until - now : Number.POSITIVE_INFINITY, input.pollSeconds * 1000));
      await condition(() => woken, wait);
    }
    if (st.cancelled) break;
    if (ws.state === 'skipped') continue;

    // Exit gate: the reconciled share, then a named sign-off.
    const exit = ws.status.gates.exit;
    exit.reconciled_rate = reconciledRate(ws.status.accounts);
    if (!exitNumbersMet(exit.reconciled_rate, exit.min_reconciled_rate)) {
      ws.state = 'exit_not_met';
      exit.state = 'not_met';
      details();
      await condition(() => ws.state === 'skipped' || st.cancelled);
      continue;
    }
    if (exit.state !== 'not_required' && exit.state !== 'approved') {
      ws.state = 'waiting_exit_sign_off';
      exit.state = 'waiting';
      details();
      await condition(() => exit.state === 'approved' || ws.state === 'skipped' || st.cancelled);
      if (skipped(ws) || st.cancelled) continue;
    }
    ws.state = 'completed';
    details();
  }
  for (const ws of st.waves) if (!TERMINAL.has(ws.state) && st.cancelled) ws.state = 'cancelled';
  details();
  await condition(allHandlersFinished);
  return status();

  /** The plan's page in the Temporal UI: each wave, its counts, its next window, what its gates wait on. */
  function details(): void {
    const lines = st.waves.map((ws, i) => {
      const s = ws.status;
      const a = s.accounts;
      const gates = (['entry', 'exit'] as const)
        .map((g) => (s.gates[g].state === 'waiting' ? `${g} gate waits on ${s.gates[g].required_by ?? 'a sign-off'}` : ''))
        .filter(Boolean);
      return `- **${s.name}** ${ws.state}${i === st.current ? ' ◀' : ''}: started ${a.started}${a.planned !== null ? `/${a.planned}` : ''}, completed ${a.completed}, failed ${a.failed}, not attempted ${a.not_attempted}${s.next_window ? `; window ${s.next_window.start} – ${s.next_window.end}` : ''}${s.stop_line.tripped ? `; ${s.stop_line.reason}` : ''}${gates.length ? `; ${gates.join(', ')}` : ''}`;
    });
    setCurrentDetails(`Cutover plan **${input.name}** (${input.timezone})\n\n${lines.join('\n')}`);
  }
}

/** Read through a function: the handlers change it while the loop waits (no narrowing across an await). */
function skipped(ws: PlanState['waves'][number]): boolean {
  return ws.state === 'skipped';
}

function book(ws: PlanState['waves'][number], p: RunProgress): void {
  const a = ws.status.accounts;
  a.started = p.totals.dispatched;
  a.completed = p.totals.completed;
  a.failed = p.totals.failed;
  a.not_attempted = p.totals.notAttempted;
  a.in_flight = p.inFlight;
  if (a.planned === null && p.exhausted) a.planned = p.totals.enumerated;
  const t = p.stopLine?.state.tripped;
  ws.status.stop_line = { tripped: t !== undefined, reason: t?.message ?? null };
}

function gateOf(signOff: boolean | string): GateStatus {
  return {
    state: signOff === false ? 'not_required' : 'pending',
    required_by: typeof signOff === 'string' ? signOff : null,
    approved_by: null,
    approved_at: null,
    note: null,
  };
}

function initialStatus(w: PlanWaveArgs): WaveStatus {
  return {
    name: w.name,
    state: 'pending',
    runs: [w.run.runId],
    accounts: { planned: w.planned ?? null, started: 0, completed: 0, failed: 0, not_attempted: 0, in_flight: 0 },
    windows: [],
    next_window: null,
    daily_cap: w.dailyCap ?? null,
    started_today: 0,
    stop_line: { tripped: false, reason: null },
    gates: {
      entry: gateOf(w.entrySignOff),
      exit: { ...gateOf(w.exitSignOff), reconciled_rate: null, min_reconciled_rate: w.minReconciledRate ?? null },
    },
  };
}
