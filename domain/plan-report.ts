import { localDay, nextLocalMidnight, type Interval } from './plan-windows';

/**
 * The plan report's arithmetic (`plan report`, docs/plan.md): what each wave planned per local day
 * of the plan's zone, set against what its run did. Pure; the CLI reads the plan and the ledger.
 */

/** The local days (`YYYY-MM-DD`, in order) on which at least one of the windows is open. */
export function windowDays(intervals: readonly Interval[], zone: string): string[] {
  const days: string[] = [];
  for (const w of intervals)
    for (let t = w.start; t < w.end; t = nextLocalMidnight(t, zone)) {
      const d = localDay(t, zone);
      if (!days.includes(d)) days.push(d);
    }
  return days.sort();
}

/**
 * The plan: the wave's accounts spread over its window days, at most `dailyCap` a day, in order (the
 * last days get none when the cap lets the wave finish early). Not knowing how many accounts the
 * wave has, each day plans its cap (or nothing can be said: null).
 */
export function plannedPerDay(args: { intervals: readonly Interval[]; zone: string; dailyCap: number | null; planned: number | null }): Array<{
  day: string;
  planned: number | null;
}> {
  const { dailyCap, planned } = args;
  let left = planned;
  return windowDays(args.intervals, args.zone).map((day) => {
    if (left === null) return { day, planned: dailyCap };
    const n = dailyCap === null ? left : Math.min(dailyCap, left);
    left -= n;
    return { day, planned: n };
  });
}

export interface DayActual {
  day: string;
  started: number;
  completed: number;
  failed: number;
}

export interface DayRow extends DayActual {
  planned: number | null;
}

/** Planned and actual days merged, by day: a day with accounts started and no window still shows (planned 0). */
export function planAgainstActual(planned: ReadonlyArray<{ day: string; planned: number | null }>, actual: readonly DayActual[]): DayRow[] {
  const rows = new Map<string, DayRow>();
  for (const p of planned) rows.set(p.day, { day: p.day, planned: p.planned, started: 0, completed: 0, failed: 0 });
  for (const a of actual) {
    const r = rows.get(a.day) ?? rows.set(a.day, { day: a.day, planned: 0, started: 0, completed: 0, failed: 0 }).get(a.day)!;
    r.started += a.started;
    r.completed += a.completed;
    r.failed += a.failed;
  }
  return [...rows.values()].sort((x, y) => (x.day < y.day ? -1 : x.day > y.day ? 1 : 0));
}
