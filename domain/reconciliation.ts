import type { ReconcileResult } from './post-import-inputs';

/**
 * What a read-back found, and the read-back's verdict on it: the REST record's check and the GraphQL
 * account's (reconcile/compare.ts, reconcile/graphql-compare.ts) merged into one, and one account's
 * result (matched or differing, the fields named). Pure; activities/read-back.ts does the reading.
 */

export interface Difference {
  /** Dot path in the account record, zero-based indexes: `properties.0.electricity_meter_points.0.agreements.1.tariff_code`. */
  path: string;
  /** The same path with indexes as `*`, for counts by field: `properties.*.electricity_meter_points.*.agreements.*.tariff_code`. */
  field: string;
  expected: unknown;
  found: unknown;
}

/** A leaf the payload determines that the record does not contain (paths only: nothing was read). */
export interface Unverified {
  path: string;
  field: string;
}

/** Leaves of one field (indexes as `*`) in one account: how many matched, differed, or were not in the record. */
export interface FieldTally {
  matched: number;
  differing: number;
  unverified: number;
}

export interface Reconciliation {
  /** Leaves compared (the record carries them and the payload says what they should be). */
  checked: number;
  matched: number;
  differences: Difference[];
  unverified: Unverified[];
  /** Per field (indexes as `*`): matched, differing and unverified leaves. */
  byField: Record<string, FieldTally>;
}

/** Two checks of one account as one (the REST record's and the GraphQL account's): counts add, per-field tallies merge. */
export function mergeReconciliations(a: Reconciliation, b: Reconciliation): Reconciliation {
  const byField = { ...a.byField };
  for (const [f, t] of Object.entries(b.byField)) {
    const was = byField[f] ?? { matched: 0, differing: 0, unverified: 0 };
    byField[f] = { matched: was.matched + t.matched, differing: was.differing + t.differing, unverified: was.unverified + t.unverified };
  }
  return {
    checked: a.checked + b.checked,
    matched: a.matched + b.matched,
    differences: [...a.differences, ...b.differences],
    unverified: [...a.unverified, ...b.unverified],
    byField,
  };
}

/**
 * One account's verdict: any difference makes it `differing`. Fields the record does not contain are
 * unverified, never differences, so they leave it `matched`. Field names only (history sees this).
 */
export function readBackResult(r: Reconciliation): ReconcileResult & { status: 'matched' | 'differing' } {
  return {
    status: r.differences.length > 0 ? 'differing' : 'matched',
    checked: r.checked,
    differing: r.differences.length,
    unverified: r.unverified.length,
    fields: [...new Set(r.differences.map((d) => d.field))],
    unverifiedFields: [...new Set(r.unverified.map((u) => u.field))],
  };
}
