import { describe, expect, it } from 'vitest';
import { energyAccountSchema, scheduleAccountCreationSchema } from '../../../schemas/account';
import { applyBalanceFields } from '../../../schemas/balance-fields';
import { unmodelledPaths } from '../../../schemas/contract-coverage';
import { ZOD_ISSUE_CODES } from '../../../schemas/errors';
import { realisticAccount } from '../../../schemas/fixtures';
import { validateAccount } from '../../../schemas/validate';
import { everyField, filledWhileValid, pathsOf } from './contract-payload';
import { exampleOf } from './spec';

/**
 * "What the team sends is what the platform receives": a payload holding every property the
 * contract declares on EnergyAccount and everything it nests, built from the contract itself
 * (contract-payload.ts), is accepted field by field and passed on unchanged.
 */

// Codes of field checks (type, format, length, enum, presence) and of keys the schema would refuse.
const FIELD_CODES = new Set<string>([
  ...Object.values(ZOD_ISSUE_CODES),
  'blank',
  'invalid_date',
  'invalid_datetime',
  'invalid_phone_number',
  'invalid_postcode',
  'invalid_supply_point_identifier',
  'invalid_delivery_point_identifier',
  'undocumented_field',
  'documented_field_not_modelled',
]);

const ALL_PATHS = pathsOf(everyField('EnergyAccount'));
// The paths COVERAGE.md listed as "left out" before every documented field was modelled.
const FORMERLY_LEFT_OUT = [
  'affiliate_subdomain',
  'billing_address.name',
  'billing_address.organization',
  'billing_address.structured_street_address',
  'business.business_contract_identifier',
  'business.business_contract_identifiers',
  'business.portfolios',
  'business.segment_name',
  'business.users',
  'business_type',
  'commission_contracts',
  'company_number',
  'complaints',
  'contribution_agreements',
  'customers.details',
  'dd_reference',
  'debt',
  'fit',
  'is_managed',
  'is_portfolio_lead',
  'last_statement_balance',
  'last_statement_closing_date',
  'last_statement_issue_date',
  'partner_organisations',
  'payment_adequacy_changes',
  'payment_plans',
  'payment_promises',
  'portfolio',
  'supply_addresses.meter_points.agents',
  'supply_addresses.meter_points.agreements.bespoke_tariff_rates',
  'supply_addresses.meter_points.agreements.characteristics',
  'supply_addresses.meter_points.agreements.intermediary',
  'supply_addresses.meter_points.agreements.rate_overrides',
  'supply_addresses.meter_points.capacity_values',
  'supply_addresses.meter_points.configuration_periods',
  'supply_addresses.meter_points.dc_to_appoint',
  'supply_addresses.meter_points.mop_to_appoint',
  'supply_addresses.meter_points.smart_site_visit',
  'supply_addresses.property_administrators.address1',
  'supply_addresses.property_administrators.postcode',
];

