import { describe, expect, it } from 'vitest';
import { mergeReconciliations, readBackResult, type Reconciliation } from '../../../domain/reconciliation';

/** The read-back's merge of its two checks and its verdict on one account (domain/reconciliation.ts). */

const d = (path: string, field = path) => ({ path, field, expected: 'x', found: 'y' });
const none: Reconciliation = { checked: 0, matched: 0, differences: [], unverified: [], byField: {} };

describe('two checks merged', () => {
  it('counts add, lists join in order, and a field both checked has its tallies added', () => {
    const a = {
      checked: 3,
      matched: 1,
      differences: [d('a')],
      unverified: [{ path: 'u', field: 'u' }],
      byField: { a: { matched: 1, differing: 1, unverified: 0 }, u: { matched: 0, differing: 0, unverified: 1 } },
    };
    const b = {
      checked: 4,
      matched: 2,
      differences: [d('b'), d('a')],
      unverified: [],
      byField: { a: { matched: 2, differing: 1, unverified: 3 }, b: { matched: 0, differing: 1, unverified: 0 } },
    };
    expect(mergeReconciliations(a, b)).toEqual({
      checked: 7,
      matched: 3,
      differences: [d('a'), d('b'), d('a')],
      unverified: [{ path: 'u', field: 'u' }],
      byField: {
        a: { matched: 3, differing: 2, unverified: 3 },
        u: { matched: 0, differing: 0, unverified: 1 },
        b: { matched: 0, differing: 1, unverified: 0 },
      },
    });
    // Neither input is changed.
    expect(a.byField.a).toEqual({ matched: 1, differing: 1, unverified: 0 });
    expect(b.byField.a).toEqual({ matched: 2, differing: 1, unverified: 3 });
  });

  it('a difference found by either check alone survives the merge', () => {
    const rest = { ...none, checked: 2, matched: 1, differences: [d('number')], byField: { number: { matched: 0, differing: 1, unverified: 0 } } };
    const graphql = { ...none, checked: 1, matched: 1, byField: { balance: { matched: 1, differing: 0, unverified: 0 } } };
    for (const merged of [mergeReconciliations(rest, graphql), mergeReconciliations(graphql, rest)]) {
      expect(readBackResult(merged)).toMatchObject({ status: 'differing', checked: 3, differing: 1, fields: ['number'] });
      expect(merged.byField).toEqual({ number: { matched: 0, differing: 1, unverified: 0 }, balance: { matched: 1, differing: 0, unverified: 0 } });
    }
  });
});

describe("one account's verdict", () => {
  it('any difference makes the account differing, each field named once; none leaves it matched', () => {
    const two = { ...none, checked: 5, matched: 3, differences: [d('ledgers.0.balance', 'ledgers.*.balance'), d('ledgers.1.balance', 'ledgers.*.balance')] };
    expect(readBackResult(two)).toEqual({ status: 'differing', checked: 5, differing: 2, unverified: 0, fields: ['ledgers.*.balance'], unverifiedFields: [] });
    expect(readBackResult({ ...none, checked: 1, differences: [d('balance')] })).toMatchObject({ status: 'differing', differing: 1 });
    expect(readBackResult({ ...none, checked: 4, matched: 4 })).toEqual({
      status: 'matched',
      checked: 4,
      differing: 0,
      unverified: 0,
      fields: [],
      unverifiedFields: [],
    });
  });

  it('a field the record leaves out is unverified, never a difference: the account stays matched, the field named once', () => {
    const mpan = { path: 'properties.0.electricity_meter_points.0.mpan', field: 'properties.*.electricity_meter_points.*.mpan' };
    const r = readBackResult({ ...none, checked: 2, matched: 2, unverified: [mpan, { ...mpan, path: 'properties.1.electricity_meter_points.0.mpan' }] });
    expect(r).toEqual({ status: 'matched', checked: 2, differing: 0, unverified: 2, fields: [], unverifiedFields: [mpan.field] });
  });
});
