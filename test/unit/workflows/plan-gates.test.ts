import { describe, expect, it } from 'vitest';
import {
  approvalRefusal,
  censusGateStatusMet,
  dryRunGate,
  entryGateForTrial,
  entryGateWaits,
  exitGate,
  exitNumbersMet,
  formatRate,
  onSupplyRate,
  reconciledRate,
  supplyGate,
  trialAgainAtEntry,
  trialLoadDue,
  trialRefusal,
} from '../../../domain/plan-gates';
import type { GateStatus, SupplyGateStatus } from '../../../domain/plan-messages';

/** Ten meter points of a wave's run, as the exit gate reads them, with both switch rules unset. */
const points = (more: Partial<SupplyGateStatus> = {}): SupplyGateStatus => ({
  read_at: '2030-01-01T00:00:00.000Z',
  points: 10,
  on_supply: 0,
  waiting: 0,
  over_max_days: 0,
  on_supply_rate: null,
  min_on_supply_rate: null,
  max_days_to_supply: null,
  ...more,
});

const gate = (more: Partial<GateStatus> = {}): GateStatus => ({
  state: 'waiting',
  required_by: null,
  approved_by: null,
  approved_at: null,
  note: null,
  ...more,
});

describe("a plan wave's gates", () => {
  it('the reconciled share is completed over accounts with an outcome; none yet: null', () => {
    expect(reconciledRate({ completed: 3, failed: 1, not_attempted: 0 })).toBe(0.75);
    expect(reconciledRate({ completed: 3, failed: 0, not_attempted: 1 })).toBe(0.75);
    expect(reconciledRate({ completed: 0, failed: 0, not_attempted: 0 })).toBeNull();
    expect(reconciledRate({ completed: 0, failed: 0, not_attempted: 1 })).toBe(0);
  });
  it('the exit numbers: met at exactly the minimum, not below; no minimum always met; no outcome never meets one', () => {
    expect(exitNumbersMet(0.99, 0.99)).toBe(true);
    expect(exitNumbersMet(0.989, 0.99)).toBe(false);
    expect(exitNumbersMet(null, null)).toBe(true);
    expect(exitNumbersMet(0, null)).toBe(true);
    expect(exitNumbersMet(null, 0)).toBe(false);
  });
  it('the exit gate: below the minimum, exit_not_met whatever the sign-off; met, the sign-off it names, else completed', () => {
    const half = { completed: 2, failed: 1, not_attempted: 1 };
    expect(exitGate(half, { state: 'pending', min_reconciled_rate: 0.9 })).toEqual({ reconciledRate: 0.5, next: 'exit_not_met' });
    expect(exitGate(half, { state: 'not_required', min_reconciled_rate: 0.51 })).toEqual({ reconciledRate: 0.5, next: 'exit_not_met' });
    expect(exitGate(half, { state: 'approved', min_reconciled_rate: 0.9 })).toEqual({ reconciledRate: 0.5, next: 'exit_not_met' });
    // No outcome at all against a minimum: not met.
    expect(exitGate({ completed: 0, failed: 0, not_attempted: 0 }, { state: 'not_required', min_reconciled_rate: 0 })).toEqual({
      reconciledRate: null,
      next: 'exit_not_met',
    });
    expect(exitGate(half, { state: 'pending', min_reconciled_rate: 0.5 })).toEqual({ reconciledRate: 0.5, next: 'waiting_exit_sign_off' });
    expect(exitGate(half, { state: 'waiting', min_reconciled_rate: null })).toEqual({ reconciledRate: 0.5, next: 'waiting_exit_sign_off' });
    expect(exitGate(half, { state: 'not_required', min_reconciled_rate: 0.5 })).toEqual({ reconciledRate: 0.5, next: 'completed' });
    expect(exitGate(half, { state: 'approved', min_reconciled_rate: null })).toEqual({ reconciledRate: 0.5, next: 'completed' });
  });
  it('the exit gate is not met when the supplier census is over its maximum, whatever the numbers and sign-off', () => {
    const half = { completed: 5, failed: 5, not_attempted: 0 };
    const census = { taken_at: '2030-01-01T00:00:00.000Z', platform_only: 1, ledger_only: 0, max_platform_only: 0, max_ledger_only: null };
    expect(exitGate(half, { state: 'approved', min_reconciled_rate: null, census }).next).toBe('exit_not_met');
    expect(exitGate(half, { state: 'not_required', min_reconciled_rate: 0.5, census: { ...census, platform_only: 0 } }).next).toBe('completed');
    expect(exitGate(half, { state: 'waiting', min_reconciled_rate: null, census: { ...census, platform_only: 0 } }).next).toBe('waiting_exit_sign_off');
  });
  it('min_on_supply_rate: met at exactly the share on supply; not met once the points still followed cannot reach it, or none was read; pending while they can', () => {
    const min = { min_on_supply_rate: 0.8 };
    expect(supplyGate(points({ ...min, on_supply: 8, waiting: 2 }))).toBe('met');
    expect(supplyGate(points({ ...min, on_supply: 7, waiting: 0 }))).toBe('not_met');
    // 7 on supply and 1 still followed: 80% is still within reach; 7 and none, or 6 and 1, is not.
    expect(supplyGate(points({ ...min, on_supply: 7, waiting: 1 }))).toBe('pending');
    expect(supplyGate(points({ ...min, on_supply: 6, waiting: 1 }))).toBe('not_met');
    expect(supplyGate(points({ ...min, points: 0 }))).toBe('not_met');
    expect(supplyGate(points({ min_on_supply_rate: 0, points: 1 }))).toBe('met');
    expect(onSupplyRate({ points: 10, on_supply: 8 })).toBe(0.8);
    expect(onSupplyRate({ points: 0, on_supply: 0 })).toBeNull();
  });
  it('max_days_to_supply: not met once a point waited longer; pending while points wait within it; met when none waits', () => {
    const max = { max_days_to_supply: 10 };
    expect(supplyGate(points({ ...max, on_supply: 3, waiting: 2, over_max_days: 1 }))).toBe('not_met');
    expect(supplyGate(points({ ...max, on_supply: 3, waiting: 2 }))).toBe('pending');
    expect(supplyGate(points({ ...max, on_supply: 3 }))).toBe('met');
    // Both: either not met is not met, either pending is pending; no rule set is met.
    expect(supplyGate(points({ ...max, min_on_supply_rate: 0.5, on_supply: 9, waiting: 1 }))).toBe('pending');
    expect(supplyGate(points({ ...max, min_on_supply_rate: 0.95, on_supply: 9, waiting: 0 }))).toBe('not_met');
    expect(supplyGate(points({ ...max, min_on_supply_rate: 0.5, on_supply: 9, waiting: 1, over_max_days: 1 }))).toBe('not_met');
    expect(supplyGate(points({ ...max, min_on_supply_rate: 0.9, on_supply: 9 }))).toBe('met');
    expect(supplyGate(points({ waiting: 5, over_max_days: 5 }))).toBe('met');
    // No point read: nothing waits past the maximum, but there is no share to meet a minimum with.
    expect(supplyGate(points({ ...max, points: 0 }))).toBe('met');
    expect(supplyGate(points({ ...max, min_on_supply_rate: 0, points: 0 }))).toBe('not_met');
  });
  it('the exit gate is not met while the switch is not, whatever the sign-off; met, it goes on', () => {
    const all = { completed: 10, failed: 0, not_attempted: 0 };
    const supply = points({ min_on_supply_rate: 0.95, on_supply: 8 });
    expect(exitGate(all, { state: 'approved', min_reconciled_rate: null, supply }).next).toBe('exit_not_met');
    expect(exitGate(all, { state: 'approved', min_reconciled_rate: null, supply: { ...supply, waiting: 2 } }).next).toBe('exit_not_met');
    expect(exitGate(all, { state: 'not_required', min_reconciled_rate: null, supply: { ...supply, on_supply: 10 } }).next).toBe('completed');
    expect(exitGate(all, { state: 'waiting', min_reconciled_rate: null, supply: null }).next).toBe('waiting_exit_sign_off');
  });
  it('rates print as percentages with one decimal', () => {
    expect(formatRate(0.98765)).toBe('98.8%');
    expect(formatRate(null)).toBe('n/a');
  });
});

