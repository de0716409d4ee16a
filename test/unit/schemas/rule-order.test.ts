import { describe, expect, it } from 'vitest';
import { accountRuleErrors } from '../../../schemas/rules';
import { validateAccount } from '../../../schemas/validate';
import { exampleOf } from './spec';

const EXAMPLE_DAY = '2019-08-05';
const pairs = (errors: Array<{ code: string; attr: string }>) => errors.map(({ code, attr }) => [code, attr]);
const validated = (payload: unknown) => {
  const r = validateAccount(payload, { today: EXAMPLE_DAY });
  return r.ok ? [] : pairs(r.errors);
};
const raw = (payload: unknown) => pairs(accountRuleErrors(payload, { today: EXAMPLE_DAY }));

/** The spec example with two customers that trip every customer rule at once. */
function customersPayload(): any {
  const a = exampleOf('/v2/data-import/accounts/');
  const c0 = a.customers[0];
  Object.assign(c0, {
    given_name: 'The Occupier',
    family_name: '',
    email: 'test@example.com',
    psr: [{ effective_from: '2019-01-02', effective_to: '2019-01-01' }],
    consents: [
      { type: 'MARKETING', value: 'ACCEPTED', signed_at: '2030-01-01T00:00:00Z' },
      { type: 'MARKETING', value: 'ACCEPTED', signed_at: '2019-01-01T00:00:00Z' },
    ],
    metadata: [
      { key: 'k', value: {} },
      { key: 'k', value: {} },
    ],
    user_details: [{ namespace: 'external_user_id', value: 'U1' }],
  });
  a.customers.push({ ...structuredClone(c0), given_name: 'Ann', family_name: 'Lee', email: 'ann@example.org', psr: [], consents: [], metadata: [] });
  a.unknown_occupier = true;
  return a;
}

/** The spec example with its meter points broken where the meter-point rules meet on one field. */
function meterPointsPayload(): any {
  const a = exampleOf('/v2/data-import/accounts/');
  const [elec, gas] = a.supply_addresses[0].meter_points;
  elec.agreements[0].effective_to = '2019-07-01';
  elec.dr_in_progress = true;
  const meter = elec.meters[0];
  meter.smart_commissioned_on = '2030-01-01';
  meter.registers.push({ register_id: '1', tpr: '00001', number_of_digits: 5 });
  gas.aq_history.push({ effective_from: '2016-01-01', consumption: '8700' });
  gas.meters[0].transfer_readings = [];
  return a;
}

