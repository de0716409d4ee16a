import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { PlanActivities } from '../activities/plan';
import type { CensusActivities } from '../activities/census';
import { CENSUS_READ, RUN_LEDGER } from './activity-options';
import { dispatchLimitSignal, type RunProgress } from '../domain/messages';
import { approveGate, controlPlan, planStatusQuery, type ApproveGateArgs, type PlanArgs, type PlanState, type PlanStatus } from '../domain/plan-messages';
import { dispatchBound, dispatchGate, expandWindows, localDay, type Interval } from '../domain/plan-windows';
import { runWorkflowId, trialRunId } from '../domain/workflow-ids';
import {
  approvalRefusal,
  dryRunGate,
  entryGateForTrial,
  entryGateWaits,
  exitGate,
  formatRate,
  onSupplyRate,
  supplyGate,
  trialAgainAtEntry,
  trialLoadDue,
  trialRefusal,
} from '../domain/plan-gates';
import {
  boundChanged,
  cancelReachesWave,
  capDay,
  currentWaveIndex,
  nextWindowShown,
  planCarryOver,
  planState,
  pollDelayMs,
  trialStateAfterPoll,
  waveStateAfterPoll,
} from '../domain/wave-poll';
import { initialWaveStatus, waveAccounts, waveStopLine, zeroAccounts } from '../domain/wave-status';
import { DEFAULT_STUCK_PENDING_SECONDS } from '../domain/census';
import { waveDependencies, waveReady } from '../domain/plan-waves';

const acts = proxyActivities<PlanActivities>(RUN_LEDGER);

