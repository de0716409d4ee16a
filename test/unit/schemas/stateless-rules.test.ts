import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { realisticAccount } from '../../../schemas/fixtures';
import { validateAccount } from '../../../schemas/validate';
import { exampleOf } from './spec';

// Each rule from the spec's x-validators that needs no platform state, checked before send with the
// platform's own code, on the spec's own example payload (valid as given) broken in one place.
const EXAMPLE_DAY = '2019-08-05';

function errorsAfter(mutate: (a: any) => void): Array<{ code: string; attr: string }> {
  const account = exampleOf('/v2/data-import/accounts/');
  mutate(account);
  const r = validateAccount(account, { today: EXAMPLE_DAY });
  return r.ok ? [] : r.errors.map(({ code, attr }) => ({ code, attr }));
}

describe('stateless x-validators on the spec example', () => {
  it('the example itself passes every rule', () => {
    expect(errorsAfter(() => {})).toEqual([]);
  });

  it('duplicate_transaction_ids across the transaction lists', () => {
    expect(errorsAfter((a) => (a.ledgers[0].historical_statement_transactions[0].transaction_id = '1'))).toEqual([
      { code: 'duplicate_transaction_ids', attr: 'ledgers.0.historical_statement_transactions.0.transaction_id' },
    ]);
  });

  it('campaign_name_and_slug_provided, campaign_name_or_slug_not_provided, duplicate_account_campaigns', () => {
    expect(errorsAfter((a) => (a.account_campaigns[0].campaign_name = 'Super'))).toContainEqual({
      code: 'campaign_name_and_slug_provided',
      attr: 'account_campaigns.0',
    });
    expect(errorsAfter((a) => delete a.account_campaigns[0].slug)).toContainEqual({ code: 'campaign_name_or_slug_not_provided', attr: 'account_campaigns.0' });
    expect(errorsAfter((a) => a.account_campaigns.push({ ...a.account_campaigns[0] }))).toEqual([
      { code: 'duplicate_account_campaigns', attr: 'account_campaigns.1.slug' },
    ]);
  });

  it('last_statement_issued_before_closing_date', () => {
    expect(errorsAfter((a) => (a.ledgers[0].last_statement_issue_date = '2019-07-30'))).toEqual([
      { code: 'last_statement_issued_before_closing_date', attr: 'ledgers.0.last_statement_issue_date' },
    ]);
  });

  it('ledger_balances_not_equal_to_transfer_balance (exact decimal sums)', () => {
    expect(errorsAfter((a) => (a.transfer_balance = '30.01'))).toEqual([{ code: 'ledger_balances_not_equal_to_transfer_balance', attr: 'transfer_balance' }]);
    expect(errorsAfter((a) => (a.ledgers[0].ledger_balance = '30.000'))).toEqual([]);
  });

  it('an unreadable balance ("." or "-.") is the field\'s own error alone: the sum rule never reads it as 0', () => {
    for (const v of ['.', '-.']) expect(errorsAfter((a) => (a.transfer_balance = v))).toEqual([{ code: 'invalid', attr: 'transfer_balance' }]);
    expect(errorsAfter((a) => (a.ledgers[0].ledger_balance = '.'))).toEqual([{ code: 'invalid', attr: 'ledgers.0.ledger_balance' }]);
  });

  it('duplicate_ledger_in_payment_preferences', () => {
    const pref = { type: 'PASSIVE', ledger_identifier: 'L-1' };
    expect(errorsAfter((a) => ((a.ledgers[0].ledger_identifier = 'L-1'), (a.payment_preferences = [pref, { ...pref }])))).toEqual([
      { code: 'duplicate_ledger_in_payment_preferences', attr: 'payment_preferences.1.ledger_identifier' },
    ]);
  });

  it('debt_repayment_missing_end_date, debt_repayment_end_date_after_schedule_end_date, balance_triggered_schedule_missing_threshold', () => {
    expect(errorsAfter((a) => delete a.payment_schedules[0].debt_repayment_end_date)).toEqual([
      { code: 'debt_repayment_missing_end_date', attr: 'payment_schedules.0.debt_repayment_end_date' },
    ]);
    expect(errorsAfter((a) => (a.payment_schedules[0].end_date = '2020-01-01'))).toEqual([
      { code: 'debt_repayment_end_date_after_schedule_end_date', attr: 'payment_schedules.0.debt_repayment_end_date' },
    ]);
    expect(errorsAfter((a) => (a.payment_schedules[1].trigger = 'BALANCE'))).toEqual([
      { code: 'balance_triggered_schedule_missing_threshold', attr: 'payment_schedules.1.balance_threshold' },
    ]);
  });

  it('future_smart_meter_commission_date', () => {
    const smart = (m: any, on: string) => Object.assign(m, { smart_type: 'SMETS2', smart_commissioned_on: on });
    expect(errorsAfter((a) => smart(a.supply_addresses[0].meter_points[0].meters[0], '2019-09-01'))).toEqual([
      { code: 'future_smart_meter_commission_date', attr: 'supply_addresses.0.meter_points.0.meters.0.smart_commissioned_on' },
    ]);
  });

  it('meter_with_duplicate_register_ids and registers_have_duplicate_tprs on one meter', () => {
    const regs = (a: any) => a.supply_addresses[0].meter_points[0].meters[0].registers;
    expect(errorsAfter((a) => (regs(a)[1].register_id = '1'))).toContainEqual({
      code: 'meter_with_duplicate_register_ids',
      attr: 'supply_addresses.0.meter_points.0.meters.0.registers.1.register_id',
    });
    expect(errorsAfter((a) => (regs(a)[1].tpr = '00001'))).toEqual([
      { code: 'registers_have_duplicate_tprs', attr: 'supply_addresses.0.meter_points.0.meters.0.registers.1.tpr' },
    ]);
    // The spec's exception: the odd TPRs 01201 to 01229 may appear twice on one meter (01202 is even).
    const both = (tpr: string) => (a: any) => {
      regs(a)[0].tpr = regs(a)[1].tpr = tpr;
      a.supply_addresses[0].meter_points[0].eac_history.push({ effective_from: '2019-09-01', tpr, consumption: '100', source: 'D0019' });
    };
    expect(errorsAfter(both('01201'))).toEqual([]);
    expect(errorsAfter(both('01229'))).toEqual([]);
    expect(errorsAfter(both('01202'))).toEqual([{ code: 'registers_have_duplicate_tprs', attr: 'supply_addresses.0.meter_points.0.meters.0.registers.1.tpr' }]);
  });

  it('multiple_open_ended_aqs_in_meterpoint_aq_history', () => {
    const aq = (from: string) => ({ effective_from: from, aq: '12000', source: 'NOMINATED' });
    const errors = errorsAfter((a) => (a.supply_addresses[0].meter_points[1].aq_history = [aq('2019-01-01'), aq('2019-06-01')]));
    expect(errors).toContainEqual({
      code: 'multiple_open_ended_aqs_in_meterpoint_aq_history',
      attr: 'supply_addresses.0.meter_points.1.aq_history.1.effective_to',
    });
  });

  it('start_date_same_as_end_date on an account campaign', () => {
    expect(errorsAfter((a) => Object.assign(a.account_campaigns[0], { start_date: '2019-08-01', expiry_date: '2019-08-01' }))).toContainEqual({
      code: 'start_date_same_as_end_date',
      attr: 'account_campaigns.0.expiry_date',
    });
  });
});

