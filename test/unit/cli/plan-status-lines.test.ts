import { describe, expect, it } from 'vitest';
import { dryRunLine, exitNumberLines, planStatusLines, waveFits } from '../../../cli/actions/plan';
import type { DryRunStatus, PlanStatus, WaveStatus } from '../../../domain/plan-messages';

const accounts = { planned: 3, started: 3, completed: 2, failed: 1, not_attempted: 0, in_flight: 0 };
const dry = (more: Partial<DryRunStatus> = {}): DryRunStatus => ({
  state: 'not_met',
  runs: ['p.a.trial-1'],
  accounts,
  pass_rate: 2 / 3,
  min_pass_rate: 1,
  ...more,
});

describe('plan status: the trial load line', () => {
  it('below the rate, at or above it, without a minimum, and before the first trial load', () => {
    expect(dryRunLine(dry())).toBe('trial load 1 (run p.a.trial-1): not_met, pass rate 66.7% < min 100.0%; completed 2, failed 1, not attempted 0');
    expect(dryRunLine(dry({ state: 'passed', runs: ['p.a.trial-1', 'p.a.trial-2'], pass_rate: 1 }))).toBe(
      'trial load 2 (run p.a.trial-2): passed, pass rate 100.0% ≥ min 100.0%; completed 2, failed 1, not attempted 0',
    );
    expect(dryRunLine(dry({ state: 'passed', min_pass_rate: null }))).toBe(
      'trial load 1 (run p.a.trial-1): passed, pass rate 66.7%; completed 2, failed 1, not attempted 0',
    );
    expect(dryRunLine(dry({ state: 'running', pass_rate: null }))).toBe('trial load 1 (run p.a.trial-1): running; completed 2, failed 1, not attempted 0');
    expect(dryRunLine(dry({ state: 'pending', runs: [], pass_rate: null }))).toBe('trial load (dry run) first, pass rate ≥ 100.0%');
  });

  it('a wave shows what it waits for and its trial load', () => {
    const gate = { state: 'not_required' as const, required_by: null, approved_by: null, approved_at: null, note: null };
    const w: WaveStatus = {
      name: 'b',
      state: 'pending',
      runs: ['p.b.trial-1', 'p.b'],
      after: ['a'],
      dry_run: dry({ runs: ['p.b.trial-1'] }),
      accounts,
      windows: [],
      next_window: null,
      daily_cap: null,
      started_today: 0,
      stop_line: { tripped: false, reason: null },
      gates: { entry: gate, exit: { ...gate, reconciled_rate: null, min_reconciled_rate: null } },
    };
    const st: PlanStatus = { id: 'p', name: 'n', timezone: 'Europe/London', state: 'running', current_wave: 'b', waves: [w] };
    expect(planStatusLines(st).slice(2, 4)).toEqual([
      '    after a',
      '    trial load 1 (run p.b.trial-1): not_met, pass rate 66.7% < min 100.0%; completed 2, failed 1, not attempted 0',
    ]);
  });
});

