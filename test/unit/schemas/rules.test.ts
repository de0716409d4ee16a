import { describe, expect, it } from 'vitest';
import type { EnergyAccount } from '../../../schemas/account';
import { exampleScheduleRequest, realisticAccount } from '../../../schemas/fixtures';
import { type ValidateOptions, validateAccount, validateScheduleRequest } from '../../../schemas/validate';

const TODAY = '2025-01-15';

/** The realistic account, broken by `mutate`; returns `{code, attr}` of every error. */
function errorsAfter(mutate: (a: any) => void, opts: ValidateOptions = {}): Array<{ code: string; attr: string }> {
  const account: any = realisticAccount();
  mutate(account);
  const result = validateAccount(account, { today: TODAY, ...opts });
  return result.ok ? [] : result.errors.map(({ code, attr }) => ({ code, attr }));
}

const elec = (a: any) => a.supply_addresses[0].meter_points[0];
const gas = (a: any) => a.supply_addresses[0].meter_points[1];
const MP0 = 'supply_addresses.0.meter_points.0';
const MP1 = 'supply_addresses.0.meter_points.1';

describe('field rules', () => {
  it('invalid_phone_number on a customer mobile', () => {
    expect(errorsAfter((a) => (a.customers[0].mobile = 'abcde'))).toEqual([{ code: 'invalid_phone_number', attr: 'customers.0.mobile' }]);
  });

  it('phone numbers are read in the configured default region', () => {
    // The UK mobile is written internationally, so only the landline depends on the region.
    const french = (a: any) => ((a.customers[0].landline = '0612345678'), (a.customers[0].mobile = '+447123456789'));
    expect(errorsAfter(french)).toEqual([{ code: 'invalid_phone_number', attr: 'customers.0.landline' }]);
    expect(errorsAfter(french, { defaultRegion: 'FR' })).toEqual([]);
  });

  it('invalid_phone_number on a property administrator', () => {
    const errors = errorsAfter((a) => (a.supply_addresses[0].property_administrators = [{ family_name: 'Willie', landline: '123' }]));
    expect(errors).toEqual([{ code: 'invalid_phone_number', attr: 'supply_addresses.0.property_administrators.0.landline' }]);
  });

  it('invalid_date for a date that is not on the calendar', () => {
    expect(errorsAfter((a) => (a.customers[0].date_of_birth = '2023-02-30'))).toEqual([{ code: 'invalid_date', attr: 'customers.0.date_of_birth' }]);
  });

  it('invalid_datetime for a datetime without the UTC marker', () => {
    expect(errorsAfter((a) => (a.notes[0].created_at = '2024-05-02T09:15:00+01:00'))).toEqual([{ code: 'invalid_datetime', attr: 'notes.0.created_at' }]);
    expect(errorsAfter((a) => (a.notes[0].created_at = '2024-05-02 09:15:00'))).toEqual([{ code: 'invalid_datetime', attr: 'notes.0.created_at' }]);
  });

  it('invalid_choice for a value outside the spec enum, including the meter point discriminator', () => {
    expect(errorsAfter((a) => (a.account_type = 'HOUSEHOLD'))).toEqual([{ code: 'invalid_choice', attr: 'account_type' }]);
    expect(errorsAfter((a) => (elec(a).meters[0].transfer_readings[0].reading_type = 'GUESS'))).toEqual([
      { code: 'invalid_choice', attr: `${MP0}.meters.0.transfer_readings.0.reading_type` },
    ]);
    expect(errorsAfter((a) => (gas(a).supply_type = 'WATER'))).toContainEqual({ code: 'invalid_choice', attr: `${MP1}.supply_type` });
  });

  it('tenant lists (campaign slug, import supplier) are free strings', () => {
    expect(errorsAfter((a) => ((a.account_campaigns[0].slug = 'anything_at_all'), (a.import_supplier = 'ANY_SUPPLIER')))).toEqual([]);
  });

  it('required inside a supplied optional object or array item', () => {
    expect(errorsAfter((a) => delete elec(a).meters[0].registers[0].number_of_digits)).toEqual([
      { code: 'required', attr: `${MP0}.meters.0.registers.0.number_of_digits` },
    ]);
    expect(errorsAfter((a) => (elec(a).smart_refusal_interest = { type: 'INTERESTED' }))).toEqual([
      { code: 'required', attr: `${MP0}.smart_refusal_interest.date` },
    ]);
    expect(errorsAfter((a) => delete a.import_supplier)).toEqual([{ code: 'required', attr: 'import_supplier' }]);
  });

  it('null where the spec does not allow it', () => {
    expect(errorsAfter((a) => (gas(a).shipper_mpid = null))).toEqual([{ code: 'null', attr: `${MP1}.shipper_mpid` }]);
  });

  it('blank for a required string that is empty or whitespace', () => {
    expect(errorsAfter((a) => (a.supply_addresses[0].supply_address1 = '   '))).toEqual([{ code: 'blank', attr: 'supply_addresses.0.supply_address1' }]);
    expect(errorsAfter((a) => (a.import_supplier = ''))).toEqual([{ code: 'blank', attr: 'import_supplier' }]);
  });

  it('max_length past the spec maxLength', () => {
    expect(errorsAfter((a) => (a.customers[0].title = 'x'.repeat(21)))).toEqual([{ code: 'max_length', attr: 'customers.0.title' }]);
  });

  it('money and readings must be decimal strings', () => {
    expect(errorsAfter((a) => (a.transfer_balance = 42.17))).toEqual([{ code: 'invalid', attr: 'transfer_balance' }]);
    expect(errorsAfter((a) => (gas(a).meters[0].transfer_readings[0].reading_value = '4,512'))).toEqual([
      { code: 'invalid', attr: `${MP1}.meters.0.transfer_readings.0.reading_value` },
    ]);
  });

  it('invalid_supply_point_identifier for an MPAN with a wrong check digit', () => {
    expect(errorsAfter((a) => (elec(a).identifier = '2000024512369'))).toEqual([{ code: 'invalid_supply_point_identifier', attr: `${MP0}.identifier` }]);
  });

  it('invalid_postcode on supply and billing postcodes; case and spacing are normalised', () => {
    expect(errorsAfter((a) => (a.supply_addresses[0].supply_postcode = 'XYZ 123'))).toEqual([
      { code: 'invalid_postcode', attr: 'supply_addresses.0.supply_postcode' },
    ]);
    expect(errorsAfter((a) => (a.billing_postcode = '12345'))).toEqual([{ code: 'invalid_postcode', attr: 'billing_postcode' }]);
    expect(errorsAfter((a) => (a.billing_postcode = 'ox51ab'))).toEqual([]);
  });
});

