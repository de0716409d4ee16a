/**
 * Temporal's priority and fairness for a run's account workflows (docs/temporal.md, "Priority and
 * fairness"); their activities, platform calls included, inherit it, and so do their asks for the
 * tenant's permits (domain/platform-pace.ts). The fairness key is the supplier (the cohort): two
 * cohorts sharing the workers, the platform queue and the tenant's window share them by weight.
 * Reruns and accounts the operator named go ahead of the bulk (a lower priorityKey goes first).
 */

/** Temporal's default: the middle of its 1–5 range. */
export const DEFAULT_PRIORITY_KEY = 3;
/** `run rerun-failed`: a few accounts someone waits for, never behind a cohort of 100,000. */
export const RERUN_PRIORITY_KEY = 1;
/** `run start --accounts <file>`: accounts the operator named. */
export const REQUESTED_PRIORITY_KEY = 2;

export interface RunPriority {
  priorityKey: number;
  fairnessKey: string;
  fairnessWeight: number;
}

/** The priority of a run's accounts from what it selects and the weight it was started with (1 when not given). */
export function runPriority(supplierCode: string, selection: { kind: 'all' | 'list' | 'failed_of_run' }, weight?: number): RunPriority {
  const priorityKey = selection.kind === 'failed_of_run' ? RERUN_PRIORITY_KEY : selection.kind === 'list' ? REQUESTED_PRIORITY_KEY : DEFAULT_PRIORITY_KEY;
  return { priorityKey, fairnessKey: supplierCode, fairnessWeight: weight ?? 1 };
}
