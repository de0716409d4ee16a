/**
 * Two runs of the same cohort side by side (`run compare A B`, docs/plan.md): typically two trial
 * loads of a wave. Each account is classed by its outcome in A and in B; the ledger hands over the
 * accounts grouped by (outcome, code) in each run, so a million-account run is a handful of groups.
 * Pure: what an account's pair of outcomes means is decided here.
 */

export type CompareClass = 'fixed' | 'newly_failing' | 'still_failing' | 'still_passing' | 'not_compared';

/** One group of accounts with the same outcome and code in A and in B (null: not in that run, or no outcome yet). */
export interface OutcomePair {
  aOutcome: string | null;
  aCode: string | null;
  bOutcome: string | null;
  bCode: string | null;
  n: number;
}

export interface RunComparison {
  /** Accounts by class. */
  counts: Record<CompareClass, number>;
  /** fixed: by the code A failed with; newly and still failing: by the code B failed with. Most accounts first. */
  byCode: Array<{ class: 'fixed' | 'newly_failing' | 'still_failing'; code: string; n: number }>;
  /** Failed accounts (the defect count) of each run. */
  defects: { a: number; b: number };
}

const passed = (o: string | null) => o === 'completed' || o === 'completed_with_differences';

/**
 * The class of an account from its outcome in A and in B. Failed in both: still failing; failed in B
 * and not in A (passed, not attempted, or not in A at all): newly failing; failed in A and passed in
 * B: fixed; passed in both: still passing. Not attempted, not yet settled, or absent from B: not
 * compared (nothing was learnt of it in B), and so is one passing in B that A never settled.
 */
export function compareClass(a: string | null, b: string | null): CompareClass {
  if (b === 'failed') return a === 'failed' ? 'still_failing' : 'newly_failing';
  if (!passed(b)) return 'not_compared';
  if (a === 'failed') return 'fixed';
  return passed(a) ? 'still_passing' : 'not_compared';
}

export function compareRuns(pairs: readonly OutcomePair[]): RunComparison {
  const counts: Record<CompareClass, number> = { fixed: 0, newly_failing: 0, still_failing: 0, still_passing: 0, not_compared: 0 };
  const byCode = new Map<string, { class: 'fixed' | 'newly_failing' | 'still_failing'; code: string; n: number }>();
  const defects = { a: 0, b: 0 };
  for (const p of pairs) {
    if (p.aOutcome === 'failed') defects.a += p.n;
    if (p.bOutcome === 'failed') defects.b += p.n;
    const c = compareClass(p.aOutcome, p.bOutcome);
    counts[c] += p.n;
    if (c === 'still_passing' || c === 'not_compared') continue;
    const code = (c === 'fixed' ? p.aCode : p.bCode) ?? 'unknown';
    const key = `${c}\u0000${code}`;
    const g = byCode.get(key) ?? byCode.set(key, { class: c, code, n: 0 }).get(key)!;
    g.n += p.n;
  }
  const order = { newly_failing: 0, still_failing: 1, fixed: 2 };
  return {
    counts,
    byCode: [...byCode.values()].sort((x, y) => order[x.class] - order[y.class] || y.n - x.n || x.code.localeCompare(y.code)),
    defects,
  };
}
