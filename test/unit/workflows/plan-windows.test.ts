import { describe, expect, it } from 'vitest';
import {
  dispatchAllowance,
  dispatchBound,
  dispatchGate,
  expandWindows,
  firstOpenAt,
  isValidZone,
  localDay,
  localToInstant,
  nextLocalMidnight,
  nights,
  windowAt,
} from '../../../domain/plan-windows';

const LON = 'Europe/London';
const Z = (iso: string) => Date.parse(iso);
const H = 3600_000;
const utc = (i: { start: number; end: number }) => ({ start: new Date(i.start).toISOString(), end: new Date(i.end).toISOString() });

describe('nightly windows on the wall clock of the plan zone', () => {
  it('22:00 to 05:00 is 7 hours in winter, and at the summer offset in summer', () => {
    expect(nights({ from: '22:00', to: '05:00', first: '2026-01-10', last: '2026-01-11' }, LON).map(utc)).toEqual([
      { start: '2026-01-10T22:00:00.000Z', end: '2026-01-11T05:00:00.000Z' },
      { start: '2026-01-11T22:00:00.000Z', end: '2026-01-12T05:00:00.000Z' },
    ]);
    expect(nights({ from: '22:00', to: '05:00', first: '2026-07-01', last: '2026-07-01' }, LON).map(utc)).toEqual([
      { start: '2026-07-01T21:00:00.000Z', end: '2026-07-02T04:00:00.000Z' },
    ]);
  });
  it('the night the clocks go forward in March is 6 hours long; the night they go back in October, 8', () => {
    const [march] = nights({ from: '22:00', to: '05:00', first: '2026-03-28', last: '2026-03-28' }, LON);
    expect(utc(march)).toEqual({ start: '2026-03-28T22:00:00.000Z', end: '2026-03-29T04:00:00.000Z' });
    expect(march.end - march.start).toBe(6 * H);
    const [october] = nights({ from: '22:00', to: '05:00', first: '2026-10-24', last: '2026-10-24' }, LON);
    expect(utc(october)).toEqual({ start: '2026-10-24T21:00:00.000Z', end: '2026-10-25T05:00:00.000Z' });
    expect(october.end - october.start).toBe(8 * H);
  });
  it('a window within one day (to after from) ends the same day', () => {
    expect(nights({ from: '09:00', to: '17:30', first: '2026-02-02', last: '2026-02-02' }, LON).map(utc)).toEqual([
      { start: '2026-02-02T09:00:00.000Z', end: '2026-02-02T17:30:00.000Z' },
    ]);
  });
  it('one night per local date from first to last, inclusive, also across the change', () => {
    const n = nights({ from: '22:00', to: '05:00', first: '2026-10-23', last: '2026-10-26' }, LON);
    expect(n.length).toBe(4);
    expect(n.map((i) => localDay(i.start, LON))).toEqual(['2026-10-23', '2026-10-24', '2026-10-25', '2026-10-26']);
    expect(n.map((i) => (i.end - i.start) / H)).toEqual([7, 8, 7, 7]);
  });
  it('from equal to to is a whole day (the plan file refuses it; the arithmetic is total)', () => {
    expect(nights({ from: '22:00', to: '22:00', first: '2026-01-10', last: '2026-01-10' }, LON).map(utc)).toEqual([
      { start: '2026-01-10T22:00:00.000Z', end: '2026-01-11T22:00:00.000Z' },
    ]);
  });
  it('another zone keeps its own wall clock', () => {
    expect(nights({ from: '22:00', to: '05:00', first: '2026-01-10', last: '2026-01-10' }, 'Australia/Melbourne').map(utc)).toEqual([
      { start: '2026-01-10T11:00:00.000Z', end: '2026-01-10T18:00:00.000Z' },
    ]);
  });
});

