import { describe, expect, it } from 'vitest';
import { waveFit } from '../../../domain/plan-fit';
import { expandWindows } from '../../../domain/plan-windows';

const zone = 'Europe/London';
const t = (iso: string) => Date.parse(iso);
const night = (date: string, next: string) => ({ start: t(`${date}T22:00:00Z`), end: t(`${next}T04:00:00Z`) });

/** Will a wave's accounts fit its windows and daily cap at a rate (domain/plan-fit.ts)? */
describe('wave fit', () => {
  it('a wave of 20 whose one-day window and cap of 15 admit 15 does not fit: 5 left over', () => {
    const intervals = [{ start: t('2026-01-05T09:00:00Z'), end: t('2026-01-05T17:00:00Z') }];
    expect(waveFit({ accounts: 20, intervals, zone, dailyCap: 15, from: t('2026-01-01T00:00:00Z') })).toEqual({
      accounts: 20,
      admitted: 15,
      leftOver: 5,
      fits: false,
    });
    expect(waveFit({ accounts: 15, intervals, zone, dailyCap: 15, from: t('2026-01-01T00:00:00Z') })).toMatchObject({ fits: true, leftOver: 0 });
  });

  it('a night window across midnight gets a fresh cap after 00:00, local time', () => {
    const intervals = [night('2026-01-05', '2026-01-06')];
    expect(waveFit({ accounts: 30, intervals, zone, dailyCap: 10, from: 0 })).toMatchObject({ admitted: 20, leftOver: 10 });
    // Two nights touch three local days (the 6th twice), each capped at 10.
    const two = [night('2026-01-05', '2026-01-06'), night('2026-01-06', '2026-01-07')];
    expect(waveFit({ accounts: 30, intervals: two, zone, dailyCap: 10, from: 0 })).toMatchObject({ admitted: 30, fits: true });
    // The first night's second half and the second night's first half share 6 January: the cap is per day, not per window.
    expect(waveFit({ accounts: 100, intervals: two, zone, dailyCap: 10, from: 0 }).admitted).toBe(30);
  });

  it('at a rate, each window admits what its length allows', () => {
    const intervals = [{ start: t('2026-01-05T09:00:00Z'), end: t('2026-01-05T10:00:00Z') }];
    expect(waveFit({ accounts: 5000, intervals, zone, perSecond: 1, from: 0 })).toMatchObject({ admitted: 3600, leftOver: 1400, fits: false });
    expect(waveFit({ accounts: 3600, intervals, zone, perSecond: 1, from: 0 }).fits).toBe(true);
    // The rate and the cap: the smaller bounds.
    expect(waveFit({ accounts: 5000, intervals, zone, perSecond: 1, dailyCap: 100, from: 0 }).admitted).toBe(100);
  });

  it('counts from now: the part of a window already past admits nothing, and what started today uses the cap', () => {
    const intervals = [{ start: t('2026-01-05T09:00:00Z'), end: t('2026-01-05T10:00:00Z') }];
    const from = t('2026-01-05T09:30:00Z');
    expect(waveFit({ accounts: 5000, intervals, zone, perSecond: 1, from }).admitted).toBe(1800);
    expect(waveFit({ accounts: 50, intervals, zone, dailyCap: 40, startedToday: 30, from }).admitted).toBe(10);
    expect(waveFit({ accounts: 5, intervals, zone, from: t('2026-01-05T10:00:00Z') })).toMatchObject({ admitted: 0, leftOver: 5 });
  });

  it('nightly windows expanded from a plan file', () => {
    const intervals = expandWindows([{ from: '22:00', to: '04:00', first: '2026-01-05', last: '2026-01-06' }], zone);
    expect(waveFit({ accounts: 100, intervals, zone, dailyCap: 10, from: 0 }).admitted).toBe(30);
  });
});
