import { describe, expect, it } from 'vitest';
import { planAgainstActual, plannedPerDay, windowDays } from '../../../domain/plan-report';
import { localToInstant } from '../../../domain/plan-windows';

const Z = 'Europe/London';
const at = (local: string) => localToInstant(local, Z);
const win = (start: string, end: string) => ({ start: at(start), end: at(end) });

describe('plan report: planned per local day', () => {
  it('a night window spans two local days; days of several windows are listed once, in order', () => {
    expect(windowDays([win('2026-10-19T22:00', '2026-10-20T05:00')], Z)).toEqual(['2026-10-19', '2026-10-20']);
    expect(windowDays([win('2026-10-20T22:00', '2026-10-21T05:00'), win('2026-10-19T22:00', '2026-10-20T05:00')], Z)).toEqual([
      '2026-10-19',
      '2026-10-20',
      '2026-10-21',
    ]);
    // Ending at midnight: the next day has no window time.
    expect(windowDays([win('2026-10-19T20:00', '2026-10-20T00:00')], Z)).toEqual(['2026-10-19']);
    // The October change's 25-hour day is one day.
    expect(windowDays([win('2026-10-24T22:00', '2026-10-26T01:00')], Z)).toEqual(['2026-10-24', '2026-10-25', '2026-10-26']);
  });
  it('spreads the wave over its days at most the cap a day, in order; the rest get none', () => {
    const intervals = [win('2026-10-19T22:00', '2026-10-20T05:00'), win('2026-10-20T22:00', '2026-10-21T05:00')];
    expect(plannedPerDay({ intervals, zone: Z, dailyCap: 4, planned: 10 })).toEqual([
      { day: '2026-10-19', planned: 4 },
      { day: '2026-10-20', planned: 4 },
      { day: '2026-10-21', planned: 2 },
    ]);
    expect(plannedPerDay({ intervals, zone: Z, dailyCap: 20, planned: 10 }).map((d) => d.planned)).toEqual([10, 0, 0]);
    expect(plannedPerDay({ intervals, zone: Z, dailyCap: null, planned: 10 }).map((d) => d.planned)).toEqual([10, 0, 0]);
    // Its size unknown: each day plans its cap, or nothing can be said.
    expect(plannedPerDay({ intervals, zone: Z, dailyCap: 4, planned: null }).map((d) => d.planned)).toEqual([4, 4, 4]);
    expect(plannedPerDay({ intervals, zone: Z, dailyCap: null, planned: null }).map((d) => d.planned)).toEqual([null, null, null]);
  });
  it('merges the actual days in: summed, a day outside every window planned 0, sorted', () => {
    const rows = planAgainstActual(
      [
        { day: '2026-10-20', planned: 4 },
        { day: '2026-10-19', planned: 4 },
      ],
      [
        { day: '2026-10-19', started: 3, completed: 2, failed: 1 },
        { day: '2026-10-19', started: 1, completed: 1, failed: 0 },
        { day: '2026-10-22', started: 2, completed: 2, failed: 0 },
      ],
    );
    expect(rows).toEqual([
      { day: '2026-10-19', planned: 4, started: 4, completed: 3, failed: 1 },
      { day: '2026-10-20', planned: 4, started: 0, completed: 0, failed: 0 },
      { day: '2026-10-22', planned: 0, started: 2, completed: 2, failed: 0 },
    ]);
  });
});