describe('absolute windows and local times', () => {
  it('a local date-time is read in the plan zone; one with an offset keeps its instant', () => {
    expect(localToInstant('2026-06-01T22:00', LON)).toBe(Z('2026-06-01T21:00:00Z'));
    expect(localToInstant('2026-06-01T22:00:00Z', LON)).toBe(Z('2026-06-01T22:00:00Z'));
    expect(localToInstant('not a date', LON)).toBeNaN();
  });
  it('a local time the March change skips is read an hour later; one the October change repeats is its second occurrence', () => {
    expect(localToInstant('2026-03-29T01:30', LON)).toBe(Z('2026-03-29T01:30:00Z'));
    expect(localToInstant('2026-10-25T01:30', LON)).toBe(Z('2026-10-25T01:30:00Z'));
  });
  it('windows are sorted and overlapping or touching ones merged; empty ones dropped', () => {
    const w = expandWindows(
      [
        { start: '2026-05-02T10:00', end: '2026-05-02T12:00' },
        { start: '2026-05-01T10:00', end: '2026-05-01T11:00' },
        { start: '2026-05-01T11:00', end: '2026-05-01T12:00' },
        { start: '2026-05-02T11:00', end: '2026-05-02T11:30' },
        { start: '2026-05-03T10:00', end: '2026-05-03T10:00' },
        { from: '22:00', to: '05:00', first: '2026-05-02', last: '2026-05-02' },
      ],
      LON,
    );
    expect(w.map(utc)).toEqual([
      { start: '2026-05-01T09:00:00.000Z', end: '2026-05-01T11:00:00.000Z' },
      { start: '2026-05-02T09:00:00.000Z', end: '2026-05-02T11:00:00.000Z' },
      { start: '2026-05-02T21:00:00.000Z', end: '2026-05-03T04:00:00.000Z' },
    ]);
  });
  it('zones are checked', () => {
    expect(isValidZone('Europe/London')).toBe(true);
    expect(isValidZone('Europe/Lundun')).toBe(false);
  });
});

describe('which window is open', () => {
  const w = [
    { start: 100, end: 200 },
    { start: 300, end: 400 },
  ];
  it('start is inside, end is outside', () => {
    expect(windowAt(w, 99)).toBeUndefined();
    expect(windowAt(w, 100)).toEqual(w[0]);
    expect(windowAt(w, 199)).toEqual(w[0]);
    expect(windowAt(w, 200)).toBeUndefined();
    expect(windowAt(w, 350)).toEqual(w[1]);
  });
  it('the first open moment: now inside a window, else the next start, else none', () => {
    expect(firstOpenAt(w, 50)).toBe(100);
    expect(firstOpenAt(w, 150)).toBe(150);
    expect(firstOpenAt(w, 200)).toBe(300);
    expect(firstOpenAt(w, 399)).toBe(399);
    expect(firstOpenAt(w, 400)).toBeUndefined();
  });
});

describe('local days and midnights', () => {
  it('an instant belongs to the local day of the plan zone', () => {
    expect(localDay(Z('2026-07-01T23:30:00Z'), LON)).toBe('2026-07-02');
    expect(localDay(Z('2026-01-01T23:30:00Z'), LON)).toBe('2026-01-01');
  });
  it('the next midnight is 23 hours after the last on the March change day and 25 on the October one', () => {
    expect(nextLocalMidnight(Z('2026-03-29T00:00:00Z'), LON) - Z('2026-03-29T00:00:00Z')).toBe(23 * H);
    expect(nextLocalMidnight(Z('2026-10-24T23:00:00Z'), LON) - Z('2026-10-24T23:00:00Z')).toBe(25 * H);
    expect(nextLocalMidnight(Z('2026-01-05T12:00:00Z'), LON)).toBe(Z('2026-01-06T00:00:00Z'));
  });
});

