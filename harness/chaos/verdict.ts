import type { OutcomeRow } from '../../ledger/outcome-columns';
import type { GroundTruth } from '../synthetic/generator';

/** An account's recorded outcome in the ledger (its account attempt): the outcome columns the verdict judges. */
export type LedgerOutcome = Omit<OutcomeRow, 'external_account_number' | 'outcome_source'>;

/** The sandbox's ground truth for one external account number. */
export interface PlatformTruth {
  created_count: number;
  account_number: string | null;
  /** Imports the platform opened for the account (the blind-resend trap opens a second one for a repeated schedule). */
  import_process_count?: number;
}

export interface WrongOutcome {
  account: string;
  expected: string;
  got: string;
}

export interface Verdict {
  /** Accounts with no recorded outcome. */
  lost: string[];
  /** Accounts the platform created more than once. */
  duplicated: string[];
  /** Clean accounts the platform opened a second import for: scheduled again without reading the status first. */
  reopened: string[];
  /** Outcome, stage, code or attr differs from the generator's expectation (or the account number from the platform's). */
  wrong: WrongOutcome[];
  /** Requests the sandbox saw before the Retry-After it had given. */
  early: number;
}

const show = (o: Record<string, unknown>) =>
  Object.entries(o)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');

/**
 * The chaos verdict, from the generator's ground truth, the ledger and the sandbox only (never from
 * what the workflows say about themselves).
 */
export function judge(input: { truth: GroundTruth[]; ledger: Map<string, LedgerOutcome>; platform: Map<string, PlatformTruth>; early: number }): Verdict {
  const lost: string[] = [];
  const wrong: WrongOutcome[] = [];
  for (const t of input.truth) {
    const ext = t.external_account_number;
    const row = input.ledger.get(ext);
    if (!row || !row.outcome) {
      lost.push(ext);
      continue;
    }
    const e = t.expected;
    const created = input.platform.get(ext);
    if (e.outcome === 'completed') {
      const ok = row.outcome === 'completed' && created?.created_count === 1 && row.platform_account_number === created.account_number;
      if (!ok) {
        wrong.push({
          account: ext,
          expected: show({ outcome: 'completed', account: created?.account_number ?? '(not created)' }),
          got: show({ outcome: row.outcome, stage: row.stage, code: row.error_code, account: row.platform_account_number }),
        });
      }
    } else {
      const ok = row.outcome === 'failed' && row.stage === e.stage && row.error_code === e.code && (row.error_attr ?? '') === (e.attr ?? '');
      if (!ok) {
        wrong.push({
          account: ext,
          expected: show({ outcome: 'failed', stage: e.stage, code: e.code, attr: e.attr }),
          got: show({ outcome: row.outcome, stage: row.stage, code: row.error_code, attr: row.error_attr }),
        });
      }
    }
  }
  const duplicated = [...input.platform.entries()].filter(([, p]) => p.created_count > 1).map(([ext]) => ext);
  // An account expected to complete never ends an import without one: a second import can only be a blind resend.
  const reopened = input.truth
    .filter((t) => t.expected.outcome === 'completed' && (input.platform.get(t.external_account_number)?.import_process_count ?? 0) > 1)
    .map((t) => t.external_account_number);
  return { lost, duplicated, reopened, wrong, early: input.early };
}

export function passed(v: Verdict): boolean {
  return v.lost.length === 0 && v.duplicated.length === 0 && v.reopened.length === 0 && v.wrong.length === 0 && v.early === 0;
}
