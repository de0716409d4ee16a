import { describe, expect, it } from 'vitest';
import { count, countNotStarted, emptyTotals } from '../../../domain/run-totals';
import type { AccountOutcome } from '../../../domain/inputs';

const o = (ext: string, outcome: AccountOutcome['outcome'], more: Partial<AccountOutcome> = {}): AccountOutcome => ({
  externalAccountNumber: ext,
  outcome,
  stage: 'await',
  ...more,
});

describe("the run's totals (what run status, the summary and the report show)", () => {
  it('books each outcome under its own heading, codes and sources beside', () => {
    const t = emptyTotals();
    count(t, o('A', 'completed', { source: 'event', accountNumber: 'A-1' }));
    count(t, o('B', 'completed', { source: 'poll', accountNumber: 'A-2' }));
    count(t, o('C', 'completed_with_differences', { stage: 'reconcile', attr: 'customers.0.family_name', source: 'event' }));
    count(t, o('D', 'failed', { stage: 'platform', code: 'tariff_code_not_found', source: 'event' }));
    count(t, o('E', 'not_attempted', { stage: 'guard', code: 'import_supplier_migration_not_ongoing', source: 'local' }));
    count(t, o('F', 'not_attempted', { stage: 'guard', code: 'run_cancelled', source: 'local' }));
    expect(t).toEqual({
      ...emptyTotals(),
      completed: 3,
      completedWithDifferences: 1,
      failed: 1,
      notAttempted: 2,
      failedByCode: { tariff_code_not_found: 1, import_supplier_migration_not_ongoing: 1, run_cancelled: 1 },
      outcomeSources: { event: 3, poll: 1, local: 2 },
    });
  });

  it('an outcome without a code or a source adds no heading for them', () => {
    const t = emptyTotals();
    count(t, o('A', 'completed'));
    expect(t).toEqual({ ...emptyTotals(), completed: 1 });
  });

  it('a not-attempted account is not a failure', () => {
    const t = emptyTotals();
    count(t, o('E', 'not_attempted', { stage: 'guard', code: 'import_supplier_migration_not_ongoing' }));
    expect(t).toMatchObject({ failed: 0, notAttempted: 1, completed: 0 });
  });
});

describe('an account the run could not start (created by an earlier run, or running elsewhere)', () => {
  it('is counted by its outcome, and a created one also as already completed elsewhere', () => {
    const t = emptyTotals();
    countNotStarted(t, o('A', 'completed', { source: 'already_imported', accountNumber: 'A-1' }));
    countNotStarted(t, o('B', 'completed_with_differences', { source: 'already_imported', accountNumber: 'A-2' }));
    countNotStarted(t, o('C', 'failed', { code: 'tariff_code_not_found' }));
    countNotStarted(t, o('D', 'not_attempted', { code: 'run_cancelled' }));
    expect(t).toEqual({
      ...emptyTotals(),
      completed: 2,
      completedWithDifferences: 1,
      failed: 1,
      notAttempted: 1,
      alreadyCompletedElsewhere: 2,
      failedByCode: { tariff_code_not_found: 1, run_cancelled: 1 },
      outcomeSources: { already_imported: 2 },
    });
  });
});