describe('plan approve: refused with the reason, or recorded', () => {
  const base = { wave: 'alpha', by: 'Sam Lead' };
  it('a waiting gate may be signed', () => {
    expect(approvalRefusal({ ...base, gate: 'entry', waveState: 'waiting_entry_sign_off', status: gate() })).toBeUndefined();
    expect(approvalRefusal({ ...base, gate: 'exit', waveState: 'waiting_exit_sign_off', status: gate() })).toBeUndefined();
  });
  it('someone must sign', () => {
    expect(approvalRefusal({ ...base, by: '  ', gate: 'entry', waveState: 'waiting_entry_sign_off', status: gate() })).toBe('--by: who signs off is required');
  });
  it('a gate signed already, or needing no sign-off, is refused', () => {
    expect(approvalRefusal({ ...base, gate: 'entry', waveState: 'waiting_entry_sign_off', status: gate({ state: 'approved', approved_by: 'Ann' }) })).toBe(
      "wave alpha's entry gate is already signed off by Ann",
    );
    expect(approvalRefusal({ ...base, gate: 'exit', waveState: 'waiting_exit_sign_off', status: gate({ state: 'not_required' }) })).toBe(
      "wave alpha's exit gate needs no sign-off",
    );
  });
  it('an exit whose numbers are not met is refused with them', () => {
    expect(
      approvalRefusal({
        ...base,
        gate: 'exit',
        waveState: 'exit_not_met',
        status: { ...gate({ state: 'not_met' }), reconciled_rate: 0.6667, min_reconciled_rate: 0.99 },
      }),
    ).toBe("wave alpha's exit gate is not met: reconciled 66.7% < min_reconciled_rate 99.0%");
    expect(approvalRefusal({ ...base, gate: 'exit', waveState: 'exit_not_met', status: gate({ state: 'not_met' }) })).toBe(
      "wave alpha's exit gate is not met: reconciled n/a < min_reconciled_rate n/a",
    );
  });
  it('an exit whose supplier census is over its maximum is refused with the census; a census within it leaves the reconciled reason', () => {
    const census = { taken_at: '2030-01-01T00:00:00.000Z', platform_only: 3, ledger_only: 0, max_platform_only: 0, max_ledger_only: null };
    expect(
      approvalRefusal({
        ...base,
        gate: 'exit',
        waveState: 'exit_not_met',
        status: { ...gate({ state: 'not_met' }), reconciled_rate: 1, min_reconciled_rate: null, census },
      }),
    ).toBe(
      "wave alpha's exit gate is not met: supplier census 2030-01-01T00:00:00.000Z: platform only 3 (max_platform_only 0), ledger only 0 (max_ledger_only none)",
    );
    const within = { ...census, platform_only: 0 };
    expect(
      approvalRefusal({
        ...base,
        gate: 'exit',
        waveState: 'exit_not_met',
        status: { ...gate({ state: 'not_met' }), reconciled_rate: 0.5, min_reconciled_rate: 0.99, census: within },
      }),
    ).toBe("wave alpha's exit gate is not met: reconciled 50.0% < min_reconciled_rate 99.0%");
    // A maximum not set reads "none".
    expect(
      approvalRefusal({
        ...base,
        gate: 'exit',
        waveState: 'exit_not_met',
        status: {
          ...gate({ state: 'not_met' }),
          reconciled_rate: 1,
          min_reconciled_rate: null,
          census: { ...within, ledger_only: 2, max_platform_only: null, max_ledger_only: 1 },
        },
      }),
    ).toBe(
      "wave alpha's exit gate is not met: supplier census 2030-01-01T00:00:00.000Z: platform only 0 (max_platform_only none), ledger only 2 (max_ledger_only 1)",
    );
    expect([censusGateStatusMet(census), censusGateStatusMet(within), censusGateStatusMet({ ...within, ledger_only: 2, max_ledger_only: 1 })]).toEqual([
      false,
      true,
      false,
    ]);
  });
  it('an exit whose switch is not met is refused with its numbers: points over max_days_to_supply first, else the share on supply', () => {
    const exit = (supply: SupplyGateStatus, more: object = {}) =>
      approvalRefusal({
        ...base,
        gate: 'exit',
        waveState: 'exit_not_met',
        status: { ...gate({ state: 'not_met' }), reconciled_rate: 1, min_reconciled_rate: null, supply, ...more },
      });
    expect(exit(points({ min_on_supply_rate: 0.95, on_supply: 8 }))).toBe("wave alpha's exit gate is not met: on supply 80.0% < min_on_supply_rate 95.0%");
    expect(exit(points({ min_on_supply_rate: 0.5, max_days_to_supply: 10, on_supply: 8, waiting: 2, over_max_days: 2 }))).toBe(
      "wave alpha's exit gate is not met: 2 of 10 meter points followed more than max_days_to_supply 10 days without a final state",
    );
    expect(exit(points({ min_on_supply_rate: 0.5, max_days_to_supply: 10, on_supply: 2, waiting: 0 }))).toBe(
      "wave alpha's exit gate is not met: on supply 20.0% < min_on_supply_rate 50.0%",
    );
    // A switch that is met leaves the reason that is not.
    expect(exit(points({ min_on_supply_rate: 0.5, on_supply: 8 }), { reconciled_rate: 0.5, min_reconciled_rate: 0.9 })).toBe(
      "wave alpha's exit gate is not met: reconciled 50.0% < min_reconciled_rate 90.0%",
    );
    expect(approvalRefusal({ ...base, gate: 'exit', waveState: 'waiting_supply', status: { ...gate({ state: 'pending' }), supply: points() } })).toBe(
      "wave alpha's exit gate does not wait for a sign-off now (the wave is waiting_supply)",
    );
  });
  it('a gate the wave has not reached, or has passed, is refused with the wave state', () => {
    expect(approvalRefusal({ ...base, gate: 'exit', waveState: 'running', status: gate({ state: 'pending' }) })).toBe(
      "wave alpha's exit gate does not wait for a sign-off now (the wave is running)",
    );
    expect(approvalRefusal({ ...base, gate: 'entry', waveState: 'waiting_exit_sign_off', status: gate({ state: 'pending' }) })).toBe(
      "wave alpha's entry gate does not wait for a sign-off now (the wave is waiting_exit_sign_off)",
    );
    expect(approvalRefusal({ ...base, gate: 'entry', waveState: 'exit_not_met', status: gate({ state: 'pending' }) })).toBe(
      "wave alpha's entry gate does not wait for a sign-off now (the wave is exit_not_met)",
    );
  });
});

