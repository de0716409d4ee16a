import { describe, expect, it } from 'vitest';
import { compareClass, compareRuns } from '../../../domain/run-compare';

describe('run compare: what an account’s two outcomes mean', () => {
  it('failed in both: still failing; failed only in B (passed, not attempted or absent in A): newly failing', () => {
    expect(compareClass('failed', 'failed')).toBe('still_failing');
    expect(compareClass('completed', 'failed')).toBe('newly_failing');
    expect(compareClass('completed_with_differences', 'failed')).toBe('newly_failing');
    expect(compareClass('not_attempted', 'failed')).toBe('newly_failing');
    expect(compareClass(null, 'failed')).toBe('newly_failing');
  });
  it('failed in A and passed in B: fixed; passed in both: still passing; B with differences counts as passed', () => {
    expect(compareClass('failed', 'completed')).toBe('fixed');
    expect(compareClass('failed', 'completed_with_differences')).toBe('fixed');
    expect(compareClass('completed', 'completed')).toBe('still_passing');
    expect(compareClass('completed_with_differences', 'completed')).toBe('still_passing');
  });
  it('nothing learnt in B, or a pass A never settled: not compared', () => {
    for (const a of ['failed', 'completed', 'not_attempted', null]) {
      expect(compareClass(a, 'not_attempted')).toBe('not_compared');
      expect(compareClass(a, null)).toBe('not_compared');
    }
    expect(compareClass('not_attempted', 'completed')).toBe('not_compared');
    expect(compareClass(null, 'completed')).toBe('not_compared');
  });
});

describe('run compare: counts, codes and defects', () => {
  const pair = (aOutcome: string | null, aCode: string | null, bOutcome: string | null, bCode: string | null, n: number) => ({
    aOutcome,
    aCode,
    bOutcome,
    bCode,
    n,
  });
  it('sums the groups by class; fixed by A’s code, failing by B’s; newly failing first, then most accounts', () => {
    const r = compareRuns([
      pair('failed', 'phone_invalid', 'completed', null, 7),
      pair('failed', 'phone_invalid', 'failed', 'phone_invalid', 2),
      pair('failed', 'tariff_missing', 'failed', 'phone_invalid', 1),
      pair('completed', null, 'failed', 'agreement_product_not_found', 3),
      pair(null, null, 'failed', null, 1),
      pair('completed', null, 'completed', null, 40),
      pair('failed', 'x', 'not_attempted', 'run_cancelled', 4),
      pair('completed', null, null, null, 5),
    ]);
    expect(r.counts).toEqual({ fixed: 7, newly_failing: 4, still_failing: 3, still_passing: 40, not_compared: 9 });
    expect(r.byCode).toEqual([
      { class: 'newly_failing', code: 'agreement_product_not_found', n: 3 },
      { class: 'newly_failing', code: 'unknown', n: 1 },
      { class: 'still_failing', code: 'phone_invalid', n: 3 },
      { class: 'fixed', code: 'phone_invalid', n: 7 },
    ]);
    expect(r.defects).toEqual({ a: 14, b: 7 });
  });
  it('equal counts sort by code; no groups: zeros', () => {
    const r = compareRuns([
      pair('completed', null, 'failed', 'c', 2),
      pair('completed', null, 'failed', 'b', 2),
      pair('completed', null, 'failed', 'a', 2),
      pair('completed', null, 'failed', 'd', 2),
      pair('failed', 'z', 'completed', null, 2),
    ]);
    expect(r.byCode.map((x) => x.code)).toEqual(['a', 'b', 'c', 'd', 'z']);
    expect(compareRuns([pair('completed', null, 'failed', 'a', 2), pair('completed', null, 'failed', 'b', 2)]).byCode.map((x) => x.code)).toEqual(['a', 'b']);
    expect(compareRuns([])).toEqual({
      counts: { fixed: 0, newly_failing: 0, still_failing: 0, still_passing: 0, not_compared: 0 },
      byCode: [],
      defects: { a: 0, b: 0 },
    });
  });
});
