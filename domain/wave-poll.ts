import type { PlanArgs, PlanState, WaveState } from './plan-messages';
import { windowAt, type DispatchBound, type DispatchGate, type Interval } from './plan-windows';

/**
 * What a plan decides each time it polls a wave's run (workflows/cutover-plan.ts keeps the state,
 * signals the run and sleeps; these say what it means): the wave's state and next window as `plan
 * status` shows them, the day its cap counts from, whether the run's bound changed, how long to
 * sleep, and what the plan carries over at continue-as-new. Pure.
 */

/**
 * The wave's state after a poll of its run: stopped while its run's stop the line is tripped, else
 * running while its window is open and its cap allows; closed, `capped` (the day's cap is spent),
 * `waiting_window` (the next window opens later) or `out_of_windows` (no window is left).
 */
export function waveStateAfterPoll(gate: DispatchGate, stopLineTripped: boolean): WaveState {
  if (stopLineTripped) return 'stopped_line';
  if (gate.open) return 'running';
  if (gate.reason === 'daily_cap') return 'capped';
  return gate.reason === 'outside_window' ? 'waiting_window' : 'out_of_windows';
}

/**
 * The window `plan status` shows next: the one open now; closed, the one the gate waits for, from the
 * moment it opens (a capped wave: from local midnight) to that window's end; none when no window is
 * left, nor when a cap spent in the last window waits only for its end.
 */
export function nextWindowShown(gate: DispatchGate, intervals: Interval[], now: number): Interval | undefined {
  if (gate.open) return windowAt(intervals, now);
  // Stryker disable next-line ConditionalExpression: equivalent: no `until`, windowAt finds no window at undefined either.
  if (!('until' in gate)) return undefined;
  const reopens = windowAt(intervals, gate.until);
  return reopens && { start: gate.until, end: reopens.end };
}

/** The local day a daily cap counts in, and the run's dispatched total when it began (a new day: the total now). */
export function capDay(prev: { day: string; base: number } | undefined, day: string, dispatched: number): { day: string; base: number } {
  return prev?.day === day ? prev : { day, base: dispatched };
}

/** Whether the run must be told its bound again: it differs from the last one signalled (none yet: it does). */
export function boundChanged(last: DispatchBound | undefined, next: DispatchBound): boolean {
  if (last === undefined) return true;
  return last.limit !== next.limit || last.until !== next.until;
}

/** How long the plan sleeps before its next poll: until the gate's next change, never longer than the poll interval. */
export function pollDelayMs(gate: DispatchGate, now: number, pollSeconds: number): number {
  return Math.min('until' in gate ? gate.until - now : Number.POSITIVE_INFINITY, pollSeconds * 1000);
}

/** The plan's state: cancelled, completed once every wave is done, else running. */
export function planState(cancelled: boolean, allDone: boolean): 'running' | 'completed' | 'cancelled' {
  if (cancelled) return 'cancelled';
  return allDone ? 'completed' : 'running';
}

/** What the plan carries over at continue-as-new: its input, and all its state (waves, gates, sign-offs, bounds, days). */
export function planCarryOver(input: PlanArgs, st: PlanState): PlanArgs {
  return { ...input, state: st };
}

/** A trial load's wave after a poll of its run: stopped while its stop the line is tripped, else in its dry run. */
export function trialStateAfterPoll(stopLineTripped: boolean): WaveState {
  return stopLineTripped ? 'stopped_line' : 'dry_run';
}

/** The wave `plan status` names as current: the first under way (waves may run side by side), else the first not done; -1 when all are. */
export function currentWaveIndex(states: readonly WaveState[], done: (i: number) => boolean): number {
  const active = states.findIndex((s, i) => !done(i) && s !== 'pending');
  // Stryker disable next-line EqualityOperator: equivalent: wave 0 under way is also the first not done.
  return active >= 0 ? active : states.findIndex((_, i) => !done(i));
}

/**
 * Whether `plan cancel` reaches a wave's run: every wave not done; a done one only in a plan from
 * before `after` (waves in file order), when it is the wave the plan is on (skipped, its run may still drain).
 */
export function cancelReachesWave(done: boolean, sideBySide: boolean, isCurrent: boolean): boolean {
  return !done || (!sideBySide && isCurrent);
}