describe('cross-field rules', () => {
  it('start_date_later_than_end_date when an agreement ends before it starts', () => {
    const errors = errorsAfter((a) => (elec(a).agreements[1].effective_to = '2023-03-01'));
    expect(errors).toContainEqual({ code: 'start_date_later_than_end_date', attr: `${MP0}.agreements.1.effective_to` });
  });

  it('start_date_later_than_end_date on a payment schedule and a supply end', () => {
    expect(errorsAfter((a) => (a.payment_schedules[0].end_date = '2023-01-01'))).toEqual([
      { code: 'start_date_later_than_end_date', attr: 'payment_schedules.0.end_date' },
    ]);
    expect(errorsAfter((a) => (gas(a).supply_end_date = '2019-01-01'))).toContainEqual({
      code: 'start_date_later_than_end_date',
      attr: `${MP1}.supply_end_date`,
    });
  });

  it('billing_address_new_style_and_legacy when both styles are given', () => {
    expect(errorsAfter((a) => (a.billing_address = { country: 'GB', postal_code: 'OX5 1AB', street_address: '14 Orchard Lane' }))).toEqual([
      { code: 'billing_address_new_style_and_legacy', attr: 'billing_address' },
    ]);
  });

  it('the new-style billing address alone is accepted, and its GB postcode checked', () => {
    const newStyle = (a: any) => {
      for (const k of ['billing_address1', 'billing_address2', 'billing_postcode']) delete a[k];
      a.billing_address = { country: 'GB', postal_code: 'OX5 1AB', street_address: '14 Orchard Lane', locality: 'Kidlington' };
    };
    expect(errorsAfter(newStyle)).toEqual([]);
    expect(errorsAfter((a) => (newStyle(a), (a.billing_address.postal_code = 'NOPE')))).toEqual([
      { code: 'invalid_postcode', attr: 'billing_address.postal_code' },
    ]);
  });

  it('billing_address_not_provided without billing_address1, except for occupier accounts', () => {
    expect(errorsAfter((a) => delete a.billing_address1)).toEqual([{ code: 'billing_address_not_provided', attr: 'billing_address1' }]);
    expect(errorsAfter((a) => (a.billing_postcode = ''))).toEqual([{ code: 'billing_address_not_provided', attr: 'billing_postcode' }]);
    expect(errorsAfter((a) => (delete a.billing_address1, (a.account_type = 'DOMESTIC_OCCUPIER')))).toEqual([]);
  });

  it('duplicate_meter_points_provided for the same MPxN twice on one supply address', () => {
    const errors = errorsAfter((a) => a.supply_addresses[0].meter_points.push(structuredClone(elec(a))));
    expect(errors).toEqual([{ code: 'duplicate_meter_points_provided', attr: 'supply_addresses.0.meter_points.2.identifier' }]);
  });

  it('duplicate_meter_points_on_different_supply_addresses_provided for the same MPxN on a second supply address', () => {
    const errors = errorsAfter((a) => {
      const second = structuredClone(a.supply_addresses[0]);
      second.supply_address1 = '2 Other Street';
      second.meter_points = [structuredClone(elec(a))];
      a.supply_addresses.push(second);
    });
    const mpxn = errors.filter((e) => e.code.startsWith('duplicate_meter_points'));
    expect(mpxn).toEqual([{ code: 'duplicate_meter_points_on_different_supply_addresses_provided', attr: 'supply_addresses.1.meter_points.0.identifier' }]);
  });

  it('meter_point_with_no_agreement for a meter point on supply, not for one that left supply', () => {
    expect(errorsAfter((a) => (gas(a).agreements = []))).toEqual([{ code: 'meter_point_with_no_agreement', attr: `${MP1}.agreements` }]);
    // Off supply: no agreement needed (its final reading on the end date is, see no_reading_on_supply_end_date).
    const leftSupply = (a: any) => ((gas(a).agreements = []), (gas(a).supply_end_date = gas(a).meters[0].transfer_readings[0].reading_date));
    expect(errorsAfter(leftSupply)).toEqual([]);
  });

  it('meter_point_with_no_meters when no meter is active', () => {
    expect(errorsAfter((a) => delete gas(a).meters)).toEqual([{ code: 'meter_point_with_no_meters', attr: `${MP1}.meters` }]);
    expect(errorsAfter((a) => (gas(a).meters[0].removed_on = '2024-12-01'))).toEqual([{ code: 'meter_point_with_no_meters', attr: `${MP1}.meters` }]);
  });

  it('missing_transfer_reading_for_register for a settlement register without a transfer reading', () => {
    const drop = (a: any) => elec(a).meters[0].transfer_readings.pop();
    expect(errorsAfter(drop)).toEqual([{ code: 'missing_transfer_reading_for_register', attr: `${MP0}.meters.0.registers.1` }]);
    expect(errorsAfter((a) => (drop(a), (elec(a).meters[0].registers[1].is_settlement = false)))).toEqual([]);
  });

  it('gaps_or_overlaps_in_agreement_dates for a gap, an overlap, or an agreement after an open-ended one', () => {
    const at = { code: 'gaps_or_overlaps_in_agreement_dates', attr: `${MP0}.agreements.1.effective_from` };
    expect(errorsAfter((a) => (elec(a).agreements[1].effective_from = '2023-04-05'))).toEqual([at]);
    expect(errorsAfter((a) => (elec(a).agreements[1].effective_from = '2023-03-01'))).toEqual([at]);
    expect(errorsAfter((a) => delete elec(a).agreements[0].effective_to)).toEqual([at]);
  });

  it('agreements that ended before the supply start may leave gaps', () => {
    const historic = { tariff_code: 'E-OLD', effective_from: '2015-01-01', effective_to: '2016-01-01' };
    expect(errorsAfter((a) => elec(a).agreements.unshift(historic))).toEqual([]);
  });

  it('customer_family_name_required on a domestic account', () => {
    expect(errorsAfter((a) => delete a.customers[0].family_name)).toEqual([{ code: 'customer_family_name_required', attr: 'customers.0.family_name' }]);
  });

  it('customer_given_name_required on a business account', () => {
    const errors = errorsAfter((a) => ((a.account_type = 'BUSINESS'), (a.customers[0].given_name = '')));
    expect(errors).toEqual([{ code: 'customer_given_name_required', attr: 'customers.0.given_name' }]);
  });

  it('date_in_future for a consent signed after today', () => {
    const consent = { type: 'MARKETING', value: 'ACCEPTED', signed_at: '2025-02-01T09:00:00Z' };
    // consents replace customer_preferences (the two are mutually exclusive).
    const withConsent = (a: any) => ((a.customers[0].consents = [consent]), delete a.customers[0].customer_preferences);
    expect(errorsAfter(withConsent)).toEqual([{ code: 'date_in_future', attr: 'customers.0.consents.0.signed_at' }]);
    expect(errorsAfter(withConsent, { today: '2025-02-01' })).toEqual([]);
  });

  it('transaction_in_future for a ledger transaction after today', () => {
    expect(errorsAfter((a) => (a.ledgers[0].current_statement_transactions[0].transaction_date = '2025-01-16'))).toEqual([
      { code: 'transaction_in_future', attr: 'ledgers.0.current_statement_transactions.0.transaction_date' },
    ]);
  });

  it('invalid_document_path for a note document that escapes the supplier root', () => {
    expect(errorsAfter((a) => (a.notes[0].document_paths[0].document_path = '/../other-supplier/x.pdf'))).toEqual([
      { code: 'invalid_document_path', attr: 'notes.0.document_paths.0.document_path' },
    ]);
  });
});

