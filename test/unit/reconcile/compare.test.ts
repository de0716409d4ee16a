import { describe, expect, it } from 'vitest';
import { compareAccount, differencesByField, expectedAccountRecord, londonMidnight, sameLocalDate } from '../../../reconcile/compare';
import { realisticAccount } from '../../../schemas/fixtures';
import { accountRecordFromPayload, alterField, omitFields } from '../../../harness/sandbox/post-import/account-record';
import { londonMidnightIso } from '../../../harness/sandbox/time';

// One supply address: an Economy 7 electricity point (two registers, two agreements) and a gas point.
const payload: Record<string, any> = realisticAccount();
const E0 = 'properties.0.electricity_meter_points.0';

const check = (found: unknown, number = 'A-1') => compareAccount(expectedAccountRecord(payload, number), found);
const fieldsOf = (xs: Array<{ field: string }>) => [...new Set(xs.map((x) => x.field))].sort();

describe('account reconciliation against the documented account record', () => {
  it('a record in the documented shape matches: nothing differs, nothing unverified (balance and customers are read through GraphQL)', () => {
    const r = check(accountRecordFromPayload('A-1', payload));
    expect(r.differences).toEqual([]);
    expect(r.unverified).toEqual([]);
    // number; 6 address leaves, moved in/out; MPAN, profile class, serial, 2 × (register id,
    // settlement), 2 × (tariff, from, to); MPRN, serial, tariff, from, to.
    expect(r.checked).toBe(1 + 8 + 1 + 1 + 1 + 4 + 6 + 5);
    expect(r.matched).toBe(r.checked);
    expect(r.byField[`properties.*.electricity_meter_points.*.agreements.*.tariff_code`]).toEqual({ matched: 2, differing: 0, unverified: 0 });
    expect(r.byField.balance).toBeUndefined();
  });

  it('customers and balance a tenant adds to the REST record are not compared there (the GraphQL read-back checks them)', () => {
    const r = check(alterField(accountRecordFromPayload('A-1', payload, { extras: true }), 'customers.0.family_name'));
    expect(r.differences).toEqual([]);
    expect(r.unverified).toEqual([]);
    expect(r.checked).toBe(check(accountRecordFromPayload('A-1', payload)).checked);
  });

  it('a changed tariff code is one difference at its agreement, and nothing else', () => {
    const r = check(alterField(accountRecordFromPayload('A-1', payload), `${E0}.agreements.1.tariff_code`));
    expect(r.differences).toEqual([
      {
        path: `${E0}.agreements.1.tariff_code`,
        field: 'properties.*.electricity_meter_points.*.agreements.*.tariff_code',
        expected: 'E-2R-FIX-23-04-01-C',
        found: 'E-2R-FIX-23-04-01-C-ALTERED',
      },
    ]);
    expect(differencesByField(r.differences)).toEqual({ 'properties.*.electricity_meter_points.*.agreements.*.tariff_code': 1 });
  });

  it('a changed meter serial, address line or agreement date shows at its leaf', () => {
    let found = alterField(accountRecordFromPayload('A-1', payload), `${E0}.meters.0.serial_number`);
    found = alterField(found, 'properties.0.address_line_1');
    found = alterField(found, 'properties.0.gas_meter_points.0.meters.0.serial_number');
    (found.properties[0].electricity_meter_points[0].agreements[0] as any).valid_to = '2023-04-02T00:00:00+01:00';
    expect(check(found).differences.map((d) => [d.path, d.expected, d.found])).toEqual([
      ['properties.0.address_line_1', '14 Orchard Lane', '14 Orchard Lane-ALTERED'],
      [`${E0}.meters.0.serial_number`, 'E14UP18345', 'E14UP18345-ALTERED'],
      [`${E0}.agreements.0.valid_to`, '2023-04-01', '2023-04-02T00:00:00+01:00'],
      ['properties.0.gas_meter_points.0.meters.0.serial_number', 'G4A00512345678', 'G4A00512345678-ALTERED'],
    ]);
  });

  it('a record without a whole section leaves it unverified, never differing', () => {
    const found = omitFields(accountRecordFromPayload('A-1', payload), [
      'properties.*.gas_meter_points',
      `properties.0.electricity_meter_points.0.meters.0.registers`,
      'properties.0.moved_in_at',
    ]);
    const r = check(found);
    expect(r.differences).toEqual([]);
    expect(fieldsOf(r.unverified)).toEqual([
      'properties.*.electricity_meter_points.*.meters.*.registers.*.identifier',
      'properties.*.electricity_meter_points.*.meters.*.registers.*.is_settlement_register',
      'properties.*.gas_meter_points.*.agreements.*.tariff_code',
      'properties.*.gas_meter_points.*.agreements.*.valid_from',
      'properties.*.gas_meter_points.*.agreements.*.valid_to',
      'properties.*.gas_meter_points.*.meters.*.serial_number',
      'properties.*.gas_meter_points.*.mprn',
      'properties.*.moved_in_at',
    ]);
    expect(r.byField['properties.*.electricity_meter_points.*.meters.*.registers.*.identifier']).toEqual({ matched: 0, differing: 0, unverified: 2 });
    // A record with nothing but its number: every leaf unverified, none differing.
    const bare = check({ number: 'A-1' });
    expect(bare.differences).toEqual([]);
    expect(bare.matched).toBe(1);
    expect(bare.unverified.length).toBe(check(accountRecordFromPayload('A-1', payload)).checked - 1);
  });

  it('pairs meter points, meters, registers and agreements by identifier in any order; postcode spacing and case, empty strings', () => {
    const two = structuredClone(payload);
    const second = structuredClone(two.supply_addresses[0].meter_points[0]);
    second.identifier = '1100000000001';
    second.meters[0].meter_serial_number = 'E99XX00001';
    two.supply_addresses[0].meter_points.push(second);
    const found = accountRecordFromPayload('A-1', two) as any;
    const property = found.properties[0];
    property.postcode = 'ox51ab';
    property.address_line_3 = null;
    property.county = undefined;
    property.electricity_meter_points.reverse();
    property.electricity_meter_points[1].meters[0].registers.reverse();
    property.electricity_meter_points[1].agreements.reverse();
    const r = compareAccount(expectedAccountRecord(two, 'A-1'), found);
    expect(r.differences).toEqual([]);
    // Paths are the record's: the first point sent is the record's second, its agreements reversed.
    const path = 'properties.0.electricity_meter_points.1.agreements.0.tariff_code';
    expect(compareAccount(expectedAccountRecord(two, 'A-1'), alterField(found, path)).differences.map((d) => [d.path, d.expected])).toEqual([
      [path, 'E-2R-FIX-23-04-01-C'],
    ]);
  });

  it('reports a wrong account number, a missing and an extra meter point, and a list that is not a list', () => {
    const found = accountRecordFromPayload('A-2', payload) as any;
    found.properties[0].electricity_meter_points = [];
    found.properties[0].gas_meter_points.push({ mprn: '999', consumption_standard: null, meters: [], agreements: [] });
    const r = check(found);
    expect(r.differences.map((d) => [d.path, d.found === undefined ? 'absent' : 'found'])).toEqual([
      ['number', 'found'],
      [`${E0}`, 'absent'],
      ['properties.0.gas_meter_points.1', 'found'],
    ]);
    expect(check({ number: 'A-1', properties: null }).differences.map((d) => d.path)).toEqual(['properties']);
  });
});

