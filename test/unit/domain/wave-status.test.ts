import { describe, expect, it } from 'vitest';
import { emptyTotals } from '../../../domain/run-totals';
import { gateOf, initialWaveStatus, waveAccounts, waveStopLine, zeroAccounts } from '../../../domain/wave-status';
import type { RunProgress } from '../../../domain/messages';
import type { PlanWaveArgs } from '../../../domain/plan-messages';
import { STOP_LINE_DEFAULTS, initialStopLine } from '../../../domain/stop-line';

const progress = (more: Partial<RunProgress> = {}): RunProgress => ({
  runId: 'r1',
  supplierCode: 'SUP',
  dryRun: false,
  state: 'running',
  inFlight: 3,
  totals: { ...emptyTotals(), enumerated: 120, dispatched: 40, completed: 30, failed: 4, notAttempted: 2 },
  exhausted: false,
  ...more,
});
const wave = (more: Partial<PlanWaveArgs> = {}): PlanWaveArgs =>
  ({ name: 'alpha', run: { runId: 'r1' }, windows: [], entrySignOff: false, exitSignOff: false, ...more }) as PlanWaveArgs;

describe("a wave's accounts, from its run's progress", () => {
  it('started, completed, failed, not attempted and in flight as the run counts them', () => {
    expect(waveAccounts(progress(), 200)).toEqual({ planned: 200, started: 40, completed: 30, failed: 4, not_attempted: 2, in_flight: 3 });
  });
  it('planned unknown: the selection’s count once it is used up, unknown before', () => {
    expect(waveAccounts(progress(), null).planned).toBeNull();
    expect(waveAccounts(progress({ exhausted: true }), null).planned).toBe(120);
    expect(waveAccounts(progress({ exhausted: true }), 200).planned).toBe(200);
  });
  it('stop the line: tripped with its reason, else not', () => {
    expect(waveStopLine(progress())).toEqual({ tripped: false, reason: null });
    const settings = { enabled: true, ...STOP_LINE_DEFAULTS };
    expect(waveStopLine(progress({ stopLine: { settings, state: initialStopLine() } }))).toEqual({ tripped: false, reason: null });
    const tripped = {
      rule: 'max_same_code' as const,
      code: 'platform_error',
      count: 10,
      samples: [],
      message: '10 accounts in a row failed with platform_error',
    };
    expect(waveStopLine(progress({ stopLine: { settings, state: { ...initialStopLine(), tripped } } }))).toEqual({ tripped: true, reason: tripped.message });
  });
});

describe('a wave before its plan starts', () => {
  it('a gate: false needs no sign-off; true or a name waits for one (by that name)', () => {
    expect(gateOf(false)).toEqual({ state: 'not_required', required_by: null, approved_by: null, approved_at: null, note: null });
    expect(gateOf(true)).toEqual({ state: 'pending', required_by: null, approved_by: null, approved_at: null, note: null });
    expect(gateOf('Sam')).toEqual({ state: 'pending', required_by: 'Sam', approved_by: null, approved_at: null, note: null });
  });
  it('pending, its run, cap, gates and minimums as the plan file says', () => {
    expect(initialWaveStatus(wave({ planned: 50, dailyCap: 20, exitSignOff: 'Ops', minReconciledRate: 0.98, after: ['beta'] }))).toEqual({
      name: 'alpha',
      state: 'pending',
      runs: ['r1'],
      after: ['beta'],
      accounts: zeroAccounts(50),
      windows: [],
      next_window: null,
      daily_cap: 20,
      started_today: 0,
      stop_line: { tripped: false, reason: null },
      gates: { entry: gateOf(false), exit: { ...gateOf('Ops'), reconciled_rate: null, min_reconciled_rate: 0.98 } },
    });
    const bare = initialWaveStatus(wave());
    expect([bare.daily_cap, bare.gates.exit.min_reconciled_rate, bare.accounts.planned, 'after' in bare, 'dry_run' in bare]).toEqual([
      null,
      null,
      null,
      false,
      false,
    ]);
  });
  it('dry_run_first: its trial load pending and the entry gate’s pass rates', () => {
    const s = initialWaveStatus(wave({ planned: 8, entrySignOff: true, trial: { run: { runId: 'r1-trial' } as PlanWaveArgs['run'], minPassRate: 0.9 } }));
    expect(s.dry_run).toEqual({ state: 'pending', runs: [], accounts: zeroAccounts(8), pass_rate: null, min_pass_rate: 0.9 });
    expect(s.gates.entry).toEqual({ ...gateOf(true), min_dry_run_pass_rate: 0.9, dry_run_pass_rate: null });
    const noMin = initialWaveStatus(wave({ trial: { run: { runId: 'r1-trial' } as PlanWaveArgs['run'] } }));
    expect([noMin.dry_run?.min_pass_rate, noMin.gates.entry.min_dry_run_pass_rate]).toEqual([null, null]);
  });
  it('no account yet: zero, planned when counted', () => {
    expect(zeroAccounts(undefined)).toEqual({ planned: null, started: 0, completed: 0, failed: 0, not_attempted: 0, in_flight: 0 });
    expect(zeroAccounts(0).planned).toBe(0);
  });
});