describe('reporting', () => {
  it('returns every error, sorted by attr', () => {
    const errors = errorsAfter((a) => {
      a.supply_addresses[0].supply_postcode = 'nope';
      a.customers[0].mobile = '12';
      delete a.billing_address1;
      gas(a).agreements = [];
    });
    expect(errors).toEqual([
      { code: 'billing_address_not_provided', attr: 'billing_address1' },
      { code: 'invalid_phone_number', attr: 'customers.0.mobile' },
      { code: 'meter_point_with_no_agreement', attr: `${MP1}.agreements` },
      { code: 'invalid_postcode', attr: 'supply_addresses.0.supply_postcode' },
    ]);
  });

  it('a non-object payload is one invalid error at the root', () => {
    expect(validateAccount('nope')).toEqual({ ok: false, errors: [expect.objectContaining({ code: 'invalid', attr: '' })] });
  });
});

describe('schedule window (task_params)', () => {
  const now = new Date('2025-01-15T12:00:00Z');
  const request = (task_params: object) => ({ ...exampleScheduleRequest({ now }), task_params });
  const codes = (body: unknown) => {
    const r = validateScheduleRequest(body, { now, today: TODAY });
    return r.ok ? [] : r.errors.map(({ code, attr }) => ({ code, attr }));
  };

  it('accepts a window opening now-ish and closing within 4 days', () => {
    expect(codes(request({ schedule_window_start: '2025-01-15T12:05:00Z', schedule_window_end: '2025-01-19T11:00:00Z' }))).toEqual([]);
  });

  it('schedule_window_start_in_past', () => {
    expect(codes(request({ schedule_window_start: '2025-01-15T11:59:00Z', schedule_window_end: '2025-01-16T00:00:00Z' }))).toEqual([
      { code: 'schedule_window_start_in_past', attr: 'task_params.schedule_window_start' },
    ]);
  });

  it('schedule_window_end_too_far_in_future past 4 days', () => {
    expect(codes(request({ schedule_window_start: '2025-01-15T13:00:00Z', schedule_window_end: '2025-01-19T12:00:01Z' }))).toEqual([
      { code: 'schedule_window_end_too_far_in_future', attr: 'task_params.schedule_window_end' },
    ]);
  });

  it('schedule_window_start__after_end', () => {
    expect(codes(request({ schedule_window_start: '2025-01-16T13:00:00Z', schedule_window_end: '2025-01-16T12:00:00Z' }))).toEqual([
      { code: 'schedule_window_start__after_end', attr: 'task_params.schedule_window_start' },
    ]);
  });

  it('payload attrs are prefixed with payload.', () => {
    const body: any = request({});
    body.payload.customers[0].mobile = 'x';
    expect(codes(body)).toEqual([{ code: 'invalid_phone_number', attr: 'payload.customers.0.mobile' }]);
  });
});

// Keeps the type import honest: the fixture is an EnergyAccount.
const _typed: EnergyAccount = realisticAccount();
void _typed;
