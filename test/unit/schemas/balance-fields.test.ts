import { describe, expect, it } from 'vitest';
import { energyAccountSchema } from '../../../schemas/account';
import { applyBalanceFields, toAccountLevelBalances } from '../../../schemas/balance-fields';
import { exampleOf, spec } from './spec';

const example = () => energyAccountSchema.parse(exampleOf('/v2/data-import/accounts/'));

describe('PLATFORM_BALANCE_FIELDS', () => {
  it('ledgers (default) sends the payload as it is, with its ledgers', () => {
    const p = example();
    expect(applyBalanceFields(p, 'ledgers')).toEqual({ ok: true, payload: p });
  });

  it("account: the spec example's ledger becomes the deprecated account-level fields, losing nothing", () => {
    const r = toAccountLevelBalances(example());
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const out = r.payload as Record<string, any>;
    expect(out.ledgers).toBeUndefined();
    expect(out).toMatchObject({
      last_statement_balance: '20.00',
      last_statement_closing_date: '2019-07-31',
      last_statement_issue_date: '2019-08-01',
      transfer_balance: '30.00',
    });
    expect(out.current_statement_transactions.map((t: any) => t.transaction_id)).toEqual(['1', '2']);
    expect(out.historical_statement_transactions.map((t: any) => t.transaction_id)).toEqual(['3', '4']);
    // Every field it writes is one the spec declares on EnergyAccount (ledgers is not).
    const declared = Object.keys(spec().components.schemas.EnergyAccount.properties);
    expect(declared).not.toContain('ledgers');
    for (const k of Object.keys(out)) expect(declared).toContain(k);
  });

  it('a second ledger, or an account value that disagrees with the ledger, is an error naming the field', () => {
    const p = example();
    const two = toAccountLevelBalances({ ...p, ledgers: [p.ledgers![0], { ...p.ledgers![0], ledger_identifier: 'L2' }] });
    expect(two).toMatchObject({ ok: false, errors: [{ code: 'ledgers_not_representable_as_account_fields', attr: 'ledgers.1' }] });
    const clash = toAccountLevelBalances({ ...p, transfer_balance: '99.00' });
    expect(clash).toMatchObject({ ok: false, errors: [{ attr: 'ledgers.0.ledger_balance' }] });
  });
});
