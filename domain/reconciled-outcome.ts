import type { AccountOutcome } from './inputs';
import type { ReconcileResult } from './post-import-inputs';

/**
 * A created account after its read-back: unchanged when the platform shows what was sent; otherwise
 * `completed_with_differences` at the reconcile stage, naming the first differing field (paths only).
 * Pure: the workflow (workflows/account-import.ts) and the record step (activities/outcome.ts) both use it.
 */
export function reconciledOutcome(o: AccountOutcome, r: Pick<ReconcileResult, 'status' | 'fields'>): AccountOutcome {
  return r.status === 'matched' ? o : { ...o, outcome: 'completed_with_differences', stage: 'reconcile', attr: r.fields[0] };
}

/**
 * Whether the record step reads a created account back before recording it: asked for, a real run
 * (a dry run created nothing), a completed account with its number, and the step's first attempt
 * only (a read-back that hung past the step's timeout must not hold the outcome back on the retry).
 */
export function readBackWanted(input: { readBack?: boolean; dryRun: boolean }, o: AccountOutcome, firstAttempt: boolean): boolean {
  return input.readBack === true && o.outcome === 'completed' && !input.dryRun && o.accountNumber !== undefined && firstAttempt;
}