describe('a payload date against a record datetime (Europe/London midnight, any offset)', () => {
  // 2024: summer time began on Sunday 31 March and ended on Sunday 27 October, at 01:00 UTC.
  it.each([
    ['2024-03-30', '2024-03-30T00:00:00Z', true],
    ['2024-03-31', '2024-03-31T00:00:00Z', true], // the day of the change: its midnight is still GMT
    ['2024-03-31', '2024-03-31T00:00:00+00:00', true],
    ['2024-03-31', '2024-03-31T00:00:00+01:00', false], // 23:00 on the 30th
    ['2024-04-01', '2024-04-01T00:00:00+01:00', true],
    ['2024-04-01', '2024-03-31T23:00:00Z', true],
    ['2024-04-01', '2024-04-01T00:00:00Z', false], // 01:00 BST
    ['2024-10-27', '2024-10-27T00:00:00+01:00', true], // the day summer time ends: its midnight is still BST
    ['2024-10-27', '2024-10-26T23:00:00Z', true],
    ['2024-10-27', '2024-10-27T00:00:00Z', false],
    ['2024-10-28', '2024-10-28T00:00:00Z', true],
    ['2024-10-28', '2024-10-28T00:00:00+01:00', false],
    ['2023-04-01', '2023-04-01T00:00:00+01:00', true], // the documented example's form
    ['2023-04-01', '2023-04-01', true],
    ['2023-04-01', '2023-04-01T00:00:00', false], // no offset: not an instant
    ['2023-04-01', null, false],
  ])('%s ≡ %s: %s', (date, datetime, expected) => {
    expect(sameLocalDate(date, datetime)).toBe(expected);
  });

  it('null equals only null (an open-ended agreement or a current address)', () => {
    expect(sameLocalDate(null, null)).toBe(true);
    expect(sameLocalDate(null, '2024-01-01T00:00:00Z')).toBe(false);
  });

  it("agrees with the sandbox's own rendering on every day of 2023 to 2025", () => {
    const wrong: string[] = [];
    for (let ms = Date.UTC(2023, 0, 1); ms < Date.UTC(2026, 0, 1); ms += 86_400_000) {
      const day = new Date(ms).toISOString().slice(0, 10);
      if (!sameLocalDate(day, londonMidnightIso(day))) wrong.push(day);
    }
    expect(wrong).toEqual([]);
    expect(londonMidnightIso('2024-10-27')).toBe('2024-10-27T00:00:00+01:00');
    expect(londonMidnightIso('2024-10-28')).toBe('2024-10-28T00:00:00Z');
    expect(londonMidnight('2024-03-31')).toBe(Date.UTC(2024, 2, 31));
    expect(londonMidnight('2024-04-01')).toBe(Date.UTC(2024, 2, 31, 23));
  });
});
