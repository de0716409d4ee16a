import { describe, expect, it } from 'vitest';
import {
  compareGraphqlAccount,
  maskValue,
  normaliseEmail,
  normalisePhone,
  normalisePostcode,
  normaliseText,
  penceToUnits,
  poundsToUnits,
  unitsAsPence,
} from '../../../reconcile/graphql-compare';
import { realisticAccount } from '../../../schemas/fixtures';
import { graphqlAccountFromPayload, withReadBackFaults } from '../../../harness/sandbox/post-import/graphql-account';

// transfer_balance 42.17 on one ledger; one customer (Alice Hughes, UK mobile and landline); billing in Kidlington.
const payload: Record<string, any> = realisticAccount();
/** The record as the sandbox (an independent mapping) shows it: E.164 phones, pence. */
const record = (p: unknown = payload): any => structuredClone(graphqlAccountFromPayload('A-1', p));
const check = (found: unknown, p: unknown = payload) => compareGraphqlAccount(p, found);
const paths = (r: ReturnType<typeof check>) => r.differences.map((d) => [d.path, d.expected, d.found]);

describe('GraphQL read-back: balances in pence, exactly', () => {
  it('a record as the tenant keeps it matches on every leaf: balance, ledger balance and amount owed, six user fields, seven billing fields', () => {
    const r = check(record());
    expect(r.differences).toEqual([]);
    expect(r.unverified).toEqual([]);
    expect(r.checked).toBe(1 + 2 + 6 + 7);
    expect(r.matched).toBe(r.checked);
    expect(r.balance).toEqual({ sourcePence: '4217', platformPence: '4217' });
    expect(r.byField).toMatchObject({
      balance: { matched: 1, differing: 0, unverified: 0 },
      'ledgers.*.balance': { matched: 1, differing: 0, unverified: 0 },
      'ledgers.*.amountOwedByCustomer': { matched: 1, differing: 0, unverified: 0 },
      'users.*.mobile': { matched: 1, differing: 0, unverified: 0 },
      billingAddressPostcode: { matched: 1, differing: 0, unverified: 0 },
    });
  });

  it('the sign convention, checked on both fields: balance positive in credit, amountOwedByCustomer positive when owing', () => {
    const found = record();
    expect([found.balance, found.ledgers[0].balance, found.ledgers[0].amountOwedByCustomer]).toEqual([4217, 4217, -4217]);
    // A tenant showing balance the other way round: the account and ledger balance differ; the amount owed is right.
    const flipped = withReadBackFaults(found, { graphqlFlipBalanceRate: 1, graphqlAlterNameRate: 0 });
    expect(paths(check(flipped))).toEqual([
      ['balance', '4217', '-4217'],
      ['ledgers.0.balance', '4217', '-4217'],
    ]);
    expect(check(flipped).balance).toEqual({ sourcePence: '4217', platformPence: '-4217' });
    // amountOwedByCustomer with the credit sign is a difference at that field alone.
    const owed = record();
    owed.ledgers[0].amountOwedByCustomer = 4217;
    expect(paths(check(owed))).toEqual([['ledgers.0.amountOwedByCustomer', '-4217', '4217']]);
    // A debit balance sent as -10.50: balance -1050, owed 1050.
    const debit: Record<string, any> = { ...structuredClone(payload), transfer_balance: '-10.50' };
    debit.ledgers[0].ledger_balance = '-10.50';
    const d = record(debit);
    expect([d.balance, d.ledgers[0].amountOwedByCustomer]).toEqual([-1050, 1050]);
    expect(check(d, debit).differences).toEqual([]);
  });

  it('a lost ledger is a difference at the ledger; an extra ledger with money on it too, one without is not', () => {
    const lost = record();
    lost.ledgers = [];
    lost.balance = 0;
    expect(paths(check(lost))).toEqual([
      ['balance', '4217', '0'],
      ['ledgers.0', '4217', undefined],
    ]);
    const extra = record();
    extra.ledgers.push({ number: 'L-X', ledgerType: 'DEBT', balance: 0, amountOwedByCustomer: 0 });
    expect(check(extra).differences).toEqual([]);
    extra.ledgers.push({ number: 'L-Y', ledgerType: 'DEBT', balance: -300, amountOwedByCustomer: 300 });
    expect(paths(check(extra))).toEqual([['ledgers.2', undefined, '-300']]);
    // Without ledgers in the payload, the platform's own ledgers are not compared (only the total).
    const noLedgers: Record<string, any> = { ...structuredClone(payload) };
    delete noLedgers.ledgers;
    expect(check(extra, noLedgers).differences).toEqual([]);
    extra.balance = 4217 - 300;
    expect(check(extra, noLedgers).differences.map((d) => d.path)).toEqual(['balance']);
  });

  it('a rounding drift is a difference: 12.345 sent is never equal to whole pence', () => {
    const p: Record<string, any> = { ...structuredClone(payload), transfer_balance: '12.345' };
    p.ledgers[0].ledger_balance = '12.345';
    const found = record(p);
    expect(found.balance).toBe(1235);
    expect(paths(check(found, p))).toEqual([
      ['balance', '1234.5', '1235'],
      ['ledgers.0.balance', '1234.5', '1235'],
      ['ledgers.0.amountOwedByCustomer', '-1234.5', '-1235'],
    ]);
    // A one-penny drift on an exact amount.
    const drift = record();
    drift.ledgers[0].balance = 4218;
    expect(paths(check(drift))).toEqual([['ledgers.0.balance', '4217', '4218']]);
  });

  it('ledgers pair by identifier in any order, the rest in order; the total is the transfer balance, else the sum of the ledgers, else 0', () => {
    const p: Record<string, any> = { ...structuredClone(payload), transfer_balance: '50.00' };
    p.ledgers = [{ ledger_identifier: 'L-A', ledger_balance: '40.00' }, { ledger_balance: '10.00' }];
    const found = record(p);
    expect(found.ledgers.map((l: any) => l.number)).toEqual(['L-A', 'L-A-1-2']);
    found.ledgers.reverse();
    expect(check(found, p).differences).toEqual([]);
    found.ledgers[1].number = 'L-B';
    // L-A is gone: the identified ledger is lost; the unidentified one still pairs with the first left.
    expect(paths(check(found, p))).toEqual([
      ['ledgers.0', '4000', undefined],
      ['ledgers.1', undefined, '4000'],
    ]);
    const summed: Record<string, any> = { ...structuredClone(p) };
    delete summed.transfer_balance;
    expect(check(record(p), summed).balance.sourcePence).toBe('5000');
    expect(compareGraphqlAccount({}, { balance: 0, users: [] }).balance).toEqual({ sourcePence: '0', platformPence: '0' });
    expect(compareGraphqlAccount({}, { balance: 0, users: [] }).differences).toEqual([]);
  });

  it('a balance that is not an integer of pence is a difference showing what was found', () => {
    const found = record();
    found.balance = 42.17;
    expect(paths(check(found))).toEqual([['balance', '4217', 42.17]]);
    expect(check({}).differences[0]).toEqual({ path: 'balance', field: 'balance', expected: '4217', found: undefined });
    expect(check({}).balance.platformPence).toBeUndefined();
  });

  it('money helpers: exact units, never floats', () => {
    expect(poundsToUnits('42.17')).toBe(421_700_000_000n);
    expect(poundsToUnits('-0.01')).toBe(-100_000_000n);
    expect(poundsToUnits(' 7 ')).toBe(70_000_000_000n);
    expect(poundsToUnits('.5')).toBe(5_000_000_000n);
    expect(poundsToUnits('0.0000000001')).toBe(1n);
    for (const bad of ['', '-', '.', 'x', '1.2.3', '1e3', '0.00000000001', 42]) expect(poundsToUnits(bad)).toBeUndefined();
    expect(penceToUnits(4217)).toBe(421_700_000_000n);
    for (const bad of [42.5, '4217', Number.MAX_SAFE_INTEGER + 2, null]) expect(penceToUnits(bad)).toBeUndefined();
    expect(unitsAsPence(421_700_000_000n)).toBe('4217');
    expect(unitsAsPence(-123_450_000_000n)).toBe('-1234.5');
    expect(unitsAsPence(1n)).toBe('0.00000001');
    expect(unitsAsPence(0n)).toBe('0');
  });
});

