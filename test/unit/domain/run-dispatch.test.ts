import { describe, expect, it } from 'vitest';
import type { RunState } from '../../../domain/inputs';
import {
  TICK_MAX_MS,
  TICK_MIN_MS,
  dispatchOpen,
  dispatchStep,
  nextTickMs,
  runCarryOver,
  runEnding,
  runFinished,
  runPhase,
  runProgress,
  runWait,
  selectionExhausted,
  stopLineCheckDue,
  wakeParkedAccounts,
  type RunWatch,
} from '../../../domain/run-dispatch';
import { emptyTotals } from '../../../domain/run-totals';
import { STOP_LINE_DEFAULTS, initialStopLine } from '../../../domain/stop-line';

const state = (more: Partial<RunState> = {}): RunState => ({
  exhausted: false,
  buffer: [],
  inFlight: [],
  totals: emptyTotals(),
  paused: false,
  cancelled: false,
  completeSupplier: false,
  ...more,
});
const run = { runId: 'r1', supplierCode: 'SUP', dryRun: false };
const settings = { enabled: true, ...STOP_LINE_DEFAULTS };
const watch = (more: Partial<RunWatch> = {}): RunWatch => ({
  stopLineWatched: false,
  stopLineSettings: settings,
  stopLine: initialStopLine(),
  bound: undefined,
  ...more,
});

describe('a run has finished when nothing is in flight and it has nothing left to start', () => {
  it('the selection used up (last page read, buffer empty): finished once the last account settles', () => {
    expect(runFinished(state({ exhausted: true }), 0)).toBe(true);
    expect(runFinished(state({ exhausted: true }), 1)).toBe(false);
  });
  it('the last page read but accounts still buffered, or pages left: not finished', () => {
    expect(selectionExhausted(state({ exhausted: true, buffer: ['A'] }))).toBe(false);
    expect(runFinished(state({ exhausted: true, buffer: ['A'] }), 0)).toBe(false);
    expect(selectionExhausted(state({ exhausted: false }))).toBe(false);
    expect(runFinished(state(), 0)).toBe(false);
  });
  it('cancelled, or its supplier complete: finished with accounts unread, once none is in flight', () => {
    expect(runFinished(state({ cancelled: true, buffer: ['A'] }), 0)).toBe(true);
    expect(runFinished(state({ cancelled: true }), 2)).toBe(false);
    expect(runFinished(state({ completeSupplier: true, buffer: ['A'] }), 0)).toBe(true);
    expect(runFinished(state({ completeSupplier: true }), 1)).toBe(false);
  });
  it('paused is not finished', () => {
    expect(runFinished(state({ paused: true }), 0)).toBe(false);
  });
});

describe("the run's state as run status shows it", () => {
  it('cancelled: draining while accounts are in flight, then cancelled, whatever else holds', () => {
    expect(runPhase(state({ cancelled: true, paused: true }), 3, 'PAUSED')).toBe('draining');
    expect(runPhase(state({ cancelled: true, paused: true }), 0, 'PAUSED')).toBe('cancelled');
  });
  it('paused (by the operator or stop the line) before the supplier', () => {
    expect(runPhase(state({ paused: true }), 2, 'PAUSED')).toBe('paused');
    expect(runPhase(state({ paused: true, exhausted: true }), 0, 'ONGOING')).toBe('paused');
  });
  it('the supplier paused: waiting on it', () => {
    expect(runPhase(state(), 2, 'PAUSED')).toBe('waiting_on_supplier');
  });
  it('completed once finished; running otherwise (a complete supplier too, while accounts finish)', () => {
    expect(runPhase(state({ exhausted: true }), 0, 'ONGOING')).toBe('completed');
    expect(runPhase(state({ exhausted: true }), 1, 'ONGOING')).toBe('running');
    expect(runPhase(state(), 0, 'ONGOING')).toBe('running');
    expect(runPhase(state({ completeSupplier: true }), 1, 'COMPLETE')).toBe('running');
  });
});

