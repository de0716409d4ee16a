import type { WaveStatus } from './plan-messages';

/**
 * What the metrics say about a plan wave (workers/migration-metrics.ts): the open window's end, the
 * wave's projected end at its run's current rate, and since when a gate has waited. Pure: the
 * collector passes the clock, the rate the ledger measured and when runs finished.
 */

/** The end (ms) of the wave's window open at `now`, or undefined when none is. */
export function openWindowEnd(windows: WaveStatus['windows'], now: number): number | undefined {
  for (const w of windows) {
    const start = Date.parse(w.start);
    const end = Date.parse(w.end);
    if (start <= now && now < end) return end;
  }
  return undefined;
}

/** Accounts of the wave still to finish, or undefined when its cohort was not counted. */
export function remainingAccounts(s: Pick<WaveStatus, 'accounts'>): number | undefined {
  const a = s.accounts;
  if (a.planned === null) return undefined;
  return Math.max(0, a.planned - a.completed - a.failed - a.not_attempted);
}

/**
 * When (ms) the wave finishes at `perSecond` accounts a second: now when nothing is left, undefined
 * when the rate is unknown (nothing finished lately) or the cohort was not counted.
 */
export function projectedEnd(remaining: number | undefined, perSecond: number, now: number): number | undefined {
  if (remaining === undefined) return undefined;
  if (remaining === 0) return now;
  if (!(perSecond > 0)) return undefined;
  return now + (remaining / perSecond) * 1000;
}

/**
 * Since when (ms) the wave's gate has waited for a sign-off: the exit gate since its run finished;
 * the entry gate since the waves it comes after finished, or since the plan started when it follows none.
 * Undefined when the gate is not waiting or its start is unknown.
 */
export function gateWaitingSince(
  s: Pick<WaveStatus, 'runs' | 'gates'>,
  gate: 'entry' | 'exit',
  o: { planStart: number; before: Array<Pick<WaveStatus, 'runs'>>; runFinishedAt: (run: string) => number | undefined },
): number | undefined {
  if (s.gates[gate].state !== 'waiting') return undefined;
  if (gate === 'exit') {
    const last = s.runs.at(-1);
    return last === undefined ? undefined : o.runFinishedAt(last);
  }
  let since = o.planStart;
  for (const w of o.before) {
    const last = w.runs.at(-1);
    const at = last === undefined ? undefined : o.runFinishedAt(last);
    if (at !== undefined && at > since) since = at;
  }
  return since;
}
