import { DateTime, IANAZone } from 'luxon';

/**
 * A plan's windows and daily caps, as pure arithmetic on instants (epoch milliseconds) and a plan
 * timezone. Nothing here reads the clock: the plan workflow passes its own (deterministic) time in,
 * so the same code runs in the workflow, the CLI and the tests. Local times go through luxon's IANA
 * zones, so a night window stays 22:00 to 05:00 on the wall clock across the October and March changes
 * (8 hours long on the night the clocks go back, 6 on the night they go forward).
 */

/** An absolute window: local date-times in the plan's zone (`2026-10-24T22:00`), or instants with an offset. */
export interface AbsoluteWindow {
  start: string;
  end: string;
}
/** Every night from `first` to `last` (local dates the window opens on): `from` to `to` local time, ending the next day when `to` <= `from` (equal: a whole day). */
export interface NightlyWindow {
  from: string;
  to: string;
  first: string;
  last: string;
}
export type WindowSpec = AbsoluteWindow | NightlyWindow;

/** A concrete window: [start, end) in epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

export function isValidZone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

/** A local date-time in `zone` (or an ISO instant with its own offset) as epoch ms; NaN when it is not one. */
export function localToInstant(local: string, zone: string): number {
  const dt = DateTime.fromISO(local, { zone });
  return dt.isValid ? dt.toMillis() : NaN;
}

/** The nights of a nightly window, one interval each. */
export function nights(w: NightlyWindow, zone: string): Interval[] {
  const out: Interval[] = [];
  // Calendar dates: the zone only matters for the times on them.
  for (let date = w.first; date <= w.last; date = nextDate(date)) {
    const start = DateTime.fromISO(`${date}T${w.from}`, { zone });
    const endDay = w.to <= w.from ? nextDate(date) : date;
    const end = DateTime.fromISO(`${endDay}T${w.to}`, { zone });
    out.push({ start: start.toMillis(), end: end.toMillis() });
  }
  return out;
}

function nextDate(date: string): string {
  return DateTime.fromISO(date).plus({ days: 1 }).toISODate() ?? '';
}

/** Every window of a wave as sorted intervals, overlapping or touching ones merged. */
export function expandWindows(specs: WindowSpec[], zone: string): Interval[] {
  const all = specs
    .flatMap((w) => ('from' in w ? nights(w, zone) : [{ start: localToInstant(w.start, zone), end: localToInstant(w.end, zone) }]))
    .filter((i) => i.end > i.start)
    .sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const i of all) {
    const prev = merged[merged.length - 1];
    if (prev && i.start <= prev.end) prev.end = Math.max(prev.end, i.end);
    else merged.push({ ...i });
  }
  return merged;
}

/** The window open at `now`, if any. */
export function windowAt(intervals: Interval[], now: number): Interval | undefined {
  return intervals.find((i) => i.start <= now && now < i.end);
}

/** The first moment at or after `t` that lies in a window (`t` itself when one is open); undefined when no window is left. */
export function firstOpenAt(intervals: Interval[], t: number): number | undefined {
  const i = intervals.find((x) => t < x.end);
  return i === undefined ? undefined : Math.max(i.start, t);
}

/** The local day (`YYYY-MM-DD`) an instant falls on: what a daily cap counts by. */
export function localDay(t: number, zone: string): string {
  return DateTime.fromMillis(t, { zone }).toISODate() ?? '';
}

/** The next local midnight after `t` (23 or 25 hours after the last one on the days the clocks change). */
export function nextLocalMidnight(t: number, zone: string): number {
  return DateTime.fromMillis(t, { zone }).startOf('day').plus({ days: 1 }).toMillis();
}

/**
 * What a wave may do at `now`: dispatch up to `allow` accounts until `until`, or wait until `until`
 * (a daily cap spent in the last window: until that window's end, when no window is left).
 */
export type DispatchGate =
  | { open: true; allow: number; until: number }
  | { open: false; reason: 'outside_window' | 'daily_cap'; until: number }
  | { open: false; reason: 'no_window_left' };

/**
 * The one decision the plan workflow asks at each wake-up. `startedToday`: accounts of this wave
 * started on `now`'s local day (from the ledger, so restarts keep it). The cap counts per local day
 * across windows: a night window that spans midnight gets a fresh allowance at 00:00.
 */
export function dispatchGate(args: { intervals: Interval[]; now: number; zone: string; dailyCap?: number; startedToday: number }): DispatchGate {
  const { intervals, now, zone, dailyCap, startedToday } = args;
  const open = windowAt(intervals, now);
  if (!open) {
    const next = firstOpenAt(intervals, now);
    return next === undefined ? { open: false, reason: 'no_window_left' } : { open: false, reason: 'outside_window', until: next };
  }
  const midnight = nextLocalMidnight(now, zone);
  if (dailyCap === undefined) return { open: true, allow: Number.POSITIVE_INFINITY, until: open.end };
  const allow = Math.max(0, dailyCap - startedToday);
  if (allow > 0) return { open: true, allow, until: Math.min(open.end, midnight) };
  const next = firstOpenAt(intervals, midnight);
  // The cap spent in the last window: capped while that window is open, out of windows once it closes.
  return { open: false, reason: 'daily_cap', until: next ?? open.end };
}

/** What a plan lets its wave's run dispatch (dispatchLimitSignal): while `dispatched < limit` and time < `until`; null: no bound. */
export interface DispatchBound {
  limit: number | null;
  until: number | null;
}

/**
 * The bound the plan signals for a gate: closed, nothing (`until` 0 has passed); open, up to the
 * day's cap counted from the run's total at the day's start (`dayBase`), and never past the gate's
 * `until` (the window's end, or the cap's midnight).
 */
export function dispatchBound(gate: DispatchGate, dailyCap: number | undefined, dayBase: number): DispatchBound {
  if (!gate.open) return { limit: 0, until: 0 };
  return { limit: dailyCap === undefined ? null : dayBase + dailyCap, until: gate.until };
}

/**
 * Accounts a run may start now under its bound (none: no limit). The run asks at every dispatch, so
 * it never starts one past `until` however late the plan's next signal comes.
 */
export function dispatchAllowance(bound: DispatchBound | undefined, now: number, dispatched: number): number {
  if (!bound) return Number.POSITIVE_INFINITY;
  if (bound.until !== null && now >= bound.until) return 0;
  return bound.limit === null ? Number.POSITIVE_INFINITY : Math.max(0, bound.limit - dispatched);
}