const censusActs = proxyActivities<CensusActivities>(CENSUS_READ);

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
    waves: input.waves.map((w) => ({ state: 'pending', runStarted: false, status: initialWaveStatus(w) })),
  };
  const intervals: Interval[][] = input.waves.map((w) => expandWindows(w.windows, input.timezone));
  if (!input.state) st.waves.forEach((ws, i) => (ws.status.windows = intervals[i].map((x) => ({ start: iso(x.start), end: iso(x.end) }))));
  const deps = waveDependencies(input.waves);
  // Handlers move it; a wave waiting between looks wakes when it has moved since it began to wait.
  let epoch = 0;
  // Plans started before `after` ran side by side go on in file order (st.current) while they replay.
  let sideBySide = false;

  const done = (i: number) => TERMINAL.has(st.waves[i].state);
  const status = (): PlanStatus => ({
    id: input.planId,
    name: input.name,
    timezone: input.timezone,
    state: planState(
      st.cancelled,
      st.waves.every((_, i) => done(i)),
    ),
    current_wave: input.waves[currentWave()]?.name ?? null,
    waves: st.waves.map((w) => ({ ...w.status, state: w.state })),
  });
  const currentWave = () =>
    currentWaveIndex(
      st.waves.map((w) => w.state),
      done,
    );
  const waveIndex = (name: string | undefined): number => {
    const i = input.waves.findIndex((w) => w.name === name);
    if (i < 0)
      throw ApplicationFailure.create({ type: 'unknown_wave', message: `no wave ${JSON.stringify(name)} in plan ${input.planId}`, nonRetryable: true });
    return i;
  };
  /** The wave's run now: its trial load until the real run has started. */
  const trialUnderWay = (i: number) => !st.waves[i].runStarted && st.waves[i].trial?.started === true;
  const trialRun = (i: number) => trialRunId(input.waves[i].trial!.run.runId, st.waves[i].trial!.n);

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
      epoch++;
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
  setHandler(
    controlPlan,
    async ({ action, wave }) => {
      if (action === 'cancel') {
        st.cancelled = true;
        for (let i = 0; i < st.waves.length; i++) {
          const ws = st.waves[i];
          if (!cancelReachesWave(done(i), sideBySide, i === st.current)) continue;
          const reason = `plan ${input.planId} cancelled`;
          if (ws.runStarted) await acts.controlPlanRun({ runId: input.waves[i].run.runId, action: 'cancel', reason });
          else if (trialUnderWay(i)) await acts.controlPlanRun({ runId: trialRun(i), action: 'cancel', reason });
        }
      } else {
        const i = waveIndex(wave);
        const ws = st.waves[i];
        if (action === 'trial') ws.trial!.again = true;
        else if (action === 'skip') {
          if (!TERMINAL.has(ws.state)) ws.state = 'skipped';
          if (ws.runStarted) await acts.controlPlanRun({ runId: input.waves[i].run.runId, action: 'cancel', reason: `wave ${wave} skipped` });
          else if (trialUnderWay(i)) await acts.controlPlanRun({ runId: trialRun(i), action: 'cancel', reason: `wave ${wave} skipped` });
        } else if (ws.runStarted) await acts.controlPlanRun({ runId: input.waves[i].run.runId, action: 'resume' });
        else if (trialUnderWay(i)) await acts.controlPlanRun({ runId: trialRun(i), action: 'resume' });
      }
      epoch++;
      return status();
    },
    {
      validator: ({ action, wave }) => {
        if (action !== 'trial') return;
        const i = waveIndex(wave);
        const refusal = trialRefusal({ wave: input.waves[i].name, waveState: st.waves[i].state, dryRunFirst: input.waves[i].trial !== undefined });
        if (refusal) throw new Error(refusal);
      },
    },
  );

  sideBySide = patched('plan-waves-after');
  if (sideBySide) {
    // Each wave starts once the waves it waits for are done (`after`; by default the one before it).
    await Promise.all(
      input.waves.map(async (_, i) => {
        await condition(() => done(i) || st.cancelled || waveReady(deps[i], done));
        if (!done(i) && !st.cancelled) await runWave(i);
      }),
    );
  } else {
    // Plans started before `after`: one wave after another, in file order.
    for (; st.current < input.waves.length && !st.cancelled; st.current++) await runWave(st.current);
  }
  for (const ws of st.waves) if (!TERMINAL.has(ws.state) && st.cancelled) ws.state = 'cancelled';
  details();
  await condition(allHandlersFinished);
  return status();

  async function runWave(i: number): Promise<void> {
    const w = input.waves[i];
    const ws = st.waves[i];
    if (TERMINAL.has(ws.state)) return;

    for (;;) {
      // dry_run_first: trial loads until one meets the entry gate's pass rate; the real run never starts before.
      // (Not again once passed or once the real run started: a trial's workflow may be gone by retention.)
      if (trialLoadDue({ dryRunFirst: w.trial !== undefined, runStarted: ws.runStarted, trialState: ws.status.dry_run?.state, again: ws.trial?.again })) {
        await trialLoads(i);
        if (skipped(ws) || st.cancelled) return;
      }
      // Entry gate: a named sign-off before anything of the wave starts.
      if (entryGateWaits(ws.status.gates.entry.state)) {
        ws.state = 'waiting_entry_sign_off';
        ws.status.gates.entry.state = 'waiting';
        details();
        await condition(() => ws.status.gates.entry.state === 'approved' || ws.state === 'skipped' || st.cancelled || ws.trial?.again === true);
        if (skipped(ws) || st.cancelled) return;
        if (trialAgainAtEntry(ws.trial?.again, ws.status.gates.entry.state)) continue;
      }
      break;
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
      ws.day = capDay(ws.day, day, p.totals.dispatched);
      const startedToday = p.totals.dispatched - ws.day.base;
      const gate = dispatchGate({ intervals: intervals[i], now, zone: input.timezone, dailyCap: w.dailyCap, startedToday });
      const bound = dispatchBound(gate, w.dailyCap, ws.day.base);
      if (boundChanged(ws.bound, bound)) {
        await getExternalWorkflowHandle(runWorkflowId(w.run.runId)).signal(dispatchLimitSignal, bound);
        ws.bound = bound;
      }
      ws.status.started_today = startedToday;
      const next = nextWindowShown(gate, intervals[i], now);
      ws.status.next_window = next ? { start: iso(next.start), end: iso(next.end) } : null;
      ws.state = waveStateAfterPoll(gate, Boolean(p.stopLine?.state.tripped));
      details();

      await continueIfLong();
      await nap(pollDelayMs(gate, now, input.pollSeconds));
    }
    if (st.cancelled || ws.state === 'skipped') return;

    // Exit gate: the reconciled share, then a named sign-off.
    const exit = ws.status.gates.exit;
    // The supplier census, when the gate names a maximum: taken now, across every run of the supplier.
    if (w.census) {
      const c = await censusActs.takeSupplierCensus({ supplierCode: w.run.supplierCode, stuckAfterSeconds: DEFAULT_STUCK_PENDING_SECONDS });
      exit.census = {
        taken_at: c.takenAt,
        platform_only: c.counts.platformOnly,
        ledger_only: c.counts.ledgerOnly,
        max_platform_only: w.census.maxPlatformOnly,
        max_ledger_only: w.census.maxLedgerOnly,
      };
    }
    // The switch's numbers, when the gate names them: read again every poll while the wave's meter points
    // could still meet them (the follows take days), until supplyGate decides.
    if (w.supply) {
      for (;;) {
        const c = await acts.planSupplyGate({ runId: w.run.runId, maxDaysToSupply: w.supply.maxDaysToSupply });
        exit.supply = {
          read_at: c.readAt,
          points: c.points,
          on_supply: c.onSupply,
          waiting: c.waiting,
          over_max_days: c.overMaxDays,
          on_supply_rate: onSupplyRate({ points: c.points, on_supply: c.onSupply }),
          min_on_supply_rate: w.supply.minOnSupplyRate,
          max_days_to_supply: w.supply.maxDaysToSupply,
        };
        if (supplyGate(exit.supply) !== 'pending') break;
        ws.state = 'waiting_supply';
        details();
        await continueIfLong();
        await nap(input.pollSeconds * 1000);
        if (skipped(ws) || st.cancelled) return;
      }
    }
    const exitStep = exitGate(ws.status.accounts, exit);
    exit.reconciled_rate = exitStep.reconciledRate;
    if (exitStep.next === 'exit_not_met') {
      ws.state = 'exit_not_met';
      exit.state = 'not_met';
      details();
      await condition(() => ws.state === 'skipped' || st.cancelled);
      return;
    }
    if (exitStep.next === 'waiting_exit_sign_off') {
      ws.state = 'waiting_exit_sign_off';
      exit.state = 'waiting';
      details();
      await condition(() => exit.state === 'approved' || ws.state === 'skipped' || st.cancelled);
      if (skipped(ws) || st.cancelled) return;
    }
    ws.state = 'completed';
    details();
  }

  /**
   * The wave's trial loads: each a platform dry run of the whole wave (run `<base>-N`), started at
   * once (it creates nothing: no window, no cap) with the wave's stop the line. When the last one's
   * pass rate is below `min_dry_run_pass_rate` the wave waits in `dry_run_not_met` for `plan trial`
   * (another load, once the data is fixed) or `plan skip`.
   */
  async function trialLoads(i: number): Promise<void> {
    const w = input.waves[i];
    const ws = st.waves[i];
    const trial = w.trial!;
    const t = (ws.trial ??= { n: 1, started: false, again: false });
    const d = ws.status.dry_run!;
    const entry = ws.status.gates.entry;
    for (;;) {
      if (t.again) Object.assign(t, { n: t.n + 1, started: false, again: false });
      const runId = trialRunId(trial.run.runId, t.n);
      if (!t.started) {
        ws.state = 'dry_run';
        Object.assign(d, { state: 'running', pass_rate: null, accounts: zeroAccounts(w.planned) });
        if (!d.runs.includes(runId)) d.runs.push(runId);
        ws.status.runs = [...d.runs, w.run.runId];
        entry.state = entryGateForTrial(entry.state, w.entrySignOff);
        details();
        await acts.startPlanRun({ planId: input.planId, wave: w.name, run: { ...trial.run, runId, dryRun: true } });
        t.started = true;
      }
      let closed = 'RUNNING';
      for (;;) {
        const r = await acts.planRunProgress({ runId });
        if (r.progress) {
          d.accounts = waveAccounts(r.progress, d.accounts.planned);
          ws.status.stop_line = waveStopLine(r.progress);
        }
        if (r.closed) closed = r.status;
        if (r.closed || skipped(ws) || st.cancelled) break;
        ws.state = trialStateAfterPoll(ws.status.stop_line.tripped);
        details();
        await continueIfLong();
        await nap(input.pollSeconds * 1000);
      }
      if (skipped(ws) || st.cancelled) return;
      ws.status.stop_line = { tripped: false, reason: null };
      const g = dryRunGate(d.accounts, trial.minPassRate ?? null, closed === 'COMPLETED');
      d.pass_rate = g.passRate;
      entry.dry_run_pass_rate = g.passRate;
      if (g.met) {
        d.state = 'passed';
        details();
        return;
      }
      d.state = 'not_met';
      entry.state = 'not_met';
      ws.state = 'dry_run_not_met';
      log.warn('plan wave trial load below its pass rate', { planId: input.planId, wave: w.name, runId, passRate: g.passRate, min: trial.minPassRate });
      details();
      await condition(() => t.again || ws.state === 'skipped' || st.cancelled);
      if (skipped(ws) || st.cancelled) return;
    }
  }

  /** Continue as new before the history grows long (handlers finished first; every step is safe to redo). */
  async function continueIfLong(): Promise<void> {
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > input.continueAsNewAtEvents) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof cutoverPlanWorkflow>(planCarryOver(input, st));
    }
  }

  /** Waits `ms` (at least 1), or less when a handler has moved the plan meanwhile. */
  async function nap(ms: number): Promise<void> {
    const seen = epoch;
    await condition(() => epoch !== seen, Math.max(1, ms));
  }

  /** The plan's page in the Temporal UI: each wave, its counts, its next window, what its gates wait on. */
  function details(): void {
    const lines = st.waves.map((ws) => {
      const s = ws.status;
      const a = s.accounts;
      const gates = (['entry', 'exit'] as const)
        .map((g) => (s.gates[g].state === 'waiting' ? `${g} gate waits on ${s.gates[g].required_by ?? 'a sign-off'}` : ''))
        .filter(Boolean);
      const trial = s.dry_run?.runs.length
        ? `; trial load ${s.dry_run.runs.length} ${s.dry_run.state}${s.dry_run.pass_rate !== null ? ` (pass rate ${formatRate(s.dry_run.pass_rate)}${s.dry_run.min_pass_rate !== null ? `, min ${formatRate(s.dry_run.min_pass_rate)}` : ''})` : ''}`
        : '';
      const sup = s.gates.exit.supply;
      if (sup) gates.push(`switch: ${sup.on_supply} of ${sup.points} meter points on supply, ${sup.waiting} waiting, ${sup.over_max_days} over max days`);
      const live = ws.state !== 'pending' && !TERMINAL.has(ws.state);
      return `- **${s.name}** ${ws.state}${live ? ' ◀' : ''}: started ${a.started}${a.planned !== null ? `/${a.planned}` : ''}, completed ${a.completed}, failed ${a.failed}, not attempted ${a.not_attempted}${trial}${s.next_window ? `; window ${s.next_window.start} – ${s.next_window.end}` : ''}${s.stop_line.tripped ? `; ${s.stop_line.reason}` : ''}${gates.length ? `; ${gates.join(', ')}` : ''}`;
    });
    setCurrentDetails(`Cutover plan **${input.name}** (${input.timezone})\n\n${lines.join('\n')}`);
  }
}

/** Read through a function: the handlers change it while the loop waits (no narrowing across an await). */
function skipped(ws: PlanState['waves'][number]): boolean {
  return ws.state === 'skipped';
}

function book(ws: PlanState['waves'][number], p: RunProgress): void {
  ws.status.accounts = waveAccounts(p, ws.status.accounts.planned);
  ws.status.stop_line = waveStopLine(p);
}
