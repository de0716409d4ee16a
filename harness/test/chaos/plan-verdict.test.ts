import { describe, expect, it } from 'vitest';
import { judgePlanWindows, planWindowsPassed, type PlanLedgerRow, type PlanPlatformRow, type PlanWaveTruth } from '../../chaos/plan-verdict';

const H = 3_600_000;
// 2027-03-27 22:00 GMT to 2027-03-28 05:00 BST: the night the clocks go forward (6 hours).
const night = { start: Date.parse('2027-03-27T22:00:00Z'), end: Date.parse('2027-03-28T04:00:00Z') };
const wave = (over: Partial<PlanWaveTruth> = {}): PlanWaveTruth => ({ name: 'w', accounts: ['A', 'B'], windows: [night], dailyCap: 2, ...over });
const done = (startedAt: number): PlanLedgerRow => ({ outcome: 'completed', startedAt });
const once = (t: number): PlanPlatformRow => ({ createdCount: 1, scheduledAt: [t] });

function verdict(o: { waves?: PlanWaveTruth[]; ledger: Record<string, PlanLedgerRow>; platform: Record<string, PlanPlatformRow>; graceMs?: number }) {
  return judgePlanWindows({
    waves: o.waves ?? [wave()],
    zone: 'Europe/London',
    ledger: new Map(Object.entries(o.ledger)),
    platform: new Map(Object.entries(o.platform)),
    graceMs: o.graceMs ?? 60_000,
  });
}

describe('the plan chaos verdict: windows and caps from the ledger and the sandbox', () => {
  it('passes accounts dispatched and scheduled inside the window, within the cap', () => {
    const v = verdict({
      ledger: { A: done(night.start), B: done(night.start + 3 * H) },
      platform: { A: once(night.start + 1000), B: once(night.start + 3 * H) },
    });
    expect(v).toMatchObject({ lost: [], duplicated: [], dispatchedOutside: [], scheduledOutside: [], overCap: [], notAttemptedButScheduled: [] });
    expect(v.perDay).toEqual({ w: { '2027-03-27': 1, '2027-03-28': 1 } });
    expect(v.dispatchedPerDay).toEqual({ w: { '2027-03-27': 1, '2027-03-28': 1 } });
    expect(planWindowsPassed(v)).toBe(true);
  });

  it('a dispatch at the window end is outside; a schedule just after it is in flight, one past the grace is not', () => {
    const v = verdict({
      ledger: { A: done(night.end), B: done(night.end - 1) },
      platform: { A: once(night.end + 59_999), B: once(night.end + 60_000) },
    });
    expect(v.dispatchedOutside).toEqual(['A']);
    expect(v.scheduledOutside).toEqual(['B']);
    expect(planWindowsPassed(v)).toBe(false);
  });

  it("any of a wave's windows will do; a dispatch before the first opened is outside", () => {
    const later = { start: night.end + 20 * H, end: night.end + 27 * H };
    const v = verdict({
      waves: [wave({ windows: [night, later] })],
      ledger: { A: done(later.start + 1), B: done(night.start - 1) },
      platform: { A: once(later.start + 2), B: once(later.start + 3) },
    });
    expect(v.dispatchedOutside).toEqual(['B']);
    expect(v.scheduledOutside).toEqual([]);
  });

  it("days are the zone's local days: 23:30 UTC on 30 June is 1 July in London", () => {
    const t = Date.parse('2027-06-30T23:30:00Z');
    const v = verdict({ waves: [wave({ windows: [{ start: t - H, end: t + H }] })], ledger: { A: done(t), B: done(t) }, platform: { A: once(t), B: once(t) } });
    expect(v.perDay).toEqual({ w: { '2027-07-01': 2 } });
    expect(v.dispatchedPerDay).toEqual({ w: { '2027-07-01': 2 } });
  });

  it('a schedule before the window opened is outside', () => {
    const v = verdict({ ledger: { A: done(night.start), B: done(night.start) }, platform: { A: once(night.start - 1), B: once(night.start) } });
    expect(v.scheduledOutside).toEqual(['A']);
    expect(v.dispatchedOutside).toEqual([]);
  });

  it('counts the cap per local day of the zone, and flags a day over it', () => {
    const after = night.start + 3 * H; // 2027-03-28 01:00 UTC: 02:00 BST, the first moment after the change
    const v = verdict({
      waves: [wave({ accounts: ['A', 'B', 'C'], dailyCap: 2 })],
      ledger: { A: done(after), B: done(after), C: done(night.start) },
      platform: { A: once(after), B: once(after), C: once(night.start) },
    });
    expect(v.perDay).toEqual({ w: { '2027-03-27': 1, '2027-03-28': 2 } });
    expect(v.overCap).toEqual([]);
    const over = verdict({
      waves: [wave({ accounts: ['A', 'B', 'C'], dailyCap: 2 })],
      ledger: { A: done(after), B: done(after), C: done(after) },
      platform: { A: once(after), B: once(after), C: once(after) },
    });
    expect(over.overCap).toEqual(['w 2027-03-28 dispatched 3', 'w 2027-03-28 scheduled 3']);
    expect(planWindowsPassed(over)).toBe(false);
    // The cap counts dispatched accounts: one that failed locally (never scheduled) still counts.
    const local = verdict({
      waves: [wave({ accounts: ['A', 'B', 'C'], dailyCap: 2 })],
      ledger: { A: done(after), B: done(after), C: { outcome: 'failed', startedAt: after } },
      platform: { A: once(after), B: once(after) },
    });
    expect(local.overCap).toEqual(['w 2027-03-28 dispatched 3']);
    // No cap: any number a day.
    expect(
      verdict({ waves: [wave({ accounts: ['A', 'B', 'C'], dailyCap: undefined })], ledger: {}, platform: { A: once(after), B: once(after), C: once(after) } })
        .overCap,
    ).toEqual([]);
  });

  it('an account with no outcome is lost; one created twice is duplicated; not attempted but scheduled is flagged', () => {
    const v = verdict({
      ledger: { A: { outcome: null, startedAt: night.start }, B: { outcome: 'not_attempted', startedAt: null } },
      platform: { A: { createdCount: 2, scheduledAt: [night.start, night.start + 1] }, B: once(night.start) },
    });
    expect(v.lost).toEqual(['A']);
    expect(v.duplicated).toEqual(['A']);
    expect(v.notAttemptedButScheduled).toEqual(['B']);
    for (const k of ['lost', 'duplicated', 'notAttemptedButScheduled', 'dispatchedOutside', 'scheduledOutside', 'overCap'] as const)
      expect(planWindowsPassed({ ...verdict({ ledger: {}, platform: {} }), lost: [], [k]: ['X'] })).toBe(false);
  });

  it('an account never dispatched nor scheduled, recorded not attempted, passes', () => {
    const v = verdict({ ledger: { A: done(night.start), B: { outcome: 'not_attempted', startedAt: null } }, platform: { A: once(night.start) } });
    expect(planWindowsPassed(v)).toBe(true);
  });
});