describe('plan status: does what is left fit?', () => {
  const gate = { state: 'not_required' as const, required_by: null, approved_by: null, approved_at: null, note: null };
  const now = Date.parse('2026-01-05T10:00:00Z');
  const wave = (name: string, more: Partial<WaveStatus>): WaveStatus => ({
    name,
    state: 'running',
    runs: [`p.${name}`],
    accounts: { planned: 100, started: 40, completed: 30, failed: 0, not_attempted: 0, in_flight: 10 },
    // The window open now ends in an hour.
    windows: [{ start: '2026-01-05T09:00:00Z', end: '2026-01-05T11:00:00Z' }],
    next_window: null,
    daily_cap: null,
    started_today: 40,
    stop_line: { tripped: false, reason: null },
    gates: { entry: gate, exit: { ...gate, reconciled_rate: null, min_reconciled_rate: null } },
    ...more,
  });
  const st: PlanStatus = {
    id: 'p',
    name: 'n',
    timezone: 'Europe/London',
    state: 'running',
    current_wave: 'slow',
    waves: [wave('slow', {}), wave('capped', { daily_cap: 50 }), wave('done', { state: 'completed' })],
  };

  it("at the run's measured rate: 60 left, an hour at 300 a 10 minutes' worth admits them; a cap with 10 left today does not", () => {
    const fits = waveFits(st, {
      now,
      measured: new Map([
        ['p.slow', 300],
        ['p.capped', 300],
      ]),
    });
    expect(Object.keys(fits)).toEqual(['slow', 'capped']);
    expect(fits.slow).toMatchObject({ accounts: 60, admitted: 60, fits: true, rate: 'measured', perSecond: 0.5 });
    expect(fits.capped).toMatchObject({ accounts: 60, admitted: 10, leftOver: 50, fits: false });
    const lines = planStatusLines(st, fits);
    expect(lines).toContain('    fits: 60 accounts to start within its windows and daily cap at measured 0.5 accounts a second');
    expect(lines).toContain('    DOES NOT FIT: 60 accounts to start, its windows and daily cap at measured 0.5 accounts a second admit 10: 50 left over');
  });

  it('at a stated rate too slow for the hour left; with no rate at all, the windows and cap alone', () => {
    expect(waveFits(st, { now, statedPerSecond: 0.01, measured: new Map([['p.slow', 300]]) }).slow).toMatchObject({
      admitted: 36,
      leftOver: 24,
      rate: 'stated',
    });
    expect(waveFits(st, { now, measured: new Map() }).slow).toMatchObject({ admitted: 60, fits: true, rate: 'none', perSecond: null });
  });
});

describe('plan status: the numbers the exit gate decides on', () => {
  const exit = {
    state: 'pending' as const,
    required_by: null,
    approved_by: null,
    approved_at: null,
    note: null,
    reconciled_rate: 0.98,
    min_reconciled_rate: null,
  };
  const supply = {
    read_at: '2026-10-25T08:00:00.000Z',
    points: 10,
    on_supply: 9,
    waiting: 1,
    over_max_days: 0,
    on_supply_rate: 0.9,
    min_on_supply_rate: 0.95,
    max_days_to_supply: 14,
  };

  it('none without a rule or a reading; the reconciled share against its minimum, below or met', () => {
    expect(exitNumberLines(exit)).toEqual([]);
    expect(exitNumberLines({ ...exit, min_reconciled_rate: 0.99 })).toEqual(['reconciled 98.0% < min 99.0%']);
    expect(exitNumberLines({ ...exit, min_reconciled_rate: 0.98 })).toEqual(['reconciled 98.0% ≥ min 98.0%']);
  });

  it("the switch's meter points: on supply against the minimum, still followed, past the days, and what the gate makes of them", () => {
    expect(exitNumberLines({ ...exit, supply })).toEqual([
      'switch 2026-10-25T08:00:00.000Z: 10 meter points, on supply 9 (90.0% < min 95.0%), still followed 1, 0 past max_days_to_supply 14: pending',
    ]);
    expect(exitNumberLines({ ...exit, supply: { ...supply, on_supply: 10, waiting: 0 } })[0]).toMatch(
      /on supply 10 \(100\.0% ≥ min 95\.0%\), still followed 0, 0 past .*: met$/,
    );
    expect(exitNumberLines({ ...exit, supply: { ...supply, over_max_days: 1 } })[0]).toMatch(/, 1 past max_days_to_supply 14: not_met$/);
    expect(exitNumberLines({ ...exit, supply: { ...supply, min_on_supply_rate: null, max_days_to_supply: null, waiting: 0 } })).toEqual([
      'switch 2026-10-25T08:00:00.000Z: 10 meter points, on supply 9 (90.0%), still followed 0: met',
    ]);
  });

  it('the supplier census against its maximums, marked when over', () => {
    const census = { taken_at: '2026-10-25T08:00:00.000Z', platform_only: 2, ledger_only: 0, max_platform_only: 1, max_ledger_only: null };
    expect(exitNumberLines({ ...exit, census })).toEqual(['supplier census 2026-10-25T08:00:00.000Z: platform only 2 (max 1), ledger only 0 (max none): OVER']);
    expect(exitNumberLines({ ...exit, census: { ...census, platform_only: 1 } })).toEqual([
      'supplier census 2026-10-25T08:00:00.000Z: platform only 1 (max 1), ledger only 0 (max none)',
    ]);
  });
});
