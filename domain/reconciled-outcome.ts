import type { AccountOutcome } from './inputs';
import type { ReconcileResult } from './post-import-inputs';

/**
 * A created account after its read-back: unchanged when the platform shows what was sent; otherwise
 * `completed_with_differences` at the reconcile stage, naming the first differing field (paths only).
 * Pure: `finalOutcome` (final-outcome.ts) applies it, whichever step did the read-back.
 */
export function reconciledOutcome(o: AccountOutcome, r: Pick<ReconcileResult, 'status' | 'fields'>): AccountOutcome {
  return r.status === 'matched' ? o : { ...o, outcome: 'completed_with_differences', stage: 'reconcile', attr: r.fields[0] };
}
