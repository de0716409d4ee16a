import { describe, expect, it } from 'vitest';
import { approvalRefusal, exitNumbersMet, formatRate, reconciledRate } from '../../../domain/plan-gates';
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