describe('ledger balances sum exactly (the money fast path reads every value as the general path does)', () => {
  // The general reading, kept here as the reference: any decimal string, 10^-10 units, exact; a
  // point with no digit on either side ("." or "-.") is not a number.
  function reference(v: string): bigint | undefined {
    if (!/^-?\d*(?:\.\d{0,10})?$/.test(v) || v === '' || v === '-' || v === '.' || v === '-.') return undefined;
    const neg = v.startsWith('-');
    const [int, frac = ''] = (neg ? v.slice(1) : v).split('.');
    const n = BigInt(int || '0') * 10n ** 10n + BigInt((frac + '0000000000').slice(0, 10));
    return neg ? -n : n;
  }
  const decimal = fc.oneof(
    fc
      .tuple(fc.constantFrom('', '-'), fc.stringMatching(/^\d{0,15}$/), fc.constantFrom('', '.'), fc.stringMatching(/^\d{0,11}$/))
      .map(([s, i, p, f]) => s + i + p + f),
    fc.constantFrom('.', '-.', '-0', '0.', '5.', '-0.00', '9999999999999.99', '99999999999999.99', '00012.5', '1e3', ' 1'),
  );

  it('fires exactly when the reference sums differ', () => {
    let fired = 0;
    fc.assert(
      fc.property(decimal, decimal, decimal, (transfer, a, b) => {
        const account = realisticAccount({ transfer_balance: transfer });
        account.ledgers = [
          { ...account.ledgers![0], ledger_balance: a },
          { ...account.ledgers![0], ledger_balance: b },
        ];
        const r = validateAccount(account, { today: '2026-01-01' });
        const got = !r.ok && r.errors.some((e) => e.code === 'ledger_balances_not_equal_to_transfer_balance');
        const [t, x, y] = [reference(transfer), reference(a), reference(b)];
        const expected = t !== undefined && x !== undefined && y !== undefined && x + y !== t;
        if (expected) fired += 1;
        expect(got).toBe(expected);
      }),
      { numRuns: 600 },
    );
    expect(fired).toBeGreaterThan(100);
  });

  it('equal sums in different spellings pass', () => {
    const account = realisticAccount({ transfer_balance: '30.0000000001' });
    account.ledgers = [
      { ...account.ledgers![0], ledger_balance: '30' },
      { ...account.ledgers![0], ledger_balance: '.0000000001' },
    ];
    const r = validateAccount(account, { today: '2026-01-01' });
    expect(r.ok ? [] : r.errors.filter((e) => e.code === 'ledger_balances_not_equal_to_transfer_balance')).toEqual([]);
  });
});