describe('GraphQL read-back: customers and billing details, normalised and masked', () => {
  it("the platform's normalisation is equal: whitespace, e-mail case, postcode case and spacing, phones as E.164", () => {
    const found = record();
    expect(found.users[0].mobile).toBe('+447123456789');
    found.users[0].givenName = '  Alice ';
    found.users[0].email = 'Alice.Hughes@EXAMPLE.com';
    found.users[0].landline = '020 7234 3456';
    found.billingName = 'Alice   Hughes';
    found.billingAddressPostcode = 'ox51ab';
    found.billingAddressLine3 = '';
    expect(check(found).differences).toEqual([]);
  });

  it('an altered name is a difference at that user field with masked values only', () => {
    const found = withReadBackFaults(record(), { graphqlFlipBalanceRate: 0, graphqlAlterNameRate: 1 });
    const r = check(found);
    expect(r.differences).toEqual([{ path: 'users.0.familyName', field: 'users.*.familyName', expected: 'H*****', found: 'H*************' }]);
    expect(JSON.stringify(r)).not.toContain('Hughes');
    expect(r.byField['users.*.familyName']).toEqual({ matched: 0, differing: 1, unverified: 0 });
  });

  it('every customer and billing field is compared: a change to any one is a difference at it', () => {
    const cases: Array<[string, (f: any) => void]> = [
      ['users.0.givenName', (f) => (f.users[0].givenName = 'Alicia')],
      ['users.0.email', (f) => (f.users[0].email = 'other@example.com')],
      ['users.0.mobile', (f) => (f.users[0].mobile = '+447123456780')],
      ['users.0.landline', (f) => (f.users[0].landline = '')],
      ['users.0.dateOfBirth', (f) => (f.users[0].dateOfBirth = '1984-03-18')],
      ['billingName', (f) => (f.billingName = 'A Hughes')],
      ['billingAddressLine1', (f) => (f.billingAddressLine1 = '15 Orchard Lane')],
      ['billingAddressLine2', (f) => (f.billingAddressLine2 = null)],
      ['billingAddressLine3', (f) => (f.billingAddressLine3 = 'Oxford')],
      ['billingAddressLine4', (f) => (f.billingAddressLine4 = 'Oxon')],
      ['billingAddressLine5', (f) => (f.billingAddressLine5 = 'UK')],
      ['billingAddressPostcode', (f) => (f.billingAddressPostcode = 'OX5 1AC')],
    ];
    for (const [path, change] of cases) {
      const found = record();
      change(found);
      expect(check(found).differences.map((d) => d.path)).toEqual([path]);
    }
  });

  it('users pair with the customer they agree with most, in any order; a customer the record lacks is a difference at the user', () => {
    const p = structuredClone(payload);
    p.customers.push({ given_name: 'Bob', family_name: 'Hughes', email: 'bob@example.com' });
    const found = record(p);
    found.users.reverse();
    expect(check(found, p).differences).toEqual([]);
    found.users[1].familyName = 'Hughes-ALTERED';
    expect(check(found, p).differences.map((d) => d.path)).toEqual(['users.1.familyName']);
    // Only Bob left: Alice (the first customer sent) is the one missing.
    found.users = found.users.slice(0, 1);
    expect(paths(check(found, p))).toEqual([['users.0', 'H*****', undefined]]);
    expect(check({ ...record(p), users: 'x' }, p).differences.map((d) => d.path)).toEqual(['users.0', 'users.1']);
    // Two customers with the same name: the altered one still pairs with its own record.
    const twins = structuredClone(payload);
    twins.customers.push({ given_name: 'Alice', family_name: 'Hughes', email: 'alice2@example.com', date_of_birth: '2010-01-01' });
    const t = record(twins);
    t.users[0].familyName = 'Hughes-ALTERED';
    expect(check(t, twins).differences.map((d) => d.path)).toEqual(['users.0.familyName']);
    t.users.reverse();
    expect(check(t, twins).differences.map((d) => d.path)).toEqual(['users.1.familyName']);
  });

  it('normalisers and the mask', () => {
    expect(normaliseText(' a \t b ')).toBe('a b');
    expect(normaliseText('   ')).toBeUndefined();
    expect(normaliseText(3)).toBeUndefined();
    expect(normalisePostcode(' sw1a  1aa')).toBe('SW1A1AA');
    expect(normaliseEmail(' A@B.com ')).toBe('a@b.com');
    expect(normalisePhone('07123 456789')).toBe('+447123456789');
    expect(normalisePhone('0044 7123 456789')).toBe('+447123456789');
    expect(normalisePhone('+33 1 23 45 67 89')).toBe('+33123456789');
    expect(normalisePhone('12 34')).toBe('1234');
    expect(normalisePhone('')).toBeUndefined();
    expect(maskValue('Hughes')).toBe('H*****');
    expect(maskValue('É')).toBe('É');
    expect(maskValue('')).toBe('*');
    expect(maskValue(undefined)).toBeUndefined();
    expect(maskValue(null)).toBeUndefined();
    expect(maskValue(5)).toBe('*');
  });
});

