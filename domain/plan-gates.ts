import { censusGateMet } from './census';
import type { CensusGateStatus, GateStatus, WaveState } from './plan-messages';

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

/**
 * The entry gate's trial numbers (dry_run_first): the pass rate of the wave's last trial load,
 * completed over accounts with an outcome, against `min_dry_run_pass_rate`. Met at exactly the
 * minimum; no minimum: met once a trial load has ended; a trial with no outcome never meets one,
 * nor one whose run did not complete (terminated, failed: its numbers are not the whole wave's).
 */
export function dryRunGate(
  a: { completed: number; failed: number; not_attempted: number },
  min: number | null,
  runCompleted: boolean,
): { passRate: number | null; met: boolean } {
  const passRate = reconciledRate(a);
  return { passRate, met: runCompleted && exitNumbersMet(passRate, min) };
}

/** Why another trial load of a wave is refused now (`plan trial`), or undefined when it may start. */
export function trialRefusal(args: { wave: string; waveState: WaveState; dryRunFirst: boolean }): string | undefined {
  const { wave, waveState, dryRunFirst } = args;
  if (!dryRunFirst) return `wave ${wave} has no trial load (dry_run_first is not set)`;
  if (waveState !== 'dry_run_not_met' && waveState !== 'waiting_entry_sign_off')
    return `wave ${wave}'s trial load runs again only at its entry gate, before the real run (the wave is ${waveState})`;
  return undefined;
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
  status: GateStatus & {
    reconciled_rate?: number | null;
    min_reconciled_rate?: number | null;
    dry_run_pass_rate?: number | null;
    min_dry_run_pass_rate?: number | null;
    census?: CensusGateStatus | null;
  };
}): string | undefined {
  const { wave, gate, by, waveState, status } = args;
  if (by.trim() === '') return '--by: who signs off is required';
  if (status.state === 'approved') return `wave ${wave}'s ${gate} gate is already signed off by ${status.approved_by}`;
  if (status.state === 'not_required') return `wave ${wave}'s ${gate} gate needs no sign-off`;
  if (gate === 'entry' && waveState === 'dry_run_not_met')
    return `wave ${wave}'s entry gate is not met: dry-run pass rate ${formatRate(status.dry_run_pass_rate ?? null)} < min_dry_run_pass_rate ${formatRate(status.min_dry_run_pass_rate ?? null)}`;
  if (gate === 'exit' && waveState === 'exit_not_met' && status.census && !censusGateStatusMet(status.census))
    return `wave ${wave}'s exit gate is not met: supplier census ${status.census.taken_at}: platform only ${status.census.platform_only} (max_platform_only ${status.census.max_platform_only ?? 'none'}), ledger only ${status.census.ledger_only} (max_ledger_only ${status.census.max_ledger_only ?? 'none'})`;
  if (gate === 'exit' && waveState === 'exit_not_met')
    return `wave ${wave}'s exit gate is not met: reconciled ${formatRate(status.reconciled_rate ?? null)} < min_reconciled_rate ${formatRate(status.min_reconciled_rate ?? null)}`;
  const waiting = gate === 'entry' ? 'waiting_entry_sign_off' : 'waiting_exit_sign_off';
  if (waveState !== waiting) return `wave ${wave}'s ${gate} gate does not wait for a sign-off now (the wave is ${waveState})`;
  return undefined;
}

/** Whether the census an exit gate took is within its maximums. */
export function censusGateStatusMet(c: CensusGateStatus): boolean {
  return censusGateMet({ platformOnly: c.platform_only, ledgerOnly: c.ledger_only }, { platformOnly: c.max_platform_only, ledgerOnly: c.max_ledger_only });
}
