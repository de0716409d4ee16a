import { describe, expect, it } from 'vitest';
import { finalOutcome, readsBack } from '../../../domain/final-outcome';
import type { AccountOutcome } from '../../../domain/inputs';

const created: AccountOutcome = { externalAccountNumber: 'EXT-1', outcome: 'completed', stage: 'record', accountNumber: 'A-1', source: 'event' };
const failed = (code: string, attr?: string): AccountOutcome => ({
  externalAccountNumber: 'EXT-1',
  outcome: 'failed',
  stage: 'platform',
  code,
  attr,
  source: 'event',
});
const matched = { status: 'matched' as const, fields: [] };
const differing = { status: 'differing' as const, fields: ['balance', 'customers.*.given_name'] };

describe('finalOutcome: the record step decides the outcome from the workflow facts', () => {
  it('a created account stays completed when nothing was read back, or the read-back matched', () => {
    expect(finalOutcome({ outcome: created })).toEqual(created);
    expect(finalOutcome({ outcome: created }, { readBack: matched })).toEqual(created);
    expect(finalOutcome({ outcome: created, reconciliation: matched })).toEqual(created);
  });

  it('a read-back that differs makes it completed_with_differences at the reconcile stage, naming the first field', () => {
    const want = { ...created, outcome: 'completed_with_differences', stage: 'reconcile', attr: 'balance' };
    expect(finalOutcome({ outcome: created }, { readBack: differing })).toEqual(want);
    expect(finalOutcome({ outcome: created, reconciliation: differing })).toEqual(want);
  });

  it("the workflow's own read-back (before a carry-over) wins over the record step's", () => {
    expect(finalOutcome({ outcome: created, reconciliation: matched }, { readBack: differing })).toEqual(created);
  });

  it('adds no field a fact does not give (not even an empty one)', () => {
    const bare: AccountOutcome = { externalAccountNumber: 'EXT-1', outcome: 'failed', stage: 'platform', code: 'tariff_code_not_found', source: 'event' };
    expect(finalOutcome({ outcome: bare })).toStrictEqual(bare);
    expect(finalOutcome({ outcome: bare }, { tariffAttr: undefined })).toStrictEqual(bare);
    expect(finalOutcome({ outcome: { ...bare, code: 'invalid_postcode' } }, { tariffAttr: 'x' })).toStrictEqual({ ...bare, code: 'invalid_postcode' });
  });

  it('a failed account is never reconciled', () => {
    expect(finalOutcome({ outcome: failed('import_process_failed_validation'), reconciliation: differing })).toEqual(
      failed('import_process_failed_validation'),
    );
  });

  it("names the field the platform's validation report gives", () => {
    expect(finalOutcome({ outcome: failed('import_process_failed_validation'), explainedAttr: 'customers.0.landline' }).attr).toBe('customers.0.landline');
    expect(finalOutcome({ outcome: created, explainedAttr: 'customers.0.landline' })).toEqual(created);
  });

  it('names the tariff the pre-flight could not confirm for tariff_code_not_found, and only then', () => {
    const t = 'agreements.0.tariff_code';
    expect(finalOutcome({ outcome: failed('tariff_code_not_found') }, { tariffAttr: t }).attr).toBe(t);
    expect(finalOutcome({ outcome: failed('tariff_code_not_found', 'x.y') }, { tariffAttr: t }).attr).toBe('x.y');
    expect(finalOutcome({ outcome: failed('product_code_does_not_exist') }, { tariffAttr: t }).attr).toBeUndefined();
    expect(finalOutcome({ outcome: failed('tariff_code_not_found'), explainedAttr: 'e.f' }, { tariffAttr: t }).attr).toBe('e.f');
    expect(finalOutcome({ outcome: { ...created, code: 'tariff_code_not_found' } }, { tariffAttr: t }).attr).toBeUndefined();
  });
});

describe('readsBack: the record step reads back a created account once, when asked', () => {
  it('reads back a created, non-dry-run account with a number, asked for, on the first attempt', () => {
    expect(readsBack({ outcome: created, readBack: true }, false, true)).toBe(true);
  });

  it.each([
    ['not asked', { outcome: created, readBack: false }, false, true],
    ['asked by omission', { outcome: created }, false, true],
    ['a dry run', { outcome: created, readBack: true }, true, true],
    ['a retry', { outcome: created, readBack: true }, false, false],
    ['failed', { outcome: { ...failed('x'), accountNumber: 'A-1' }, readBack: true }, false, true],
    ['no account number', { outcome: { ...created, accountNumber: undefined }, readBack: true }, false, true],
  ])('does not when %s', (_why, facts, dryRun, first) => {
    expect(readsBack(facts, dryRun, first)).toBe(false);
  });
});