describe('the dispatch gate: windows and the daily cap', () => {
  const intervals = expandWindows([{ from: '22:00', to: '05:00', first: '2026-01-10', last: '2026-01-11' }], LON);
  const gate = (iso: string, startedToday = 0) => dispatchGate({ intervals, now: Z(iso), zone: LON, dailyCap: 100, startedToday });

  it('outside a window it waits for the next one; after the last, none is left', () => {
    expect(gate('2026-01-10T12:00:00Z')).toEqual({ open: false, reason: 'outside_window', until: Z('2026-01-10T22:00:00Z') });
    expect(gate('2026-01-11T05:00:00Z')).toEqual({ open: false, reason: 'outside_window', until: Z('2026-01-11T22:00:00Z') });
    expect(gate('2026-01-12T05:00:00Z')).toEqual({ open: false, reason: 'no_window_left' });
  });
  it('a window that opened while nobody looked (a worker down) is open when looked at, until its end', () => {
    expect(gate('2026-01-11T03:00:00Z', 0)).toEqual({ open: true, allow: 100, until: Z('2026-01-11T05:00:00Z') });
  });
  it('before midnight the allowance is what is left of the day and lasts until midnight', () => {
    expect(gate('2026-01-10T23:00:00Z', 40)).toEqual({ open: true, allow: 60, until: Z('2026-01-11T00:00:00Z') });
  });
  it('a cap reached before midnight waits for midnight inside the same night; after midnight the new day has the whole cap', () => {
    expect(gate('2026-01-10T23:30:00Z', 100)).toEqual({ open: false, reason: 'daily_cap', until: Z('2026-01-11T00:00:00Z') });
    expect(gate('2026-01-10T23:30:00Z', 130)).toEqual({ open: false, reason: 'daily_cap', until: Z('2026-01-11T00:00:00Z') });
    expect(gate('2026-01-11T00:10:00Z', 0)).toEqual({ open: true, allow: 100, until: Z('2026-01-11T05:00:00Z') });
  });
  it("a cap reached after midnight holds through the evening's window of the same local day, to the next midnight", () => {
    expect(gate('2026-01-11T04:00:00Z', 100)).toEqual({ open: false, reason: 'daily_cap', until: Z('2026-01-12T00:00:00Z') });
  });
  it('a cap reached on the last night is capped while that window is open, and out of windows once it closes', () => {
    expect(gate('2026-01-12T01:00:00Z', 100)).toEqual({ open: false, reason: 'daily_cap', until: Z('2026-01-12T05:00:00Z') });
    expect(gate('2026-01-12T05:00:00Z', 100)).toEqual({ open: false, reason: 'no_window_left' });
  });
  it('no cap: the whole window', () => {
    expect(dispatchGate({ intervals, now: Z('2026-01-10T23:00:00Z'), zone: LON, startedToday: 5000 })).toEqual({
      open: true,
      allow: Number.POSITIVE_INFINITY,
      until: Z('2026-01-11T05:00:00Z'),
    });
  });
  it('caps count per local day across the October change (a 25-hour day)', () => {
    const oct = expandWindows([{ from: '22:00', to: '05:00', first: '2026-10-24', last: '2026-10-25' }], LON);
    // 00:30 BST on the 25th is 23:30Z on the 24th: already the new local day.
    expect(dispatchGate({ intervals: oct, now: Z('2026-10-24T23:30:00Z'), zone: LON, dailyCap: 10, startedToday: 10 })).toEqual({
      open: false,
      reason: 'daily_cap',
      until: Z('2026-10-26T00:00:00Z'),
    });
    expect(dispatchGate({ intervals: oct, now: Z('2026-10-24T22:30:00Z'), zone: LON, dailyCap: 10, startedToday: 3 })).toEqual({
      open: true,
      allow: 7,
      until: Z('2026-10-24T23:00:00Z'),
    });
  });
});

describe("the bound a plan gives its wave's run, and what the run may start under it", () => {
  const T = Date.UTC(2026, 0, 10, 22);
  it('open: up to the cap from the day’s base, until the gate’s end; no cap: no limit; closed: nothing, at once', () => {
    expect(dispatchBound({ open: true, allow: 7, until: T }, 10, 33)).toEqual({ limit: 43, until: T });
    expect(dispatchBound({ open: true, allow: Number.POSITIVE_INFINITY, until: T }, undefined, 33)).toEqual({ limit: null, until: T });
    expect(dispatchBound({ open: false, reason: 'daily_cap', until: T }, 10, 33)).toEqual({ limit: 0, until: 0 });
    expect(dispatchBound({ open: false, reason: 'outside_window', until: T }, undefined, 0)).toEqual({ limit: 0, until: 0 });
    expect(dispatchBound({ open: false, reason: 'no_window_left' }, undefined, 0)).toEqual({ limit: 0, until: 0 });
  });

  it('a run starts nothing from the bound’s end on, however much its limit allows; before it, up to the limit', () => {
    expect(dispatchAllowance({ limit: null, until: T }, T - 1, 5)).toBe(Number.POSITIVE_INFINITY);
    expect(dispatchAllowance({ limit: null, until: T }, T, 5)).toBe(0);
    expect(dispatchAllowance({ limit: 100, until: T }, T + 1, 5)).toBe(0);
    expect(dispatchAllowance({ limit: 8, until: T }, T - 1, 5)).toBe(3);
    expect(dispatchAllowance({ limit: 8, until: null }, T + 1e9, 5)).toBe(3);
    // Past its limit (a lower cap signalled after more had started): none, never a negative count.
    expect(dispatchAllowance({ limit: 4, until: null }, T, 5)).toBe(0);
    expect(dispatchAllowance({ limit: 0, until: 0 }, T, 0)).toBe(0);
    // A plain run (no plan): no bound.
    expect(dispatchAllowance(undefined, T, 5)).toBe(Number.POSITIVE_INFINITY);
    expect(dispatchAllowance({ limit: null, until: null }, T, 5)).toBe(Number.POSITIVE_INFINITY);
  });
});