// validateAccount sorts its errors by (attr, code) (sortErrors in schemas/errors.ts), and the first
// of them is the code and field a failed account records (activities/prepare.ts): that order does
// not depend on which file a rule lives in, and these pins hold it. accountRuleErrors' raw order is
// pinned too: it is one pass customer by customer (schemas/rules-customers.ts) and meter point by
// meter point (schemas/rules-meters.ts), where the checks of one customer or meter point used to
// come out in two or three separate passes.
describe('the order errors come out in when several rules fire at once', () => {
  it('customer rules: the recorded (first) error and the whole sorted list', () => {
    const errors = validated(customersPayload());
    expect(errors[0]).toEqual(['customer_with_unknown_occupier', 'customers']);
    expect(errors).toEqual([
      ['customer_with_unknown_occupier', 'customers'],
      ['contact_details_for_occupier', 'customers.0'],
      ['customer_may_not_be_named_the_occupier', 'customers.0'],
      ['fields_are_mutually_exclusive', 'customers.0.consents'],
      ['date_in_future', 'customers.0.consents.0.signed_at'],
      ['children_with_duplicate_values', 'customers.0.consents.1.type'],
      ['possible_test_email_address', 'customers.0.email'],
      ['customer_family_name_required', 'customers.0.family_name'],
      ['metadata_has_duplicate_keys', 'customers.0.metadata.1.key'],
      ['psr_industry_code_not_provided', 'customers.0.psr.0'],
      ['start_date_later_than_end_date', 'customers.0.psr.0.effective_to'],
      ['repeated_values_for_unique_customer_detail_namespace', 'customers.1.user_details.0.value'],
    ]);
  });

  it('customer rules: the raw emission order of accountRuleErrors', () => {
    expect(raw(customersPayload())).toEqual([
      ['customer_with_unknown_occupier', 'customers'],
      ['customer_family_name_required', 'customers.0.family_name'],
      ['customer_may_not_be_named_the_occupier', 'customers.0'],
      ['contact_details_for_occupier', 'customers.0'],
      ['possible_test_email_address', 'customers.0.email'],
      ['psr_industry_code_not_provided', 'customers.0.psr.0'],
      ['start_date_later_than_end_date', 'customers.0.psr.0.effective_to'],
      ['date_in_future', 'customers.0.consents.0.signed_at'],
      ['children_with_duplicate_values', 'customers.0.consents.1.type'],
      ['fields_are_mutually_exclusive', 'customers.0.consents'],
      ['metadata_has_duplicate_keys', 'customers.0.metadata.1.key'],
      ['repeated_values_for_unique_customer_detail_namespace', 'customers.1.user_details.0.value'],
    ]);
  });

  it('meter-point rules: the recorded (first) error and the whole sorted list', () => {
    const errors = validated(meterPointsPayload());
    expect(errors[0]).toEqual(['start_date_later_than_end_date', 'supply_addresses.0.meter_points.0.agreements.0.effective_to']);
    expect(errors).toEqual([
      ['start_date_later_than_end_date', 'supply_addresses.0.meter_points.0.agreements.0.effective_to'],
      ['disputed_read_in_progress', 'supply_addresses.0.meter_points.0.dr_in_progress'],
      ['meter_with_duplicate_register_ids', 'supply_addresses.0.meter_points.0.meters.0.registers.2.register_id'],
      ['registers_have_duplicate_tprs', 'supply_addresses.0.meter_points.0.meters.0.registers.2.tpr'],
      ['future_smart_meter_commission_date', 'supply_addresses.0.meter_points.0.meters.0.smart_commissioned_on'],
      ['smart_details_provided_for_non_smart_meter', 'supply_addresses.0.meter_points.0.meters.0.smart_commissioned_on'],
      ['gaps_or_overlaps_in_aq_history', 'supply_addresses.0.meter_points.1.aq_history.2.effective_from'],
      ['multiple_open_ended_aqs_in_meterpoint_aq_history', 'supply_addresses.0.meter_points.1.aq_history.3.effective_to'],
      ['active_gas_meter_without_transfer_reading', 'supply_addresses.0.meter_points.1.meters.0.transfer_readings'],
    ]);
  });

  it('meter-point rules: the raw emission order of accountRuleErrors', () => {
    expect(raw(meterPointsPayload())).toEqual([
      ['start_date_later_than_end_date', 'supply_addresses.0.meter_points.0.agreements.0.effective_to'],
      ['future_smart_meter_commission_date', 'supply_addresses.0.meter_points.0.meters.0.smart_commissioned_on'],
      ['meter_with_duplicate_register_ids', 'supply_addresses.0.meter_points.0.meters.0.registers.2.register_id'],
      ['registers_have_duplicate_tprs', 'supply_addresses.0.meter_points.0.meters.0.registers.2.tpr'],
      ['disputed_read_in_progress', 'supply_addresses.0.meter_points.0.dr_in_progress'],
      ['smart_details_provided_for_non_smart_meter', 'supply_addresses.0.meter_points.0.meters.0.smart_commissioned_on'],
      ['active_gas_meter_without_transfer_reading', 'supply_addresses.0.meter_points.1.meters.0.transfer_readings'],
      ['multiple_open_ended_aqs_in_meterpoint_aq_history', 'supply_addresses.0.meter_points.1.aq_history.3.effective_to'],
      ['gaps_or_overlaps_in_aq_history', 'supply_addresses.0.meter_points.1.aq_history.2.effective_from'],
    ]);
  });
});