describe('may the run start another account now', () => {
  it('only while not cancelled, not paused, its supplier ongoing and not complete', () => {
    expect(dispatchOpen(state(), 'ONGOING')).toBe(true);
    expect(dispatchOpen(state({ cancelled: true }), 'ONGOING')).toBe(false);
    expect(dispatchOpen(state({ paused: true }), 'ONGOING')).toBe(false);
    expect(dispatchOpen(state({ completeSupplier: true }), 'ONGOING')).toBe(false);
    expect(dispatchOpen(state(), 'PAUSED')).toBe(false);
    expect(dispatchOpen(state(), 'COMPLETE')).toBe(false);
  });
  it('starts the free slots from the buffer, never more than the bound allows', () => {
    const st = state({ buffer: ['A', 'B', 'C', 'D', 'E'] });
    expect(dispatchStep({ inFlight: 1, concurrency: 4, allowance: Number.POSITIVE_INFINITY, st })).toEqual({ next: 'start', count: 3 });
    expect(dispatchStep({ inFlight: 1, concurrency: 4, allowance: 2, st })).toEqual({ next: 'start', count: 2 });
    expect(dispatchStep({ inFlight: 0, concurrency: 4, allowance: 4, st })).toEqual({ next: 'start', count: 4 });
  });
  it('every slot full, or the bound allows none (window ended, cap reached): stops', () => {
    const st = state({ buffer: ['A'] });
    expect(dispatchStep({ inFlight: 4, concurrency: 4, allowance: 10, st })).toEqual({ next: 'stop' });
    expect(dispatchStep({ inFlight: 5, concurrency: 4, allowance: 10, st })).toEqual({ next: 'stop' });
    expect(dispatchStep({ inFlight: 3, concurrency: 4, allowance: 0, st })).toEqual({ next: 'stop' });
    expect(dispatchStep({ inFlight: 3, concurrency: 4, allowance: 1, st })).toEqual({ next: 'start', count: 1 });
  });
  it('an empty buffer reads the next page; the selection used up stops', () => {
    expect(dispatchStep({ inFlight: 0, concurrency: 4, allowance: 10, st: state() })).toEqual({ next: 'page' });
    expect(dispatchStep({ inFlight: 0, concurrency: 4, allowance: 10, st: state({ exhausted: true }) })).toEqual({ next: 'stop' });
    // The last page's accounts still buffered: started (up to the free slots; the buffer holds what is left).
    expect(dispatchStep({ inFlight: 0, concurrency: 4, allowance: 10, st: state({ exhausted: true, buffer: ['A'] }) })).toEqual({ next: 'start', count: 4 });
  });
});

describe('how often the run looks for settled accounts', () => {
  it('at once again after one settles; doubling while none does, up to the slowest', () => {
    expect(nextTickMs(8000, 1)).toBe(TICK_MIN_MS);
    expect(nextTickMs(TICK_MIN_MS, 0)).toBe(2 * TICK_MIN_MS);
    expect(nextTickMs(8000, 0)).toBe(TICK_MAX_MS);
    expect(nextTickMs(TICK_MAX_MS, 0)).toBe(TICK_MAX_MS);
    expect([TICK_MIN_MS, TICK_MAX_MS]).toEqual([1000, 10_000]);
  });
});

describe("the supplier's resume wakes parked accounts", () => {
  it('only when the operator signalled ongoing, the ledger agrees, and accounts are in flight', () => {
    expect(wakeParkedAccounts('ONGOING', 'ONGOING', 2)).toBe(true);
    expect(wakeParkedAccounts(undefined, 'ONGOING', 2)).toBe(false);
    expect(wakeParkedAccounts('PAUSED', 'ONGOING', 2)).toBe(false);
    expect(wakeParkedAccounts('ONGOING', 'PAUSED', 2)).toBe(false);
    expect(wakeParkedAccounts('ONGOING', 'ONGOING', 0)).toBe(false);
  });
});

describe('how a finished run ends', () => {
  it('cancelled: the accounts never reached recorded as run_cancelled', () => {
    expect(runEnding({ cancelled: true, completeSupplier: true })).toEqual({ status: 'cancelled', neverReached: 'run_cancelled' });
  });
  it('its supplier complete: completed, the rest recorded as not ongoing', () => {
    expect(runEnding({ cancelled: false, completeSupplier: true })).toEqual({ status: 'completed', neverReached: 'import_supplier_migration_not_ongoing' });
  });
  it('its selection used up: completed, nothing to record', () => {
    expect(runEnding({ cancelled: false, completeSupplier: false })).toEqual({ status: 'completed' });
  });
});

