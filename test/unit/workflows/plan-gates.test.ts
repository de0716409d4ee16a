import { describe, expect, it } from 'vitest';
import { approvalRefusal, censusGateStatusMet, dryRunGate, exitNumbersMet, formatRate, reconciledRate, trialRefusal } from '../../../domain/plan-gates';
import type { GateStatus } from '../../../domain/plan-messages';

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
    expect([censusGateStatusMet(census), censusGateStatusMet(within), censusGateStatusMet({ ...within, ledger_only: 2, max_ledger_only: 1 })]).toEqual([
      false,
      true,
      false,
    ]);
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
