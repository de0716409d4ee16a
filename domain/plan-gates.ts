import type { GateStatus, WaveState } from './plan-messages';

/**
 * A plan wave's gates, decided from recorded numbers (workflows/cutover-plan.ts asks). Pure: the
 * workflow keeps the state, these say what it means.
 */

/** The reconciled share of a wave's run: accounts completed over accounts with an outcome (null before any). */
export function reconciledRate(a: { completed: number; failed: number; not_attempted: number }): number | null {
  const settled = a.completed + a.failed + a.not_attempted;
  return settled > 0 ? a.completed / settled : null;
}

/** Whether the exit gate's numbers are met (no minimum: always; a minimum and no outcome yet: not). */
export function exitNumbersMet(rate: number | null, min: number | null): boolean {
  if (min === null) return true;
  return rate !== null && rate >= min;
}

export function formatRate(r: number | null): string {
  return r === null ? 'n/a' : `${(r * 100).toFixed(1)}%`;
}

/** Why a sign-off is refused now, or undefined when it may be recorded. */
export function approvalRefusal(args: {
  wave: string;
  gate: 'entry' | 'exit';
  by: string;
  waveState: WaveState;
  status: GateStatus & { reconciled_rate?: number | null; min_reconciled_rate?: number | null };
}): string | undefined {
  const { wave, gate, by, waveState, status } = args;
  if (by.trim() === '') return '--by: who signs off is required';
  if (status.state === 'approved') return `wave ${wave}'s ${gate} gate is already signed off by ${status.approved_by}`;
  if (status.state === 'not_required') return `wave ${wave}'s ${gate} gate needs no sign-off`;
  if (gate === 'exit' && waveState === 'exit_not_met')
    return `wave ${wave}'s exit gate is not met: reconciled ${formatRate(status.reconciled_rate ?? null)} < min_reconciled_rate ${formatRate(status.min_reconciled_rate ?? null)}`;
  const waiting = gate === 'entry' ? 'waiting_entry_sign_off' : 'waiting_exit_sign_off';
  if (waveState !== waiting) return `wave ${wave}'s ${gate} gate does not wait for a sign-off now (the wave is ${waveState})`;
  return undefined;
}
