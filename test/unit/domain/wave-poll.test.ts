import { describe, expect, it } from 'vitest';
import { dispatchGate, expandWindows, type DispatchGate } from '../../../domain/plan-windows';
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
} from '../../../domain/wave-poll';
import type { PlanArgs, PlanState, WaveState } from '../../../domain/plan-messages';

const LON = 'Europe/London';
const Z = (iso: string) => Date.parse(iso);
// Two nights, 22:00 to 05:00 London time (winter: UTC).
const nights = expandWindows([{ from: '22:00', to: '05:00', first: '2026-01-10', last: '2026-01-11' }], LON);
const gateAt = (iso: string, dailyCap?: number, startedToday = 0) => dispatchGate({ intervals: nights, now: Z(iso), zone: LON, dailyCap, startedToday });
const utc = (i: { start: number; end: number } | undefined) => i && { start: new Date(i.start).toISOString(), end: new Date(i.end).toISOString() };

describe("a wave's state after a poll of its run (plan status)", () => {
  it('running while its window is open and its cap allows', () => {
    expect(waveStateAfterPoll(gateAt('2026-01-10T23:00:00Z'), false)).toBe('running');
    expect(waveStateAfterPoll(gateAt('2026-01-10T23:00:00Z', 10, 9), false)).toBe('running');
  });
  it("capped once the day's cap is spent inside a window", () => {
    expect(waveStateAfterPoll(gateAt('2026-01-10T23:00:00Z', 10, 10), false)).toBe('capped');
  });
  it('waiting_window before a window, or between two nights', () => {
    expect(waveStateAfterPoll(gateAt('2026-01-10T12:00:00Z'), false)).toBe('waiting_window');
    expect(waveStateAfterPoll(gateAt('2026-01-11T12:00:00Z'), false)).toBe('waiting_window');
  });
  it('out_of_windows once the last window has closed', () => {
    expect(waveStateAfterPoll(gateAt('2026-01-12T06:00:00Z'), false)).toBe('out_of_windows');
  });
  it("stopped_line while its run's stop the line is tripped, whatever the window says", () => {
    for (const iso of ['2026-01-10T23:00:00Z', '2026-01-10T12:00:00Z', '2026-01-12T06:00:00Z'])
      expect(waveStateAfterPoll(gateAt(iso, 10, 10), true)).toBe('stopped_line');
  });
  it("a trial load's wave: dry_run, or stopped_line while tripped", () => {
    expect(trialStateAfterPoll(false)).toBe('dry_run');
    expect(trialStateAfterPoll(true)).toBe('stopped_line');
  });
});

describe('the next window plan status shows', () => {
  it('open: the window open now', () => {
    const now = '2026-01-10T23:00:00Z';
    expect(utc(nextWindowShown(gateAt(now), nights, Z(now)))).toEqual({ start: '2026-01-10T22:00:00.000Z', end: '2026-01-11T05:00:00.000Z' });
  });
  it('waiting: the window it waits for', () => {
    const now = '2026-01-11T12:00:00Z';
    expect(utc(nextWindowShown(gateAt(now), nights, Z(now)))).toEqual({ start: '2026-01-11T22:00:00.000Z', end: '2026-01-12T05:00:00.000Z' });
  });
  it('capped in a night across midnight: the rest of that night, from local midnight when the cap renews', () => {
    const now = '2026-01-10T23:00:00Z';
    expect(utc(nextWindowShown(gateAt(now, 10, 10), nights, Z(now)))).toEqual({ start: '2026-01-11T00:00:00.000Z', end: '2026-01-11T05:00:00.000Z' });
  });
  it('no window left: none', () => {
    const now = '2026-01-12T06:00:00Z';
    expect(nextWindowShown(gateAt(now), nights, Z(now))).toBeUndefined();
  });
  it("a cap spent in the last window after its last midnight: none (it waits only for the window's end)", () => {
    const now = '2026-01-12T03:00:00Z';
    const gate = gateAt(now, 10, 10);
    expect(gate).toEqual({ open: false, reason: 'daily_cap', until: Z('2026-01-12T05:00:00Z') });
    expect(nextWindowShown(gate, nights, Z(now))).toBeUndefined();
  });
});