describe("the run's progress (run status, the plan, the UI's query)", () => {
  it('shows its state, in-flight count, totals and whether the selection is used up', () => {
    const st = state({ exhausted: true, totals: { ...emptyTotals(), enumerated: 7, dispatched: 7 } });
    expect(runProgress({ run, st, inFlight: 2, supplier: 'ONGOING', watch: watch() })).toEqual({
      ...run,
      state: 'running',
      inFlight: 2,
      totals: st.totals,
      exhausted: true,
    });
    expect(runProgress({ run, st: state({ exhausted: true, buffer: ['A'] }), inFlight: 0, supplier: 'ONGOING', watch: watch() }).exhausted).toBe(false);
  });
  it('shows stop the line once watched, or when an earlier segment carried it in; and the plan’s bound when set', () => {
    const tripped = { ...initialStopLine(), platformFailures: 3 };
    const bound = { limit: 40, until: 1_000 };
    const p = runProgress({ run, st: state(), inFlight: 0, supplier: 'ONGOING', watch: watch({ stopLineWatched: true, stopLine: tripped, bound }) });
    expect(p.stopLine).toEqual({ settings, state: tripped });
    expect(p.dispatch).toEqual(bound);
    const carried = runProgress({ run, st: state({ stopLine: tripped }), inFlight: 0, supplier: 'ONGOING', watch: watch({ stopLine: tripped }) });
    expect(carried.stopLine).toEqual({ settings, state: tripped });
    const plain = runProgress({ run, st: state(), inFlight: 0, supplier: 'ONGOING', watch: watch() });
    expect('stopLine' in plain || 'dispatch' in plain).toBe(false);
  });
});

describe('what the run carries over at continue-as-new', () => {
  it('its state and the accounts in flight', () => {
    const st = state({ cursor: 'c9', buffer: ['D'], totals: { ...emptyTotals(), dispatched: 3 }, paused: true });
    expect(runCarryOver(st, ['A', 'B'], watch())).toEqual({ ...st, inFlight: ['A', 'B'] });
  });
  it("stop the line's window and streak once watched (so failures in a row trip it across segments), and the plan's bound", () => {
    const streak = { ...initialStopLine(), streak: { code: 'platform_error', count: 4 } };
    const bound = { limit: 10, until: 5_000 };
    expect(runCarryOver(state(), [], watch({ stopLineWatched: true, stopLine: streak, bound }))).toEqual({ ...state(), stopLine: streak, dispatch: bound });
    // Carried in by an earlier segment: carried on (the latest), even before this segment looked.
    expect(runCarryOver(state({ stopLine: initialStopLine() }), [], watch({ stopLine: streak })).stopLine).toEqual(streak);
    expect(runCarryOver(state(), [], watch({ stopLine: streak }))).toEqual(state());
  });
});

describe('how long the run waits for its next look (any message wakes it sooner)', () => {
  it('the tick while accounts are in flight, paused, cancelled or not', () => {
    expect(runWait(2, state(), 4000, 30)).toBe(4000);
    expect(runWait(1, state({ paused: true, cancelled: true }), 1000, 30)).toBe(1000);
  });
  it('none in flight: paused or cancelled, until a message; otherwise the supplier recheck', () => {
    expect(runWait(0, state({ paused: true }), 4000, 30)).toBeUndefined();
    expect(runWait(0, state({ cancelled: true }), 4000, 30)).toBeUndefined();
    expect(runWait(0, state(), 4000, 30)).toBe('30 seconds');
  });
});

describe('stop the line weighs settled outcomes', () => {
  it('while not tripped and the run not cancelled', () => {
    const tripped = { ...initialStopLine(), tripped: { rule: 'max_same_code' as const, code: 'x', count: 10, samples: [], message: 'm' } };
    expect(stopLineCheckDue(initialStopLine(), false)).toBe(true);
    expect(stopLineCheckDue(tripped, false)).toBe(false);
    expect(stopLineCheckDue(initialStopLine(), true)).toBe(false);
  });
});
