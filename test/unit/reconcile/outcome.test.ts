import { describe, expect, it } from 'vitest';
import { readBackWanted, reconciledOutcome } from '../../../domain/reconciled-outcome';
import type { AccountOutcome } from '../../../domain/inputs';

const created: AccountOutcome = { externalAccountNumber: 'EXT-1', outcome: 'completed', stage: 'await', accountNumber: 'A-1', source: 'event' };

describe('the outcome after the read-back', () => {
  it('a matching account stays completed, unchanged', () => {
    expect(reconciledOutcome(created, { status: 'matched', fields: [] })).toEqual(created);
  });

  it('a differing account is completed_with_differences at reconcile, naming the first differing field', () => {
    expect(reconciledOutcome(created, { status: 'differing', fields: ['customers.*.family_name', 'properties.*.postcode'] })).toEqual({
      ...created,
      outcome: 'completed_with_differences',
      stage: 'reconcile',
      attr: 'customers.*.family_name',
    });
  });

  it('an account the platform does not show is completed_with_differences on its number', () => {
    expect(reconciledOutcome(created, { status: 'account_missing', fields: ['number'] })).toMatchObject({
      outcome: 'completed_with_differences',
      stage: 'reconcile',
      attr: 'number',
    });
  });
});

describe('whether the record step reads the account back', () => {
  const asked = { readBack: true, dryRun: false };
  it('reads back a completed account of a real run, when asked, on the first attempt', () => {
    expect(readBackWanted(asked, created, true)).toBe(true);
  });

  it('not when not asked, on a dry run, on a retry of the step, or without the account number', () => {
    expect(readBackWanted({ dryRun: false }, created, true)).toBe(false);
    expect(readBackWanted({ readBack: false, dryRun: false }, created, true)).toBe(false);
    expect(readBackWanted({ readBack: true, dryRun: true }, created, true)).toBe(false);
    expect(readBackWanted(asked, created, false)).toBe(false);
    expect(readBackWanted(asked, { ...created, accountNumber: undefined }, true)).toBe(false);
  });

  it('never for an account that did not complete (nothing to read, or already read)', () => {
    for (const outcome of ['failed', 'not_attempted', 'completed_with_differences'] as const) {
      expect(readBackWanted(asked, { ...created, outcome }, true)).toBe(false);
    }
  });
});
