import { describe, expect, it } from 'vitest';
import { realisticAccount } from '../../../schemas/fixtures';
import { validateAccount } from '../../../schemas/validate';

/**
 * Fields modelled from the contract (contract-zod.ts) are checked by what the contract states of
 * each: presence, type, enum, format, decimal digits, length, bounds, list size, nullability,
 * strictness; errors in the platform's {code, attr, detail} shape at dot paths.
 */

const TODAY = '2024-06-20';
function fieldErrors(edit: (a: any) => void): string[] {
  const a: any = realisticAccount();
  edit(a);
  const r = validateAccount(a, { today: TODAY });
  return r.ok ? [] : r.errors.map((e) => `${e.code} ${e.attr}`);
}

const promise = (over: object = {}) => ({ amount: '25.00', payment_date: '2024-07-01', ...over });
const visit = (over: object = {}) => ({
  date: '2024-01-02',
  metering_agent: 'SMS',
  reference_number: 'R1',
  status: 'SUCCESSFUL',
  work_category: 'EXCHANGE',
  ...over,
});
const elec = (a: any) => a.supply_addresses[0].meter_points[0];

describe('fields modelled from the contract', () => {
  it('valid values are accepted and kept', () => {
    const a: any = realisticAccount();
    a.payment_promises = [promise()];
    elec(a).smart_site_visit = [visit({ additional_data: { any: ['json', 1] } })];
    a.affiliate_subdomain = null;
    const r = validateAccount(a, { today: TODAY });
    expect(r.ok ? [] : r.errors).toEqual([]);
    expect(r.ok && r.value).toStrictEqual(a);
  });

  it('a required property missing, null where not nullable, of the wrong type', () => {
    expect(fieldErrors((a) => (a.payment_promises = [{ amount: '25.00' }]))).toEqual(['required payment_promises.0.payment_date']);
    expect(fieldErrors((a) => (a.payment_promises = [promise({ ledger_code: null })]))).toEqual(['null payment_promises.0.ledger_code']);
    expect(fieldErrors((a) => (a.payment_promises = promise()))).toEqual(['not_a_list payment_promises']);
    expect(fieldErrors((a) => (a.payment_promises = [promise({ amount: 25 })]))).toEqual(['invalid payment_promises.0.amount']);
  });

  it("formats: the decimal pattern's digits, dates, datetimes, times, emails", () => {
    expect(fieldErrors((a) => (a.payment_promises = [promise({ amount: '25.001' })]))).toEqual(['invalid payment_promises.0.amount']);
    expect(fieldErrors((a) => (a.payment_promises = [promise({ amount: '123456789.00' })]))).toEqual(['invalid payment_promises.0.amount']);
    expect(fieldErrors((a) => (a.payment_promises = [promise({ payment_date: '2024-02-30' })]))).toEqual(['invalid_date payment_promises.0.payment_date']);
    expect(
      fieldErrors((a) => (a.partner_organisations = [{ organisation_number: 'P', role: 'x', valid_from: '2024-01-01', valid_to: '2024-01-02T00:00:00Z' }])),
    ).toEqual(['invalid_datetime partner_organisations.0.valid_from']);
    const rate = (start_time: string) => ({ standing_charge: '1.00', registers: [{ register_id: '1', unit_rate: '0.2', start_time }] });
    expect(fieldErrors((a) => (elec(a).agreements[0].bespoke_tariff_rates = [rate('07:30')]))).toEqual([]);
    expect(fieldErrors((a) => (elec(a).agreements[0].bespoke_tariff_rates = [rate('25:00')]))).toEqual([
      'invalid supply_addresses.0.meter_points.0.agreements.0.bespoke_tariff_rates.0.registers.0.start_time',
    ]);
    const complaint = {
      complainant_email: 'not-an-email',
      complainant_name: 'A',
      complaint_contacts: [],
      created_at: '2024-01-01T00:00:00Z',
      has_chsr_letter_been_sent: true,
      has_eight_week_letter_been_sent: false,
      subtype_of_complaint: 's',
      type_of_complaint: 't',
    };
    expect(fieldErrors((a) => (a.complaints = [complaint]))).toEqual(['invalid complaints.0.complainant_email']);
  });

  it('enums, lengths, integer bounds, list sizes, phone numbers', () => {
    expect(fieldErrors((a) => (elec(a).smart_site_visit = [visit({ status: 'DONE' })]))).toEqual([
      'invalid_choice supply_addresses.0.meter_points.0.smart_site_visit.0.status',
    ]);
    expect(fieldErrors((a) => (elec(a).smart_site_visit = [visit({ appointment_notes: 'x'.repeat(2049) })]))).toEqual([
      'max_length supply_addresses.0.meter_points.0.smart_site_visit.0.appointment_notes',
    ]);
    expect(fieldErrors((a) => (elec(a).smart_site_visit = [visit({ reference_number: ' ' })]))).toEqual([
      'blank supply_addresses.0.meter_points.0.smart_site_visit.0.reference_number',
    ]);
    const payment = (total: number) => ({ payment_date: '2024-07-01', total_amount: total, amount_components: [{ amount: total, component_type: 'X' }] });
    expect(
      fieldErrors((a) => (a.payment_plans = [{ accepted_at: '2024-01-01T00:00:00Z', schedule_means: 'DD', strategy_name: 's', payments: [payment(-1)] }])),
    ).toEqual(['min_value payment_plans.0.payments.0.amount_components.0.amount', 'min_value payment_plans.0.payments.0.total_amount']);
    expect(fieldErrors((a) => (a.business = { portfolios: [{ portfolio_references: [] }] }))).toEqual([
      'min_length business.portfolios.0.portfolio_references',
    ]);
    expect(fieldErrors((a) => (a.business = { users: [{ business_roles: ['ADMIN'], mobile: '12345' }] }))).toEqual([
      'invalid_phone_number business.users.0.mobile',
    ]);
  });

  it('objects stay strict: a key the contract does not declare inside a modelled object is undocumented at its path', () => {
    expect(fieldErrors((a) => (a.payment_promises = [promise({ amout: '1.00' })]))).toEqual(['undocumented_field payment_promises.0.amout']);
    // A free-form object (`params`) takes any keys, but must be an object.
    expect(
      fieldErrors(
        (a) => (
          (a.billing_address1 = undefined),
          (a.billing_address2 = undefined),
          (a.billing_postcode = undefined),
          (a.billing_address = { country: 'GB', structured_street_address: 'x' })
        ),
      ),
    ).toContain('invalid billing_address.structured_street_address');
  });
});
