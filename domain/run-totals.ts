import type { AccountOutcome, RunTotals } from './inputs';

/** The run's totals, as `run status`, the summary and the report show them. Pure (the run workflow books into them). */
export function emptyTotals(): RunTotals {
  return { enumerated: 0, dispatched: 0, completed: 0, failed: 0, notAttempted: 0, alreadyCompletedElsewhere: 0, failedByCode: {}, outcomeSources: {} };
}

/** Adds one settled account to the run's totals. */
export function count(t: RunTotals, o: AccountOutcome): void {
  if (o.outcome === 'completed') t.completed += 1;
  else if (o.outcome === 'completed_with_differences') {
    // Created, but its read-back differed from what was sent: counted as completed, and apart.
    t.completed += 1;
    t.completedWithDifferences = (t.completedWithDifferences ?? 0) + 1;
  } else if (o.outcome === 'failed') t.failed += 1;
  else t.notAttempted += 1;
  if (o.code) t.failedByCode[o.code] = (t.failedByCode[o.code] ?? 0) + 1;
  if (o.source) t.outcomeSources[o.source] = (t.outcomeSources[o.source] ?? 0) + 1;
}

/** An account the run could not start (created by an earlier run, or running elsewhere): counted by its outcome, and apart when created. */
export function countNotStarted(t: RunTotals, o: AccountOutcome): void {
  count(t, o);
  if (o.outcome === 'completed' || o.outcome === 'completed_with_differences') t.alreadyCompletedElsewhere += 1;
}
