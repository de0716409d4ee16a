import { describe, expect, it } from 'vitest';
import { reconciledOutcome } from '../../../domain/reconciled-outcome';
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
