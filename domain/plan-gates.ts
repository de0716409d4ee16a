import { censusGateMet } from './census';
import type { CensusGateStatus, DryRunStatus, GateStatus, SupplyGateStatus, WaveState } from './plan-messages';

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
 * Where a wave goes once its run has ended: its reconciled share below `min_reconciled_rate` (or no
 * outcome to measure against one): `exit_not_met`, for good (only `plan skip` moves it; a sign-off is
 * refused); met, a sign-off if the gate names one, else completed.
 */
export function exitGate(
  accounts: { completed: number; failed: number; not_attempted: number },
  gate: { state: GateStatus['state']; min_reconciled_rate: number | null; census?: CensusGateStatus | null; supply?: SupplyGateStatus | null },
): { reconciledRate: number | null; next: 'exit_not_met' | 'waiting_exit_sign_off' | 'completed' } {
  const rate = reconciledRate(accounts);
  if (!exitNumbersMet(rate, gate.min_reconciled_rate)) return { reconciledRate: rate, next: 'exit_not_met' };
  // The supplier census, when the gate names a maximum: taken before the gate is decided.
  if (gate.census && !censusGateStatusMet(gate.census)) return { reconciledRate: rate, next: 'exit_not_met' };
  // The switch's numbers, when the gate names them: read until supplyGate decides (the workflow waits while pending).
  if (gate.supply && supplyGate(gate.supply) !== 'met') return { reconciledRate: rate, next: 'exit_not_met' };
  return { reconciledRate: rate, next: gate.state === 'not_required' || gate.state === 'approved' ? 'completed' : 'waiting_exit_sign_off' };
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
    supply?: SupplyGateStatus | null;
  };
}): string | undefined {
  const { wave, gate, by, waveState, status } = args;
  if (by.trim() === '') return '--by: who signs off is required';
  if (status.state === 'approved') return `wave ${wave}'s ${gate} gate is already signed off by ${status.approved_by}`;
  if (status.state === 'not_required') return `wave ${wave}'s ${gate} gate needs no sign-off`;
  if (gate === 'entry' && waveState === 'dry_run_not_met')
    return `wave ${wave}'s entry gate is not met: dry-run pass rate ${formatRate(status.dry_run_pass_rate ?? null)} < min_dry_run_pass_rate ${formatRate(status.min_dry_run_pass_rate ?? null)}`;
  if (gate === 'exit' && waveState === 'exit_not_met') return exitNotMet(wave, status);
  const waiting = gate === 'entry' ? 'waiting_entry_sign_off' : 'waiting_exit_sign_off';
  if (waveState !== waiting) return `wave ${wave}'s ${gate} gate does not wait for a sign-off now (the wave is ${waveState})`;
  return undefined;
}

/** Why an exit gate is not met: the supplier census over a maximum, else the switch's numbers, else the reconciled share. */
function exitNotMet(
  wave: string,
  status: { reconciled_rate?: number | null; min_reconciled_rate?: number | null; census?: CensusGateStatus | null; supply?: SupplyGateStatus | null },
): string {
  const { census, supply } = status;
  if (census && !censusGateStatusMet(census))
    return `wave ${wave}'s exit gate is not met: supplier census ${census.taken_at}: platform only ${census.platform_only} (max_platform_only ${census.max_platform_only ?? 'none'}), ledger only ${census.ledger_only} (max_ledger_only ${census.max_ledger_only ?? 'none'})`;
  if (supply && supplyGate(supply) === 'not_met') return supplyRefusal(wave, supply);
  return `wave ${wave}'s exit gate is not met: reconciled ${formatRate(status.reconciled_rate ?? null)} < min_reconciled_rate ${formatRate(status.min_reconciled_rate ?? null)}`;
}

/** Whether the census an exit gate took is within its maximums. */
export function censusGateStatusMet(c: CensusGateStatus): boolean {
  return censusGateMet({ platformOnly: c.platform_only, ledgerOnly: c.ledger_only }, { platformOnly: c.max_platform_only, ledgerOnly: c.max_ledger_only });
}

/** The share of the wave's meter points on supply (null before any point is read). */
export function onSupplyRate(s: Pick<SupplyGateStatus, 'points' | 'on_supply'>): number | null {
  return s.points > 0 ? s.on_supply / s.points : null;
}

/**
 * The switch's part of a wave's exit gate (docs/plan.md), from the wave run's meter points:
 * - `min_on_supply_rate`: met once at least that share of the points is on supply (exactly the
 *   minimum is enough); not met when it can no longer be reached (points on supply and still followed
 *   together below it) or no point was read; pending while the points still followed could reach it.
 * - `max_days_to_supply`: not met as soon as one point has been followed for more than that many days
 *   without a final state; met when none is followed any more; pending meanwhile.
 * Not met when either is; pending when either is; met when both are (a rule not set is met).
 */
export function supplyGate(s: SupplyGateStatus): 'met' | 'not_met' | 'pending' {
  const min = s.min_on_supply_rate;
  const max = s.max_days_to_supply;
  if (max !== null && s.over_max_days > 0) return 'not_met';
  let pending = max !== null && s.waiting > 0;
  if (min !== null) {
    if (s.points === 0 || (s.on_supply + s.waiting) / s.points < min) return 'not_met';
    pending ||= s.on_supply / s.points < min;
  }
  return pending ? 'pending' : 'met';
}

/** Why the exit sign-off is refused when the switch's numbers are not met: the days first (a point stuck), else the share. */
function supplyRefusal(wave: string, s: SupplyGateStatus): string {
  if (s.over_max_days > 0)
    return `wave ${wave}'s exit gate is not met: ${s.over_max_days} of ${s.points} meter points followed more than max_days_to_supply ${s.max_days_to_supply} days without a final state`;
  return `wave ${wave}'s exit gate is not met: on supply ${formatRate(onSupplyRate(s))} < min_on_supply_rate ${formatRate(s.min_on_supply_rate)}`;
}

/**
 * Whether the wave runs a trial load now (dry_run_first), before its entry gate: never once its real
 * run has started (a trial's workflow may be gone by retention); until one has passed, or when
 * `plan trial` asked for another.
 */
export function trialLoadDue(args: {
  dryRunFirst: boolean;
  runStarted: boolean;
  trialState: DryRunStatus['state'] | undefined;
  again: boolean | undefined;
}): boolean {
  if (!args.dryRunFirst || args.runStarted) return false;
  return args.trialState !== 'passed' || args.again === true;
}

/** Whether the entry gate holds the wave for a named sign-off: it names one, not yet given. */
export function entryGateWaits(state: GateStatus['state']): boolean {
  return state !== 'not_required' && state !== 'approved';
}

/** Whether `plan trial`, asked for at the entry gate, runs another trial load first: only while the entry is not signed off. */
export function trialAgainAtEntry(again: boolean | undefined, entryState: GateStatus['state']): boolean {
  return again === true && entryState !== 'approved';
}

/** The entry gate as another trial load starts: waiting or not met, it needs its sign-off again (or none, when it names none). */
export function entryGateForTrial(state: GateStatus['state'], entrySignOff: boolean | string): GateStatus['state'] {
  if (state !== 'waiting' && state !== 'not_met') return state;
  return entrySignOff === false ? 'not_required' : 'pending';
}