describe('GraphQL read-back: edges a tenant or a payload can present', () => {
  const empty = { balance: 0, users: [] };
  it('non-objects in the payload or the record are not customers, ledgers or users', () => {
    for (const p of [null, 'x', [], 7]) expect(compareGraphqlAccount(p, empty)).toMatchObject({ checked: 8, matched: 8, differences: [] });
    expect(compareGraphqlAccount({ customers: ['x', null, [1]], ledgers: ['x'] }, empty).differences).toEqual([]);
    expect(compareGraphqlAccount({}, [0]).differences).toEqual([{ path: 'balance', field: 'balance', expected: '0', found: undefined }]);
    // Null entries in the record's lists are empty objects: the ledger and user are there, their fields are not.
    const nulls = { ...record(), ledgers: [null], users: [null] };
    expect(check(nulls).differences.map((d) => d.path)).toEqual([
      'ledgers.0.balance',
      'ledgers.0.amountOwedByCustomer',
      'users.0.givenName',
      'users.0.familyName',
      'users.0.email',
      'users.0.mobile',
      'users.0.landline',
      'users.0.dateOfBirth',
    ]);
    // Ledgers that are not a list: the ledger sent is lost.
    expect(check({ ...record(), ledgers: null }).differences).toEqual([{ path: 'ledgers.0', field: 'ledgers.*', expected: '4217', found: undefined }]);
    // An extra ledger without a balance changes no total: not a difference.
    const noBalance = record();
    noBalance.ledgers.push({ number: 'L-Z', ledgerType: 'DEBT', balance: null, amountOwedByCustomer: null });
    expect(check(noBalance).differences).toEqual([]);
  });

  it('differences count as checked leaves; missing items and extra ledgers carry their field', () => {
    const flipped = withReadBackFaults(record(), { graphqlFlipBalanceRate: 1, graphqlAlterNameRate: 0 });
    expect(check(flipped)).toMatchObject({ checked: 16, matched: 14 });
    const extra = record();
    extra.ledgers.push({ number: 'L-Y', ledgerType: 'DEBT', balance: -300, amountOwedByCustomer: 300 });
    expect(check(extra).differences).toEqual([{ path: 'ledgers.1', field: 'ledgers.*', expected: undefined, found: '-300' }]);
    expect(check({ ...record(), users: [] }).differences).toEqual([{ path: 'users.0', field: 'users.*', expected: 'H*****', found: undefined }]);
  });

  it('two ledgers sent with one identifier pair with two different ledgers', () => {
    const p: Record<string, any> = {
      transfer_balance: '3.00',
      ledgers: [
        { ledger_identifier: 'L-A', ledger_balance: '1.00' },
        { ledger_identifier: 'L-A', ledger_balance: '2.00' },
      ],
    };
    const found = {
      balance: 300,
      users: [],
      ledgers: [
        { number: 'L-A', balance: 100, amountOwedByCustomer: -100 },
        { number: 'L-A', balance: 200, amountOwedByCustomer: -200 },
      ],
    };
    expect(compareGraphqlAccount(p, found).differences).toEqual([]);
  });

  it('a customer keeps its best user: a second, different user is not compared; ties go to the earlier customer and user', () => {
    const found = record();
    found.users.push({ givenName: 'Zed', familyName: 'Other', email: 'z@example.com', mobile: '', landline: '', dateOfBirth: null });
    expect(check(found).differences).toEqual([]);
    const p = {
      customers: [
        { given_name: 'A', family_name: 'B' },
        { given_name: 'A', family_name: 'C' },
      ],
    };
    const two = {
      balance: 0,
      users: [
        { givenName: 'A', familyName: 'D', email: '', mobile: '', landline: '' },
        { givenName: 'A', familyName: 'E', email: '', mobile: '', landline: '' },
      ],
    };
    expect(compareGraphqlAccount(p, two).differences.map((d) => d.path)).toEqual(['users.0.familyName', 'users.1.familyName']);
    expect(compareGraphqlAccount(p, { ...two, users: two.users.slice(0, 1) }).differences.map((d) => d.path)).toEqual(['users.0.familyName', 'users.1']);
  });

  it('phone and e-mail edges', () => {
    expect(normalisePhone('07123 400789')).toBe('+447123400789');
    expect(normalisePhone('not a phone')).toBe('notaphone');
    expect(normaliseEmail('  ')).toBeUndefined();
  });
});
