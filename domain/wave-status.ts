import type { RunProgress } from './messages';
import type { GateStatus, PlanWaveArgs, WaveAccounts, WaveStatus } from './plan-messages';

/**
 * A plan wave as `plan status` shows it (workflows/cutover-plan.ts): what it starts as, from the plan
 * file, and its accounts and stop the line as read from its run's progress. Pure.
 */

/** The wave's accounts from its run's progress: the planned count, once unknown, is the selection's once it is used up. */
export function waveAccounts(p: RunProgress, planned: number | null): WaveAccounts {
  return {
    planned: planned === null && p.exhausted ? p.totals.enumerated : planned,
    started: p.totals.dispatched,
    completed: p.totals.completed,
    failed: p.totals.failed,
    not_attempted: p.totals.notAttempted,
    in_flight: p.inFlight,
  };
}

/** The run's stop the line as the wave shows it: tripped, and why. */
export function waveStopLine(p: RunProgress): WaveStatus['stop_line'] {
  const t = p.stopLine?.state.tripped;
  return { tripped: t !== undefined, reason: t?.message ?? null };
}

/** No account yet: the planned count when the CLI could count the cohort, else unknown. */
export function zeroAccounts(planned: number | undefined): WaveAccounts {
  return { planned: planned ?? null, started: 0, completed: 0, failed: 0, not_attempted: 0, in_flight: 0 };
}

/** A gate as the plan file names it: `false` needs no sign-off; `true` or a name, a sign-off (by that name). */
export function gateOf(signOff: boolean | string): GateStatus {
  return {
    state: signOff === false ? 'not_required' : 'pending',
    required_by: typeof signOff === 'string' ? signOff : null,
    approved_by: null,
    approved_at: null,
    note: null,
  };
}

/** The wave before its plan starts: pending, its gates and their minimums, its trial load when it has one. */
export function initialWaveStatus(w: PlanWaveArgs): WaveStatus {
  const trial = w.trial ? { min_dry_run_pass_rate: w.trial.minPassRate ?? null, dry_run_pass_rate: null } : {};
  return {
    name: w.name,
    state: 'pending',
    runs: [w.run.runId],
    ...(w.after ? { after: w.after } : {}),
    ...(w.trial
      ? { dry_run: { state: 'pending', runs: [], accounts: zeroAccounts(w.planned), pass_rate: null, min_pass_rate: w.trial.minPassRate ?? null } }
      : {}),
    accounts: zeroAccounts(w.planned),
    windows: [],
    next_window: null,
    daily_cap: w.dailyCap ?? null,
    started_today: 0,
    stop_line: { tripped: false, reason: null },
    gates: {
      entry: { ...gateOf(w.entrySignOff), ...trial },
      exit: { ...gateOf(w.exitSignOff), reconciled_rate: null, min_reconciled_rate: w.minReconciledRate ?? null },
    },
  };
}
