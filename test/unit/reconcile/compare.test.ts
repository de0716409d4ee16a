import { describe, expect, it } from 'vitest';
import { compareAccount, differencesByField, expectedAccountRecord } from '../../../reconcile/compare';
import { minimalAccountPayload } from '../../../sandbox/fixtures';
import { accountRecordFromPayload, alterField } from '../../../sandbox/post-import/account-record';

const payload: Record<string, any> = {
  ...minimalAccountPayload({ supplier: 'DEMO-SUPPLIER', externalAccountNumber: 'ACC-1' }),
  transfer_balance: '-12.50',
  customers: [
    { given_name: 'Ada', family_name: 'Lovelace' },
    { given_name: 'Charles', family_name: 'Babbage' },
  ],
};
(payload.supply_addresses as any[])[0].meter_points.push({ identifier: '1234567890', supply_type: 'GAS', mpid: 'X', shipper_mpid: 'Y', supply_start_date: '2024-01-01' });
(payload.supply_addresses as any[])[0].meter_points.push({ identifier: '1100000000001', supply_type: 'ELECTRICITY', mpid: 'X', supply_start_date: '2024-01-01' });

describe('account reconciliation', () => {
  it('finds no difference when the platform shows what was sent (the sandbox builds its record independently)', () => {
    const found = accountRecordFromPayload('A-1', payload);
    const r = compareAccount(expectedAccountRecord(payload, 'A-1'), found);
    expect(r.differences).toEqual([]);
    // number, balance, 2 × 2 names, address line, postcode, moved in/out, 2 MPANs, 1 MPRN
    expect(r.checked).toBe(13);
  });

  it('names the altered field with its dot path, expected and found values', () => {
    const found = alterField(accountRecordFromPayload('A-1', payload), 'customers.1.family_name');
    const r = compareAccount(expectedAccountRecord(payload, 'A-1'), found);
    expect(r.differences).toEqual([{ path: 'customers.1.family_name', field: 'customers.*.family_name', expected: 'Babbage', found: 'Babbage-ALTERED' }]);
    expect(differencesByField(r.differences)).toEqual({ 'customers.*.family_name': 1 });
  });

  it('reports missing fields, extra array items and a wrong account number; tolerates order, postcode spacing and decimal form', () => {
    const found = accountRecordFromPayload('A-2', payload) as any;
    delete found.customers[0].given_name;
    found.properties[0].electricity_meter_points.reverse();
    found.properties[0].postcode = 'w1f9de';
    found.balance = '-12.5';
    found.properties[0].gas_meter_points.push({ mprn: '999' });
    found.unrelated_field = 'ignored';
    const r = compareAccount(expectedAccountRecord(payload, 'A-1'), found);
    expect(r.differences.map((d) => [d.path, d.expected, d.found])).toEqual([
      ['number', 'A-1', 'A-2'],
      ['customers.0.given_name', 'Ada', undefined],
      ['properties.0.gas_meter_points.1', undefined, { mprn: '999' }],
    ]);
  });

  it('a response without an expected list is one difference, not a crash', () => {
    const r = compareAccount(expectedAccountRecord(payload, 'A-1'), { number: 'A-1', balance: '-12.50', properties: [] });
    expect(r.differences.map((d) => d.path)).toEqual(['customers', 'properties.0']);
  });
});