describe('the day a daily cap counts in', () => {
  it("the same local day keeps its base; a new day starts from the run's total now", () => {
    const today = { day: '2026-01-10', base: 40 };
    expect(capDay(today, '2026-01-10', 55)).toEqual(today);
    expect(capDay(today, '2026-01-11', 55)).toEqual({ day: '2026-01-11', base: 55 });
    expect(capDay(undefined, '2026-01-10', 12)).toEqual({ day: '2026-01-10', base: 12 });
  });
});

describe("the run's bound is signalled again only when it changed", () => {
  it('none signalled yet, another limit or another end: signal; the same: not', () => {
    expect(boundChanged(undefined, { limit: 0, until: 0 })).toBe(true);
    expect(boundChanged({ limit: 10, until: 5 }, { limit: 10, until: 5 })).toBe(false);
    expect(boundChanged({ limit: 10, until: 5 }, { limit: 11, until: 5 })).toBe(true);
    expect(boundChanged({ limit: 10, until: 5 }, { limit: 10, until: 6 })).toBe(true);
    expect(boundChanged({ limit: null, until: null }, { limit: null, until: null })).toBe(false);
  });
});

describe('how long the plan sleeps before its next poll', () => {
  it('until the gate changes (the window ends, opens, or the cap renews), never longer than the poll interval', () => {
    const now = Z('2026-01-11T04:59:00Z');
    expect(pollDelayMs(gateAt('2026-01-11T04:59:00Z'), now, 300)).toBe(60_000);
    expect(pollDelayMs(gateAt('2026-01-11T04:59:00Z'), now, 30)).toBe(30_000);
  });
  it('no window left: the poll interval', () => {
    const gate: DispatchGate = { open: false, reason: 'no_window_left' };
    expect(pollDelayMs(gate, 0, 30)).toBe(30_000);
  });
});

describe("the plan's state", () => {
  it('cancelled whatever its waves; completed once every wave is done; running otherwise', () => {
    expect(planState(true, true)).toBe('cancelled');
    expect(planState(true, false)).toBe('cancelled');
    expect(planState(false, true)).toBe('completed');
    expect(planState(false, false)).toBe('running');
  });
});

describe('what the plan carries over at continue-as-new', () => {
  it('its input and all its state: the waves, their gates, sign-offs, bounds and days', () => {
    const input = { planId: 'p', name: 'n', timezone: LON, waves: [], pollSeconds: 30, continueAsNewAtEvents: 500 } as PlanArgs;
    const st = { current: 1, cancelled: false, waves: [] } as PlanState;
    expect(planCarryOver(input, st)).toEqual({ ...input, state: st });
    expect(planCarryOver({ ...input, state: { current: 0, cancelled: false, waves: [] } }, st).state).toBe(st);
  });
});

describe('the wave plan status names as current', () => {
  const doneOf = (states: string[]) => (i: number) => ['completed', 'skipped', 'cancelled'].includes(states[i]);
  const current = (...states: WaveState[]) => currentWaveIndex(states, doneOf(states));
  it('the first under way, waves side by side or not', () => {
    expect(current('completed', 'pending', 'running')).toBe(2);
    expect(current('running', 'capped')).toBe(0);
    expect(current('skipped', 'waiting_window', 'pending')).toBe(1);
  });
  it('none under way: the first not done; every wave done: none', () => {
    expect(current('completed', 'pending', 'pending')).toBe(1);
    expect(current('completed', 'skipped')).toBe(-1);
  });
});

describe('which waves plan cancel reaches', () => {
  it('every wave not done; a done one only as the wave a file-order plan is on', () => {
    expect(cancelReachesWave(false, true, false)).toBe(true);
    expect(cancelReachesWave(false, false, false)).toBe(true);
    expect(cancelReachesWave(true, true, true)).toBe(false);
    expect(cancelReachesWave(true, false, false)).toBe(false);
    expect(cancelReachesWave(true, false, true)).toBe(true);
  });
});
