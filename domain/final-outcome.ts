import type { AccountOutcome } from './inputs';
import type { ReconcileResult } from './post-import-inputs';
import { reconciledOutcome } from './reconciled-outcome';

type ReadBack = Pick<ReconcileResult, 'status' | 'fields'>;

/**
 * What the account workflow learned, handed to the record step as facts: it decides nothing itself.
 * The record step (activities/outcome.ts) adds what only it can read and calls `finalOutcome`.
 */
export interface OutcomeFacts {
  /** The six steps' ending as an outcome (outcomes.ts `outcomeOf`). */
  outcome: AccountOutcome;
  /** The record step should read the created account back (the run reconciles, and the workflow did not). */
  readBack?: boolean;
  /** The field the platform's validation report names, when the workflow asked for it. */
  explainedAttr?: string;
  /** The read-back the workflow did itself (before carrying changes over, which change what the platform shows). */
  reconciliation?: ReadBack;
}

/** Whether the record step reads the account back: a created, non-dry-run account, asked for, on the step's first attempt only (a read-back that hung past the step's timeout must not hold the outcome back). */
export function readsBack(facts: Pick<OutcomeFacts, 'outcome' | 'readBack'>, dryRun: boolean, firstAttempt: boolean): boolean {
  const o = facts.outcome;
  return facts.readBack === true && o.outcome === 'completed' && !dryRun && o.accountNumber !== undefined && firstAttempt;
}

/**
 * The one place an account's recorded outcome is decided, from the workflow's facts and what the
 * record step read: the field a failure names (the platform's validation report, or the one tariff
 * the pre-flight could not confirm: tariff_code_not_found names no field), and the read-back.
 */
export function finalOutcome(facts: OutcomeFacts, read: { tariffAttr?: string; readBack?: ReadBack } = {}): AccountOutcome {
  let o = facts.outcome;
  if (o.outcome === 'failed' && facts.explainedAttr) o = { ...o, attr: facts.explainedAttr };
  if (o.outcome === 'failed' && !o.attr && o.code === 'tariff_code_not_found' && read.tariffAttr) o = { ...o, attr: read.tariffAttr };
  const readBack = facts.reconciliation ?? read.readBack;
  if (o.outcome === 'completed' && readBack) o = reconciledOutcome(o, readBack);
  return o;
}