describe('dry_run_first: the trial load and the entry gate', () => {
  const a = (completed: number, failed: number, not_attempted = 0) => ({ completed, failed, not_attempted });
  it('the pass rate is completed over accounts with an outcome; met at exactly the minimum, not below', () => {
    expect(dryRunGate(a(19, 1), 0.95, true)).toEqual({ passRate: 0.95, met: true });
    expect(dryRunGate(a(18, 1, 1), 0.95, true)).toEqual({ passRate: 0.9, met: false });
    expect(dryRunGate(a(18, 2), 0.9, true)).toEqual({ passRate: 0.9, met: true });
  });
  it('no minimum: met once the trial load ended, whatever its rate; no outcome never meets a minimum', () => {
    expect(dryRunGate(a(0, 5), null, true)).toEqual({ passRate: 0, met: true });
    expect(dryRunGate(a(0, 0), 0, true)).toEqual({ passRate: null, met: false });
  });
  it('a trial load whose run did not complete (terminated, failed) never meets the gate', () => {
    expect(dryRunGate(a(10, 0), 0.5, false)).toEqual({ passRate: 1, met: false });
    expect(dryRunGate(a(10, 0), null, false)).toEqual({ passRate: 1, met: false });
  });
  it('an entry sign-off is refused while the trial load is below its pass rate, with the numbers', () => {
    expect(
      approvalRefusal({
        wave: 'alpha',
        by: 'Sam Lead',
        gate: 'entry',
        waveState: 'dry_run_not_met',
        status: { ...gate({ state: 'not_met' }), dry_run_pass_rate: 0.8, min_dry_run_pass_rate: 0.95 },
      }),
    ).toBe("wave alpha's entry gate is not met: dry-run pass rate 80.0% < min_dry_run_pass_rate 95.0%");
    expect(approvalRefusal({ wave: 'alpha', by: 'Sam', gate: 'entry', waveState: 'dry_run_not_met', status: gate({ state: 'not_met' }) })).toBe(
      "wave alpha's entry gate is not met: dry-run pass rate n/a < min_dry_run_pass_rate n/a",
    );
    // During the trial load the gate does not wait yet; its exit is not concerned by the trial's numbers.
    expect(approvalRefusal({ wave: 'alpha', by: 'Sam', gate: 'entry', waveState: 'dry_run', status: gate({ state: 'pending' }) })).toBe(
      "wave alpha's entry gate does not wait for a sign-off now (the wave is dry_run)",
    );
    expect(approvalRefusal({ wave: 'alpha', by: 'Sam', gate: 'exit', waveState: 'dry_run_not_met', status: gate({ state: 'pending' }) })).toBe(
      "wave alpha's exit gate does not wait for a sign-off now (the wave is dry_run_not_met)",
    );
  });
  it('another trial load: only for a wave with dry_run_first, at its entry gate', () => {
    expect(trialRefusal({ wave: 'alpha', waveState: 'dry_run_not_met', dryRunFirst: true })).toBeUndefined();
    expect(trialRefusal({ wave: 'alpha', waveState: 'waiting_entry_sign_off', dryRunFirst: true })).toBeUndefined();
    expect(trialRefusal({ wave: 'alpha', waveState: 'dry_run_not_met', dryRunFirst: false })).toBe('wave alpha has no trial load (dry_run_first is not set)');
    for (const s of ['dry_run', 'running', 'pending', 'waiting_window'] as const)
      expect(trialRefusal({ wave: 'alpha', waveState: s, dryRunFirst: true })).toBe(
        `wave alpha's trial load runs again only at its entry gate, before the real run (the wave is ${s})`,
      );
  });
});