describe('a payload with every documented field, built from the contract', () => {
  const payload = everyField('EnergyAccount');

  it('holds every property the contract declares, the formerly left-out ones among them', () => {
    expect(ALL_PATHS.size).toBeGreaterThan(600);
    for (const p of FORMERLY_LEFT_OUT) expect(ALL_PATHS, p).toContain(p);
    // Nothing the contract declares is left out of the schema any more.
    expect(unmodelledPaths()).toEqual([]);
  });

  it('is accepted field by field and comes out of the schema deep-equal', () => {
    const parsed = energyAccountSchema.safeParse(payload);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    expect(parsed.data).toStrictEqual(payload);
    const body = { payload, task_params: { is_dry_run: false, schedule_window_start: null, schedule_window_end: null } };
    expect(scheduleAccountCreationSchema.safeParse(body).data).toStrictEqual(body);
  });

  it("meets only cross-field rules in validate (the contract's own exclusive pairs), never a field check", () => {
    const result = validateAccount(payload, { today: '2019-08-05' });
    expect(result.ok).toBe(false);
    const codes = result.ok ? [] : [...new Set(result.errors.map((e) => e.code))];
    expect(codes.filter((c) => FIELD_CODES.has(c))).toEqual([]);
    // Fields the contract makes exclusive cannot all be valid at once: that is the rules' doing.
    expect(codes).toContain('billing_address_new_style_and_legacy');
  });

  it('refuses an undocumented key at that key, listing every such key, next to every documented one', () => {
    const typo: any = structuredClone(payload);
    typo.customers[0].familyname = 'Smith';
    typo.supply_addresses[0].suppy_postcode = 'OX5 1AB';
    typo.supply_addresses[0].meter_points[0].configuration_periods[0].gsp_group = '_A';
    const result = validateAccount(typo, { today: '2019-08-05' });
    const unknown = result.ok ? [] : result.errors.filter((e) => e.code === 'undocumented_field' || e.code === 'documented_field_not_modelled');
    expect(unknown.map((e) => [e.code, e.attr])).toEqual([
      ['undocumented_field', 'customers.0.familyname'],
      ['undocumented_field', 'supply_addresses.0.meter_points.0.configuration_periods.0.gsp_group'],
      ['undocumented_field', 'supply_addresses.0.suppy_postcode'],
    ]);
  });
});

describe('valid payloads filled from the contract with every field the rules allow', () => {
  const today = '2019-08-05';
  const now = new Date().toISOString().slice(0, 10);
  const newStyleAddress = () => {
    const a: any = realisticAccount();
    for (const k of ['billing_address1', 'billing_address2', 'billing_address3', 'billing_address4', 'billing_address5', 'billing_postcode']) delete a[k];
    a.billing_address = { country: 'GB', postal_code: 'OX5 1AB', street_address: '14 Orchard Lane', locality: 'Kidlington' };
    return a;
  };
  // Valid accounts of different shapes, each filled from the contract while the client's own
  // validation (rules included) still passes.
  // `skip`: a field not to add, so that the one the rules make exclusive with it gets its turn
  // (properties are added in the contract's order, and the first of a pair would always win).
  const bases: Array<[string, unknown, string, string[]]> = [
    ['the spec example', exampleOf('/v2/data-import/accounts/'), today, []],
    ['the realistic fixture', realisticAccount(), now, []],
    ['the realistic fixture, new-style billing address', newStyleAddress(), now, []],
    ['the realistic fixture, the other side of exclusive pairs', realisticAccount(), now, ['last_payment_review_date', 'supply_addresses.meter_points.agents']],
  ];
  const filled = bases.map(([name, base, day, skip]) => ({
    name,
    day,
    payload: filledWhileValid(base, 'EnergyAccount', (p) => validateAccount(p, { today: day }).ok, new Set(skip)),
  }));

  it.each(filled.map((f) => [f.name, f] as const))('%s: validates and is sent exactly as written (validate, balance fields, request body)', (_name, f) => {
    const sent = structuredClone(f.payload);
    const result = validateAccount(sent, { today: f.day });
    expect(result.ok ? [] : result.errors).toEqual([]);
    if (!result.ok) return;
    const shaped = applyBalanceFields(result.value, 'ledgers');
    expect(shaped.ok).toBe(true);
    if (!shaped.ok) return;
    // What the client POSTs, as JSON on the wire.
    const wire = JSON.parse(JSON.stringify({ payload: shaped.payload, task_params: { is_dry_run: true } }));
    expect(wire.payload).toStrictEqual(f.payload);
    expect(sent).toStrictEqual(f.payload); // and validation changed nothing in place
  });

  it('together hold the formerly left-out fields and nearly all documented ones', () => {
    const covered = new Set(filled.flatMap((f) => [...pathsOf(f.payload)]));
    const missing = FORMERLY_LEFT_OUT.filter((p) => !covered.has(p));
    expect(missing).toEqual([]);
    // What the rules keep apart from these bases (exclusive pairs, domestic-only limits, dated
    // transactions) is covered by the everything-at-once payload above.
    expect(covered.size / ALL_PATHS.size).toBeGreaterThan(0.85);
  });
});
