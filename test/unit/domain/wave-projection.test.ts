import { describe, expect, it } from 'vitest';
import { gateWaitingSince, openWindowEnd, projectedEnd, remainingAccounts } from '../../../domain/wave-projection';
import type { GateStatus, WaveStatus } from '../../../domain/plan-messages';

const t = (iso: string) => Date.parse(iso);
const gate = (state: GateStatus['state']): GateStatus => ({ state, required_by: null, approved_by: null, approved_at: null, note: null });
const gates = (entry: GateStatus['state'], exit: GateStatus['state']) =>
  ({ entry: gate(entry), exit: { ...gate(exit), reconciled_rate: null, min_reconciled_rate: null } }) as WaveStatus['gates'];

/** What the metrics say of a plan wave (workers/migration-metrics.ts): its open window, projected end and gate waits. */
describe('wave projection', () => {
  const windows = [
    { start: '2026-01-01T22:00:00Z', end: '2026-01-02T04:00:00Z' },
    { start: '2026-01-02T22:00:00Z', end: '2026-01-03T04:00:00Z' },
  ];

  it("the open window's end, none between windows or at a window's end", () => {
    expect(openWindowEnd(windows, t('2026-01-01T22:00:00Z'))).toBe(t('2026-01-02T04:00:00Z'));
    expect(openWindowEnd(windows, t('2026-01-02T23:30:00Z'))).toBe(t('2026-01-03T04:00:00Z'));
    expect(openWindowEnd(windows, t('2026-01-02T04:00:00Z'))).toBeUndefined();
    expect(openWindowEnd(windows, t('2026-01-01T21:59:59Z'))).toBeUndefined();
  });

  it('accounts left: planned less those finished, never below zero; unknown when the cohort was not counted', () => {
    const accounts = { planned: 20, started: 12, completed: 8, failed: 2, not_attempted: 1, in_flight: 1 };
    expect(remainingAccounts({ accounts })).toBe(9);
    expect(remainingAccounts({ accounts: { ...accounts, planned: 5 } })).toBe(0);
    expect(remainingAccounts({ accounts: { ...accounts, planned: null } })).toBeUndefined();
  });

  it('projected end: now plus what is left at the rate; now when nothing is left; unknown without a rate', () => {
    const now = t('2026-01-01T23:00:00Z');
    expect(projectedEnd(60, 0.5, now)).toBe(now + 120_000);
    expect(projectedEnd(0, 0, now)).toBe(now);
    expect(projectedEnd(10, 0, now)).toBeUndefined();
    expect(projectedEnd(undefined, 1, now)).toBeUndefined();
  });

  it('a waiting exit gate counts from its run finishing; a waiting entry gate from the waves before it, or the plan start', () => {
    const finished = new Map([
      ['r1', t('2026-01-01T23:00:00Z')],
      ['r0', t('2026-01-01T22:30:00Z')],
    ]);
    const o = { planStart: t('2026-01-01T20:00:00Z'), before: [{ runs: ['r0'] }, { runs: ['r1'] }], runFinishedAt: (r: string) => finished.get(r) };
    expect(gateWaitingSince({ runs: ['trial-1', 'r1'], gates: gates('approved', 'waiting') }, 'exit', o)).toBe(t('2026-01-01T23:00:00Z'));
    expect(gateWaitingSince({ runs: [], gates: gates('waiting', 'pending') }, 'entry', o)).toBe(t('2026-01-01T23:00:00Z'));
    expect(gateWaitingSince({ runs: [], gates: gates('waiting', 'pending') }, 'entry', { ...o, before: [] })).toBe(o.planStart);
    expect(gateWaitingSince({ runs: ['r1'], gates: gates('approved', 'approved') }, 'exit', o)).toBeUndefined();
    expect(gateWaitingSince({ runs: [], gates: gates('pending', 'pending') }, 'entry', o)).toBeUndefined();
  });
});
