import type { RunState, StopLineSettings, SupplierStatus } from './inputs';
import type { RunProgress } from './messages';
import type { DispatchBound } from './plan-windows';
import type { StopLineState } from './stop-line';

/**
 * What a migration run decides at each wake-up (workflows/migration-run.ts keeps the state and does
 * the I/O; these say what it means): whether it has finished, whether it may start another account
 * now and how many, what `run status` shows, and what it carries over at continue-as-new. Pure.
 */

/** The part of the run's state these decisions read. */
export type RunFlags = Pick<RunState, 'exhausted' | 'buffer' | 'paused' | 'cancelled' | 'completeSupplier'>;

/** The selection is used up: its last page read and every account of it dispatched or counted. */
export function selectionExhausted(st: Pick<RunState, 'exhausted' | 'buffer'>): boolean {
  return st.exhausted && st.buffer.length === 0;
}

/** The run has finished: nothing in flight, and cancelled, its supplier complete, or its selection used up. */
export function runFinished(st: RunFlags, inFlight: number): boolean {
  return inFlight === 0 && (st.cancelled || st.completeSupplier || selectionExhausted(st));
}

/** The run's state as `run status` shows it. */
export function runPhase(st: RunFlags, inFlight: number, supplier: SupplierStatus): RunProgress['state'] {
  if (st.cancelled) return inFlight > 0 ? 'draining' : 'cancelled';
  if (st.paused) return 'paused';
  if (supplier === 'PAUSED') return 'waiting_on_supplier';
  if (runFinished(st, inFlight)) return 'completed';
  return 'running';
}

/**
 * Whether the run may start accounts at all now: not cancelled, not paused (by the operator or by
 * stop the line), its supplier neither complete nor anything but ongoing.
 */
export function dispatchOpen(st: RunFlags, supplier: SupplierStatus): boolean {
  return !st.cancelled && !st.paused && !st.completeSupplier && supplier === 'ONGOING';
}

/**
 * The run's next step while it fills its slots: stop (every slot full, the plan's bound allows none
 * now, or the selection is used up), read the next page (the buffer is empty), or start `count`
 * accounts from the buffer (the free slots, never more than the bound allows).
 */
export function dispatchStep(args: {
  inFlight: number;
  concurrency: number;
  /** Accounts the plan's bound lets it start now (dispatchAllowance). */
  allowance: number;
  st: Pick<RunState, 'exhausted' | 'buffer'>;
}): { next: 'stop' } | { next: 'page' } | { next: 'start'; count: number } {
  const { inFlight, concurrency, allowance, st } = args;
  if (inFlight >= concurrency || allowance <= 0 || selectionExhausted(st)) return { next: 'stop' };
  if (st.buffer.length === 0) return { next: 'page' };
  return { next: 'start', count: Math.min(concurrency - inFlight, allowance) };
}

/** How often the run looks at the ledger for finished accounts: fast while they finish, slower while none do. */
export const TICK_MIN_MS = 1000;
export const TICK_MAX_MS = 10_000;

/** The next tick: back to the fastest once an account settled, else twice the last, up to the slowest. */
export function nextTickMs(tickMs: number, settled: number): number {
  return settled > 0 ? TICK_MIN_MS : Math.min(tickMs * 2, TICK_MAX_MS);
}

/** Whether to wake the accounts parked on the supplier now: the operator resumed it, it is ongoing, and some are in flight. */
export function wakeParkedAccounts(signalled: SupplierStatus | undefined, supplier: SupplierStatus, inFlight: number): boolean {
  return signalled === 'ONGOING' && supplier === 'ONGOING' && inFlight > 0;
}

/**
 * How a finished run ends: its status, and the code the accounts it never reached are recorded
 * with (a cancelled run, a completed supplier; none when its selection was used up).
 */
export function runEnding(st: Pick<RunState, 'cancelled' | 'completeSupplier'>): {
  status: 'cancelled' | 'completed';
  neverReached?: 'run_cancelled' | 'import_supplier_migration_not_ongoing';
} {
  if (st.cancelled) return { status: 'cancelled', neverReached: 'run_cancelled' };
  if (st.completeSupplier) return { status: 'completed', neverReached: 'import_supplier_migration_not_ongoing' };
  return { status: 'completed' };
}

/** What the run watches besides its state: stop the line (shown once watched, or carried in), and the plan's bound. */
export interface RunWatch {
  stopLineWatched: boolean;
  stopLineSettings: StopLineSettings;
  stopLine: StopLineState;
  bound: DispatchBound | undefined;
}

/** Whether the run shows and carries stop the line: once it watches it, or when an earlier segment carried it in. */
function carriesStopLine(st: RunState, w: RunWatch): boolean {
  // Truthiness, as before the move: a replayed segment's state may carry the key empty.
  return w.stopLineWatched || Boolean(st.stopLine);
}

/** The run as `run status`, the plan and the Temporal UI's query see it. */
export function runProgress(args: {
  run: Pick<RunProgress, 'runId' | 'supplierCode' | 'dryRun'>;
  st: RunState;
  inFlight: number;
  supplier: SupplierStatus;
  watch: RunWatch;
}): RunProgress {
  const { run, st, inFlight, supplier, watch } = args;
  return {
    runId: run.runId,
    supplierCode: run.supplierCode,
    dryRun: run.dryRun,
    state: runPhase(st, inFlight, supplier),
    inFlight,
    totals: st.totals,
    exhausted: selectionExhausted(st),
    ...(carriesStopLine(st, watch) ? { stopLine: { settings: watch.stopLineSettings, state: watch.stopLine } } : {}),
    ...(watch.bound ? { dispatch: watch.bound } : {}),
  };
}

/**
 * What the run carries over at continue-as-new: its state, the accounts in flight, stop the line's
 * window and streak (so a streak of failures trips it across segments) and the plan's last bound (so
 * the next segment never dispatches past the window's end before the plan signals again).
 */
export function runCarryOver(st: RunState, inFlight: string[], watch: RunWatch): RunState {
  return { ...st, inFlight, ...(carriesStopLine(st, watch) ? { stopLine: watch.stopLine } : {}), ...(watch.bound ? { dispatch: watch.bound } : {}) };
}

/**
 * How long the run waits for its next look (any message wakes it sooner): the tick while accounts
 * are in flight; paused or cancelled with none, until a message (undefined); otherwise the supplier's
 * recheck, so a run waiting on its supplier notices the ledger's status change.
 */
export function runWait(inFlight: number, st: Pick<RunState, 'paused' | 'cancelled'>, tickMs: number, recheckSeconds: number): number | string | undefined {
  if (inFlight > 0) return tickMs;
  if (st.paused || st.cancelled) return undefined;
  return `${recheckSeconds} seconds`;
}

/** Whether stop the line weighs the settled outcomes now: not once tripped (until resumed), nor in a cancelled run. */
export function stopLineCheckDue(stopLine: StopLineState, cancelled: boolean): boolean {
  return !stopLine.tripped && !cancelled;
}