describe('dry_run_first: when the wave runs a trial load, and what its entry gate waits for', () => {
  const due = (more: Partial<Parameters<typeof trialLoadDue>[0]> = {}) =>
    trialLoadDue({ dryRunFirst: true, runStarted: false, trialState: 'pending', again: false, ...more });
  it('a wave with dry_run_first runs trial loads until one passes, before its real run', () => {
    expect(due()).toBe(true);
    expect(due({ trialState: 'running', again: undefined })).toBe(true);
    expect(due({ trialState: 'not_met' })).toBe(true);
    expect(due({ trialState: 'passed' })).toBe(false);
  });
  it('passed, another only when plan trial asks for one; never once the real run started, nor without dry_run_first', () => {
    expect(due({ trialState: 'passed', again: true })).toBe(true);
    expect(due({ runStarted: true, trialState: 'not_met', again: true })).toBe(false);
    expect(due({ dryRunFirst: false, trialState: undefined, again: true })).toBe(false);
  });
  it('the entry gate holds the wave while it names a sign-off not yet given', () => {
    expect(entryGateWaits('pending')).toBe(true);
    expect(entryGateWaits('waiting')).toBe(true);
    expect(entryGateWaits('not_met')).toBe(true);
    expect(entryGateWaits('approved')).toBe(false);
    expect(entryGateWaits('not_required')).toBe(false);
  });
  it('plan trial at the entry gate runs another trial load first, unless the entry is signed off already', () => {
    expect(trialAgainAtEntry(true, 'waiting')).toBe(true);
    expect(trialAgainAtEntry(true, 'approved')).toBe(false);
    expect(trialAgainAtEntry(false, 'waiting')).toBe(false);
    expect(trialAgainAtEntry(undefined, 'waiting')).toBe(false);
  });
  it('another trial load sets a waiting or not-met entry gate back to needing its sign-off (none when it names none)', () => {
    expect(entryGateForTrial('waiting', 'Sam')).toBe('pending');
    expect(entryGateForTrial('not_met', true)).toBe('pending');
    expect(entryGateForTrial('not_met', false)).toBe('not_required');
    expect(entryGateForTrial('waiting', false)).toBe('not_required');
    for (const s of ['pending', 'approved', 'not_required'] as const) expect(entryGateForTrial(s, 'Sam')).toBe(s);
  });
});
