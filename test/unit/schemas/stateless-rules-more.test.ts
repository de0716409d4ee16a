import { describe, expect, it } from 'vitest';
import { validateAccount } from '../../../schemas/validate';
import { exampleOf } from './spec';

// The rest of the spec's stateless x-validators (schemas/rules-payments.ts, rules-meters.ts,
// rules-account.ts), each on the spec's own example payload broken in one place. The example is
// valid as given (first test); its "today" is the day after its last transaction.
const EXAMPLE_DAY = '2019-08-05';

type Found = Array<{ code: string; attr: string }>;
function errorsAfter(mutate: (a: any) => void): Found {
  const account = exampleOf('/v2/data-import/accounts/');
  mutate(account);
  const r = validateAccount(account, { today: EXAMPLE_DAY });
  return r.ok ? [] : r.errors.map(({ code, attr }) => ({ code, attr }));
}
const only = (code: string, attr: string) => [{ code, attr }];

const MP0 = 'supply_addresses.0.meter_points.0';
const MP1 = 'supply_addresses.0.meter_points.1';
const elec = (a: any) => a.supply_addresses[0].meter_points[0];
const gas = (a: any) => a.supply_addresses[0].meter_points[1];
const ledger = (a: any) => a.ledgers[0];
const schedule = (a: any) => a.payment_schedules[1];

describe('the spec example', () => {
  it('passes every rule as given (two open-ended schedules: one is a debt repayment plan)', () => {
    expect(errorsAfter(() => {})).toEqual([]);
  });
});

describe('payment schedules', () => {
  it('payment_schedules_ledger_code_uniformity_failed', () => {
    expect(errorsAfter((a) => (schedule(a).ledger_code = 'MAIN'))).toEqual(only('payment_schedules_ledger_code_uniformity_failed', 'payment_schedules'));
    expect(errorsAfter((a) => a.payment_schedules.forEach((s: any) => (s.ledger_code = 'MAIN')))).toEqual([]);
  });

  it('zero_payment_schedule_amount (a schedule not triggered by BILL)', () => {
    expect(errorsAfter((a) => (schedule(a).amount = '0.00'))).toEqual(only('zero_payment_schedule_amount', 'payment_schedules.1.amount'));
    expect(errorsAfter((a) => ((schedule(a).amount = '0.00'), (schedule(a).trigger = 'BILL')))).toEqual([]);
  });

  it('fixed_payment_schedule_missing_frequency and fixed_payment_schedule_missing_day_of_month (no trigger = REGULAR)', () => {
    expect(errorsAfter((a) => delete schedule(a).frequency)).toEqual(only('fixed_payment_schedule_missing_frequency', 'payment_schedules.1.frequency'));
    expect(errorsAfter((a) => (schedule(a).day_of_month = null))).toEqual(
      only('fixed_payment_schedule_missing_day_of_month', 'payment_schedules.1.day_of_month'),
    );
  });

  it('invalid_payment_schedule_to_exempt_from_payment_adequacy', () => {
    expect(errorsAfter((a) => Object.assign(schedule(a), { trigger: 'BILL', exempt_from_payment_adequacy: true }))).toEqual(
      only('invalid_payment_schedule_to_exempt_from_payment_adequacy', 'payment_schedules.1.exempt_from_payment_adequacy'),
    );
    expect(errorsAfter((a) => (schedule(a).exempt_from_payment_adequacy = true))).toEqual([]);
  });

  it('payment_schedule_delay_strategy_missing_delay_days and payment_schedule_delay_must_have_bill_trigger', () => {
    expect(errorsAfter((a) => Object.assign(schedule(a), { trigger: 'BILL', delay_strategy: 'FIXED' }))).toEqual(
      only('payment_schedule_delay_strategy_missing_delay_days', 'payment_schedules.1.delay_days'),
    );
    expect(errorsAfter((a) => Object.assign(schedule(a), { delay_strategy: 'FIXED', delay_days: 3 }))).toEqual(
      only('payment_schedule_delay_must_have_bill_trigger', 'payment_schedules.1.trigger'),
    );
    expect(errorsAfter((a) => Object.assign(schedule(a), { trigger: 'BILL', delay_strategy: 'FIXED', delay_days: 3 }))).toEqual([]);
  });

  it('payment_instalments_not_provided, _do_not_sum_to_total, _date_outside_of_payment_schedule_active_period, children_with_duplicate_values', () => {
    const plan = (a: any, instalments?: unknown[]) =>
      Object.assign(schedule(a), { trigger: 'PLAN', end_date: '2019-12-31', ...(instalments ? { instalments } : {}) });
    const inst = (amount: string, payment_date: string) => ({ amount, payment_date });
    expect(errorsAfter((a) => plan(a))).toEqual(only('payment_instalments_not_provided', 'payment_schedules.1.instalments'));
    expect(errorsAfter((a) => plan(a, [inst('30.00', '2019-09-02'), inst('30.00', '2019-10-02')]))).toEqual([]);
    expect(errorsAfter((a) => plan(a, [inst('30.00', '2019-09-02'), inst('20.00', '2019-10-02')]))).toEqual(
      only('payment_instalments_do_not_sum_to_total', 'payment_schedules.1.instalments'),
    );
    expect(errorsAfter((a) => plan(a, [inst('30.00', '2019-09-02'), inst('30.00', '2020-01-02')]))).toEqual(
      only('payment_instalments_date_outside_of_payment_schedule_active_period', 'payment_schedules.1.instalments.1.payment_date'),
    );
    expect(errorsAfter((a) => plan(a, [inst('30.00', '2019-09-02'), inst('30.00', '2019-09-02')]))).toEqual(
      only('children_with_duplicate_values', 'payment_schedules.1.instalments.1.payment_date'),
    );
  });

  it('multiple_open_ended_payment_schedules within a ledger group (debt repayment plans aside)', () => {
    const another = { amount: '10.00', day_of_month: 5, frequency: 'MONTHLY', means: 'DD', start_date: '2019-01-01' };
    const errors = errorsAfter((a) => a.payment_schedules.push(another));
    expect(errors).toContainEqual({ code: 'multiple_open_ended_payment_schedules', attr: 'payment_schedules.2.end_date' });
    // In another ledger group it is that group's only open-ended schedule.
    const elsewhere = (a: any) => {
      a.payment_schedules.forEach((s: any) => (s.ledger_code = 'MAIN'));
      a.payment_schedules.push({ ...another, ledger_code: 'OTHER' });
    };
    expect(errorsAfter(elsewhere)).toEqual([]);
  });

  it('payment_schedule_date_overlaps: same start or strictly overlapping dates; a shared boundary day is left to the platform', () => {
    const next = (start: string) => (a: any) => (
      (schedule(a).end_date = '2019-06-01'),
      a.payment_schedules.push({ amount: '70.00', day_of_month: 2, frequency: 'MONTHLY', means: 'DD', start_date: start })
    );
    expect(errorsAfter(next('2019-05-01'))).toEqual(only('payment_schedule_date_overlaps', 'payment_schedules.2.start_date'));
    expect(errorsAfter(next('2018-01-01'))).toEqual(only('payment_schedule_date_overlaps', 'payment_schedules.2.start_date'));
    expect(errorsAfter(next('2019-06-01'))).toEqual([]);
    expect(errorsAfter(next('2019-06-02'))).toEqual([]);
  });
});

describe('payment instructions and preferences', () => {
  const instruction = (extra: object = {}) => ({ type: 'DIRECT_DEBIT', vendor: 'STRIPE', reference: 'R-1', ...extra });

  it('payment_instructions_ledger_code_uniformity_failed', () => {
    expect(errorsAfter((a) => (a.payment_instructions = [instruction({ ledger_code: 'MAIN' }), instruction({ reference: 'R-2' })]))).toEqual(
      only('payment_instructions_ledger_code_uniformity_failed', 'payment_instructions'),
    );
  });

  it('invalid_payment_preference_ledger_identifier: the ledger must be in the payload', () => {
    const pref = (a: any) => (a.payment_preferences = [{ type: 'PASSIVE', ledger_identifier: 'L-9' }]);
    expect(errorsAfter(pref)).toEqual(only('invalid_payment_preference_ledger_identifier', 'payment_preferences.0.ledger_identifier'));
    expect(errorsAfter((a) => (pref(a), (ledger(a).ledger_identifier = 'L-9')))).toEqual([]);
  });

  it('active_new_payment_preference_invalid_instruction_identifier: the instruction must be in the payload', () => {
    const setUp = (id: string) => (a: any) => {
      ledger(a).ledger_identifier = 'L-1';
      a.payment_instructions = [instruction({ instruction_identifier: 'I-1' })];
      a.payment_preferences = [{ type: 'ACTIVE_NEW', ledger_identifier: 'L-1', instruction_reference_params: { instruction_identifier: id } }];
    };
    expect(errorsAfter(setUp('I-2'))).toEqual(
      only('active_new_payment_preference_invalid_instruction_identifier', 'payment_preferences.0.instruction_reference_params.instruction_identifier'),
    );
    expect(errorsAfter(setUp('I-1'))).toEqual([]);
  });
});

describe('ledgers and statement transactions', () => {
  it('duplicate_ledger_entries_found and duplicate_identifiers_entries_found', () => {
    expect(errorsAfter((a) => ((ledger(a).ledger_code = 'MAIN'), a.ledgers.push({ ledger_code: 'MAIN', ledger_balance: '0.00' })))).toEqual(
      only('duplicate_ledger_entries_found', 'ledgers.1.ledger_code'),
    );
    expect(errorsAfter((a) => ((ledger(a).ledger_identifier = 'L-1'), a.ledgers.push({ ledger_identifier: 'L-1', ledger_balance: '0.00' })))).toEqual(
      only('duplicate_identifiers_entries_found', 'ledgers.1.ledger_identifier'),
    );
  });

  it('historical_statement_transactions_without_last_statement_closing_date_or_last_billed_to_date', () => {
    expect(errorsAfter((a) => (delete ledger(a).last_statement_closing_date, delete a.last_billed_to_date))).toEqual(
      only('historical_statement_transactions_without_last_statement_closing_date_or_last_billed_to_date', 'ledgers.0.last_statement_closing_date'),
    );
    expect(errorsAfter((a) => delete ledger(a).last_statement_closing_date)).toEqual([]);
  });

  it('historical_statement_transaction_after_last_statement_closing_date and _after_current_statement_transaction', () => {
    expect(errorsAfter((a) => (ledger(a).historical_statement_transactions[0].transaction_date = '2019-08-01'))).toEqual(
      only('historical_statement_transaction_after_last_statement_closing_date', 'ledgers.0.historical_statement_transactions.0.transaction_date'),
    );
    expect(errorsAfter((a) => (ledger(a).historical_statement_transactions[0].transaction_date = '2019-08-05'))).toContainEqual({
      code: 'historical_statement_transaction_after_current_statement_transaction',
      attr: 'ledgers.0.historical_statement_transactions.0.transaction_date',
    });
  });

  it('current_statement_transaction_before_current_statement_opening_date (the day after the closing date)', () => {
    const closedLater = (a: any) => Object.assign(ledger(a), { last_statement_closing_date: '2019-08-04', last_statement_issue_date: '2019-08-04' });
    expect(errorsAfter(closedLater)).toEqual(
      only('current_statement_transaction_before_current_statement_opening_date', 'ledgers.0.current_statement_transactions.0.transaction_date'),
    );
  });

  it('current_statement_transaction_before_last_billed_to_date', () => {
    expect(errorsAfter((a) => (a.last_billed_to_date = '2019-08-05'))).toContainEqual({
      code: 'current_statement_transaction_before_last_billed_to_date',
      attr: 'ledgers.0.current_statement_transactions.0.transaction_date',
    });
  });

  it('billing_document_identifier_not_allowed_for_current_statement_transactions and historical_statement_billing_document_identifier_mismatch', () => {
    expect(errorsAfter((a) => (ledger(a).current_statement_transactions[0].billing_document_identifier = 'B-1'))).toEqual(
      only(
        'billing_document_identifier_not_allowed_for_current_statement_transactions',
        'ledgers.0.current_statement_transactions.0.billing_document_identifier',
      ),
    );
    const docs = (first: string, second: string) => (a: any) => {
      ledger(a).historical_statement_transactions[0].billing_document_identifier = first;
      ledger(a).historical_statement_transactions[1].billing_document_identifier = second;
    };
    expect(errorsAfter(docs('B-1', 'B-2'))).toEqual(
      only('historical_statement_billing_document_identifier_mismatch', 'ledgers.0.historical_statement_transactions.1.billing_document_identifier'),
    );
    expect(errorsAfter(docs('B-1', 'B-1'))).toEqual([]);
  });

  it('transactions_target_non_initialised_prepay_meter: the serial number of a meter with prepay_details', () => {
    const vend = (serial: string) => (a: any) =>
      ledger(a).current_statement_transactions.push({
        transaction_id: '5',
        transaction_date: '2019-08-05',
        amount: '5.00',
        type: 'PAYMENT',
        to_prepay_meter_serial_number: serial,
      });
    expect(errorsAfter(vend('NOPE'))).toEqual(
      only('transactions_target_non_initialised_prepay_meter', 'ledgers.0.current_statement_transactions.2.to_prepay_meter_serial_number'),
    );
    expect(errorsAfter(vend('54BV'))).toEqual([]);
  });

  it('historical_statement_transactions_balance_mismatch and balance_mismatch_on_transfer_balance (payments and credits add, the rest subtract)', () => {
    expect(errorsAfter((a) => (ledger(a).historical_statement_transactions[1].amount = '15.00'))).toEqual(
      only('historical_statement_transactions_balance_mismatch', 'ledgers.0.last_statement_balance'),
    );
    expect(errorsAfter((a) => (ledger(a).current_statement_transactions[1].amount = '25.00'))).toEqual(
      only('balance_mismatch_on_transfer_balance', 'ledgers.0.ledger_balance'),
    );
  });

  describe('supply charges', () => {
    const TX = 'ledgers.0.current_statement_transactions.2';
    /** Adds a 12.00 supply charge (10.00 net + 2.00 VAT) and lowers the balances to match. */
    const withCharge =
      (change: (t: any) => void = () => {}) =>
      (a: any) => {
        const t = {
          transaction_id: '6',
          transaction_date: '2019-08-05',
          amount: '12.00',
          type: 'SUPPLY_CHARGE',
          product_code: 'ELEC-1234',
          line_items: [{ start_date: '2019-08-01', end_date: '2019-08-05', net_amount: '10.00', number_of_units: '100', rate_band: 'STANDARD' }],
          tax_items: [{ amount: '2.00', rate: '0.2', tax_type: 'VAT', unit_type: 'PROPORTION', value_taxed: '10.00' }],
        };
        change(t);
        ledger(a).current_statement_transactions.push(t);
        a.transfer_balance = ledger(a).ledger_balance = '18.00';
      };

    it('a well-formed supply charge passes', () => {
      expect(errorsAfter(withCharge())).toEqual([]);
    });

    it('conflicting_rate_band_specification, line_item_units_must_be_two_values', () => {
      expect(errorsAfter(withCharge((t) => delete t.line_items[0].rate_band))).toEqual(only('conflicting_rate_band_specification', `${TX}.line_items.0`));
      expect(errorsAfter(withCharge((t) => (t.line_items[0].time_series_specification_code = 'TS')))).toEqual(
        only('conflicting_rate_band_specification', `${TX}.line_items.0`),
      );
      expect(errorsAfter(withCharge((t) => (t.line_items[0].units = ['1'])))).toEqual(only('line_item_units_must_be_two_values', `${TX}.line_items.0.units`));
    });

    it('supply_point_identifier_required_for_rate_specification_code', () => {
      const spec = (t: any) => ((t.line_items[0].rate_specification_code = 'RS-1'), delete t.line_items[0].rate_band);
      expect(errorsAfter(withCharge(spec))).toEqual(only('supply_point_identifier_required_for_rate_specification_code', `${TX}.supply_point_identifier`));
      expect(errorsAfter(withCharge((t) => (spec(t), (t.supply_point_identifier = '1200060176720'))))).toEqual([]);
    });

    it('ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount', () => {
      expect(errorsAfter(withCharge((t) => (t.line_items[0].net_amount = '9.00')))).toEqual(
        only('ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount', `${TX}.amount`),
      );
    });
  });
});

describe('meter points, meters and readings', () => {
  const elecMeter = (a: any) => elec(a).meters[0];
  const gasMeter = (a: any) => gas(a).meters[0];

  it('registers_missing_for_active_electricity_meter', () => {
    expect(errorsAfter((a) => delete elecMeter(a).registers)).toEqual(only('registers_missing_for_active_electricity_meter', `${MP0}.meters.0.registers`));
  });

  it('reading_without_register_id and reading_register_id_not_recognised (transfer readings)', () => {
    expect(errorsAfter((a) => delete elecMeter(a).transfer_readings[0].register_id)).toContainEqual({
      code: 'reading_without_register_id',
      attr: `${MP0}.meters.0.transfer_readings.0.register_id`,
    });
    expect(errorsAfter((a) => (elecMeter(a).transfer_readings[0].register_id = '9'))).toContainEqual({
      code: 'reading_register_id_not_recognised',
      attr: `${MP0}.meters.0.transfer_readings.0.register_id`,
    });
  });

  it('no_register_id_for_reading and historical_reading_register_id_not_recognised (reading history)', () => {
    expect(errorsAfter((a) => delete elecMeter(a).reading_history[0].register_id)).toEqual(
      only('no_register_id_for_reading', `${MP0}.meters.0.reading_history.0.register_id`),
    );
    expect(errorsAfter((a) => (elecMeter(a).reading_history[0].register_id = '9'))).toEqual(
      only('historical_reading_register_id_not_recognised', `${MP0}.meters.0.reading_history.0.register_id`),
    );
  });

  it('electricity_prepay_meter_without_customer_reference_number and invalid_prepay_customer_reference_number', () => {
    const at = `${MP0}.meters.0.prepay_customer_reference_number`;
    expect(errorsAfter((a) => (elecMeter(a).is_prepay = true))).toEqual(only('electricity_prepay_meter_without_customer_reference_number', at));
    expect(errorsAfter((a) => Object.assign(elecMeter(a), { is_prepay: true, prepay_customer_reference_number: '1234 5678' }))).toEqual([]);
    expect(errorsAfter((a) => Object.assign(elecMeter(a), { is_prepay: true, prepay_customer_reference_number: 'AB-1234' }))).toEqual(
      only('invalid_prepay_customer_reference_number', at),
    );
  });

  it('prepay_details_on_non_prepay_meter', () => {
    expect(errorsAfter((a) => (gasMeter(a).is_prepay = false))).toEqual(only('prepay_details_on_non_prepay_meter', `${MP1}.meters.0.prepay_details`));
  });

  it('smart_details_provided_for_non_smart_meter (smart_type absent or NONE)', () => {
    expect(errorsAfter((a) => (elecMeter(a).smart_device_id = '01-23-45-67-89-AB-CD-EF'))).toEqual(
      only('smart_details_provided_for_non_smart_meter', `${MP0}.meters.0.smart_device_id`),
    );
    expect(errorsAfter((a) => Object.assign(gasMeter(a), { smart_type: 'NONE', smart_commissioned_on: '2019-01-01' }))).toEqual(
      only('smart_details_provided_for_non_smart_meter', `${MP1}.meters.0.smart_commissioned_on`),
    );
    expect(errorsAfter((a) => (gasMeter(a).smart_commissioned_on = '2019-01-01'))).toEqual([]);
  });

  it('billed_reading_after_last_billed_to_date (register level)', () => {
    expect(errorsAfter((a) => (elecMeter(a).registers[0].last_billed_to_date = '2019-06-01'))).toContainEqual({
      code: 'billed_reading_after_last_billed_to_date',
      attr: `${MP0}.meters.0.reading_history.0.reading_date`,
    });
  });

  it('transfer_reading_dates_must_match_last_billed_to_date (the account-level date unless the meter or register has one)', () => {
    expect(errorsAfter((a) => (gasMeter(a).transfer_readings[0].reading_date = '2019-07-31'))).toEqual(
      only('transfer_reading_dates_must_match_last_billed_to_date', `${MP1}.meters.0.transfer_readings.0.reading_date`),
    );
    expect(errorsAfter((a) => ((gasMeter(a).transfer_readings[0].reading_date = '2019-07-31'), (gasMeter(a).last_billed_to_date = '2019-07-31')))).toEqual([]);
  });

  it('repeated_eac_for_tpr and missing_eacs_for_active_register_tpr (settlement registers)', () => {
    expect(errorsAfter((a) => (elec(a).eac_history[1].effective_from = '2019-10-01'))).toEqual(only('repeated_eac_for_tpr', `${MP0}.eac_history.1`));
    expect(errorsAfter((a) => elec(a).eac_history.forEach((e: any) => (e.tpr = '00002')))).toEqual(
      only('missing_eacs_for_active_register_tpr', `${MP0}.meters.0.registers.0.tpr`),
    );
  });

  it('gaps_or_overlaps_in_aq_history (each entry starts the day after the previous ends) and no_current_or_future_aq_entry_found', () => {
    expect(errorsAfter((a) => (gas(a).aq_history[1].effective_to = '2018-12-30'))).toEqual(
      only('gaps_or_overlaps_in_aq_history', `${MP1}.aq_history.0.effective_from`),
    );
    expect(errorsAfter((a) => (gas(a).aq_history[1].effective_to = '2019-01-01'))).toEqual(
      only('gaps_or_overlaps_in_aq_history', `${MP1}.aq_history.0.effective_from`),
    );
    expect(errorsAfter((a) => (gas(a).aq_history[0].effective_to = '2019-06-30'))).toEqual(only('no_current_or_future_aq_entry_found', `${MP1}.aq_history`));
  });

  it('future_supply_end_date and loss_in_progress', () => {
    const errors = errorsAfter((a) => (elec(a).supply_end_date = '2019-09-01'));
    expect(errors).toContainEqual({ code: 'future_supply_end_date', attr: `${MP0}.supply_end_date` });
    expect(errors).toContainEqual({ code: 'loss_in_progress', attr: `${MP0}.supply_end_date` });
    expect(errors).toHaveLength(2);
  });

  it('future_supply_start_date for a billable meter point', () => {
    expect(errorsAfter((a) => (gas(a).supply_start_date = '2019-09-01'))).toContainEqual({
      code: 'future_supply_start_date',
      attr: `${MP1}.supply_start_date`,
    });
  });

  it('disputed_read_in_progress and smart_refusal_reason_given_for_interest', () => {
    expect(errorsAfter((a) => (gas(a).dr_in_progress = true))).toEqual(only('disputed_read_in_progress', `${MP1}.dr_in_progress`));
    expect(errorsAfter((a) => (elec(a).smart_refusal_interest.type = 'INTERESTED'))).toEqual(
      only('smart_refusal_reason_given_for_interest', `${MP0}.smart_refusal_interest.refusal_reason`),
    );
  });

  it('no_reading_on_supply_end_date for a meter point off supply', () => {
    expect(errorsAfter((a) => (elec(a).supply_end_date = '2019-07-01'))).toContainEqual({
      code: 'no_reading_on_supply_end_date',
      attr: `${MP0}.supply_end_date`,
    });
    expect(errorsAfter((a) => (elec(a).supply_end_date = '2019-06-20'))).not.toContainEqual({
      code: 'no_reading_on_supply_end_date',
      attr: `${MP0}.supply_end_date`,
    });
  });

  it('no_supply_point_on_supply when every meter point has left supply', () => {
    expect(errorsAfter((a) => ((elec(a).supply_end_date = '2019-08-01'), (gas(a).supply_end_date = '2019-08-01')))).toEqual(
      only('no_supply_point_on_supply', 'supply_addresses'),
    );
  });

  it('no_agreement_covering_last_billed_to_date', () => {
    expect(errorsAfter((a) => (elec(a).agreements[0].effective_from = '2019-08-02'))).toEqual(
      only('no_agreement_covering_last_billed_to_date', `${MP0}.agreements`),
    );
  });
});

describe('customers, account type, addresses and lists', () => {
  const bob = (a: any) => a.customers[0];

  it('customer_may_not_be_named_the_occupier and contact_details_for_occupier', () => {
    const occupier = (a: any) => Object.assign(bob(a), { given_name: 'The', family_name: 'Occupier' });
    const errors = errorsAfter(occupier);
    expect(errors).toContainEqual({ code: 'customer_may_not_be_named_the_occupier', attr: 'customers.0' });
    expect(errors).toContainEqual({ code: 'contact_details_for_occupier', attr: 'customers.0' });
    expect(errorsAfter((a) => (occupier(a), delete bob(a).email, delete bob(a).mobile, delete bob(a).landline))).toEqual(
      only('customer_may_not_be_named_the_occupier', 'customers.0'),
    );
  });

  it('possible_test_email_address', () => {
    expect(errorsAfter((a) => (bob(a).email = 'test@jablonski.com'))).toEqual(only('possible_test_email_address', 'customers.0.email'));
    expect(errorsAfter((a) => (bob(a).email = 'bob@test.co.uk'))).toEqual(only('possible_test_email_address', 'customers.0.email'));
    expect(errorsAfter((a) => (bob(a).email = 'contest@jablonski.com'))).toEqual([]);
  });

  it('children_with_duplicate_values for consent types and business detail keys; fields_are_mutually_exclusive', () => {
    const consent = { type: 'MARKETING', value: 'ACCEPTED' };
    expect(errorsAfter((a) => (a.consents = [consent, { ...consent, value: 'REJECTED' }]))).toEqual(only('children_with_duplicate_values', 'consents.1.type'));
    expect(
      errorsAfter(
        (a) =>
          (a.business = {
            details: [
              { key: 'vat_number', value: 'GB1' },
              { key: 'vat_number', value: 'GB2' },
            ],
          }),
      ),
    ).toEqual(only('children_with_duplicate_values', 'business.details.1.key'));
    expect(errorsAfter((a) => (bob(a).consents = [consent]))).toEqual(only('fields_are_mutually_exclusive', 'customers.0.consents'));
  });

  it('repeated_values_for_unique_customer_detail_namespace (external_user_id)', () => {
    const detail = [{ namespace: 'external_user_id', value: 'U-1' }];
    const two = (a: any) => ((bob(a).user_details = detail), a.customers.push({ given_name: 'Alice', family_name: 'Jabłońska', user_details: detail }));
    expect(errorsAfter(two)).toEqual(only('repeated_values_for_unique_customer_detail_namespace', 'customers.1.user_details.0.value'));
  });

  it('billing_email_not_valid', () => {
    expect(errorsAfter((a) => (a.billing_email = 'blackhole+bob@jablonski.com'))).toEqual(only('billing_email_not_valid', 'billing_email'));
  });

  it('business_fields_provided_for_domestic_accounts and account_billing_options_provided_for_domestic_accounts', () => {
    expect(errorsAfter((a) => (a.business = { company_number: '01234567' }))).toEqual(
      only('business_fields_provided_for_domestic_accounts', 'business.company_number'),
    );
    expect(errorsAfter((a) => (a.account_billing_options = { use_industry_billing: true }))).toEqual(
      only('account_billing_options_provided_for_domestic_accounts', 'account_billing_options'),
    );
  });

  it('billing options on a business account: industry billing or a period, quarterly needs next_bill_due_date', () => {
    const business =
      (options: object, extra: (a: any) => void = () => {}) =>
      (a: any) => ((a.account_type = 'BUSINESS'), (a.account_billing_options = options), extra(a));
    expect(errorsAfter(business({ use_industry_billing: true }))).toEqual([]);
    expect(errorsAfter(business({ period_length: 'MONTHLY', period_start_day: 1 }))).toEqual([]);
    expect(errorsAfter(business({ use_industry_billing: true, period_length: 'MONTHLY' }))).toEqual(
      only('account_billing_options_industry_billing_with_period_data', 'account_billing_options.use_industry_billing'),
    );
    expect(errorsAfter(business({ period_length: 'MONTHLY' }))).toEqual([
      { code: 'account_billing_options_period_data_required', attr: 'account_billing_options' },
      { code: 'business_account_missing_billing_options', attr: 'account_billing_options' },
    ]);
    expect(errorsAfter(business({ period_length: 'QUARTERLY', period_start_day: 1 }, (a) => delete a.next_bill_due_date))).toEqual(
      only('next_bill_to_date_not_provided_for_quarterly_billing', 'next_bill_due_date'),
    );
  });

  it('business_account_missing_customers', () => {
    expect(errorsAfter((a) => ((a.account_type = 'BUSINESS'), (a.customers = [])))).toEqual(only('business_account_missing_customers', 'customers'));
  });

  it('system_account_has_a_supply_address and portfolio_lead_has_a_supply_address', () => {
    expect(errorsAfter((a) => (a.account_type = 'SYSTEM'))).toContainEqual({ code: 'system_account_has_a_supply_address', attr: 'supply_addresses' });
    expect(errorsAfter((a) => (a.account_type = 'PORTFOLIO_LEAD'))).toContainEqual({ code: 'portfolio_lead_has_a_supply_address', attr: 'supply_addresses' });
  });

  const secondAddress = (a: any, extra: object = {}) =>
    a.supply_addresses.push({ ...a.supply_addresses[0], meter_points: [], property_administrators: [], ...extra });

  it('duplicate_supply_addresses_found (address lines 1 and 2 and postcode)', () => {
    expect(errorsAfter((a) => secondAddress(a))).toEqual(only('duplicate_supply_addresses_found', 'supply_addresses.1'));
    expect(errorsAfter((a) => secondAddress(a, { supply_address1: '125 Fake Street' }))).toEqual([]);
  });

  it('duplicate_property_external_identifiers', () => {
    const twice = (a: any) => ((a.supply_addresses[0].property_external_identifier = 'P-1'), secondAddress(a, { supply_address1: '125 Fake Street' }));
    expect(errorsAfter(twice)).toEqual(only('duplicate_property_external_identifiers', 'supply_addresses.1.property_external_identifier'));
  });

  it('occupier_account_with_multiple_supply_addresses', () => {
    const occupied = (a: any) => ((a.unknown_occupier = true), delete a.customers, secondAddress(a, { supply_address1: '125 Fake Street' }));
    expect(errorsAfter(occupied)).toEqual(only('occupier_account_with_multiple_supply_addresses', 'supply_addresses'));
  });

  it('multiple_property_administrators', () => {
    const admins = (a: any) => a.supply_addresses[0].property_administrators;
    expect(errorsAfter((a) => admins(a).push({ ...admins(a)[0], given_name: 'Seymour' }))).toEqual(
      only('multiple_property_administrators', 'supply_addresses.0.property_administrators'),
    );
  });

  it('note_unpin_at_earlier_than_creation_date, missing_statement_path_or_pdf_context, debt_collection_agency_name_required', () => {
    expect(errorsAfter((a) => (a.notes[0].unpin_at = '2018-10-10T10:00:00Z'))).toEqual(only('note_unpin_at_earlier_than_creation_date', 'notes.0.unpin_at'));
    expect(errorsAfter((a) => (a.notes[0].unpin_at = '2018-10-11T10:00:00Z'))).toEqual([]);
    expect(errorsAfter((a) => delete a.statements[0].statement_path)).toEqual(only('missing_statement_path_or_pdf_context', 'statements.0.statement_path'));
    expect(errorsAfter((a) => delete a.debts[0].agency_name)).toEqual(only('debt_collection_agency_name_required', 'debts.0.agency_name'));
  });

  it('inconsistent_campaign_identifiers', () => {
    expect(errorsAfter((a) => a.account_campaigns.push({ campaign_name: 'Winter' }))).toEqual(only('inconsistent_campaign_identifiers', 'account_campaigns'));
  });
});

describe('deposit agreements', () => {
  const deposit = {
    deposit_amount: '120.00',
    reason: 'Payment history',
    accepted_at: '2019-06-01T09:00:00Z',
    fulfilled_at: '2019-07-01T09:00:00Z',
    last_interest_date: '2019-07-31',
  };

  it('a fulfilled deposit with its last interest date passes, as sent', () => {
    expect(errorsAfter((a) => (a.deposit_agreements = [deposit]))).toEqual([]);
  });

  it('multiple_active_deposits_not_allowed: only one a account', () => {
    expect(errorsAfter((a) => (a.deposit_agreements = [deposit, { ...deposit, reason: 'Second' }]))).toEqual(
      only('multiple_active_deposits_not_allowed', 'deposit_agreements'),
    );
  });

  it('last_interest_date_not_allowed: not before the deposit is fulfilled', () => {
    expect(errorsAfter((a) => (a.deposit_agreements = [{ ...deposit, fulfilled_at: null }]))).toEqual(
      only('last_interest_date_not_allowed', 'deposit_agreements.0.last_interest_date'),
    );
  });

  it('fulfilled_at_greater_than_last_interest_date', () => {
    expect(errorsAfter((a) => (a.deposit_agreements = [{ ...deposit, fulfilled_at: '2019-08-02T09:00:00Z' }]))).toEqual(
      only('fulfilled_at_greater_than_last_interest_date', 'deposit_agreements.0.last_interest_date'),
    );
  });

  it('field checks: the amount is a decimal string, the reason required', () => {
    expect(errorsAfter((a) => (a.deposit_agreements = [{ deposit_amount: 'ten' }]))).toEqual([
      { code: 'invalid', attr: 'deposit_agreements.0.deposit_amount' },
      { code: 'required', attr: 'deposit_agreements.0.reason' },
    ]);
  });
});

describe('meter point tax exemptions (ccl_exemptions, vat_exemptions)', () => {
  // Exemptions are for business accounts: the example turned into one (a business needs a company name).
  const asBusiness = (a: any) => {
    a.account_type = 'BUSINESS';
    a.business = { company_name: 'Example Ltd' };
  };
  const withVat =
    (...list: unknown[]) =>
    (a: any) => {
      asBusiness(a);
      elec(a).vat_exemptions = list;
    };
  const closed = { effective_from: '2018-01-01', effective_to: '2018-12-31', rate: '1.0' };
  const open = { effective_from: '2019-01-01', rate: '0.5' };

  it('a business account with consecutive exemptions, the last open-ended, passes', () => {
    expect(errorsAfter(asBusiness)).toEqual([]);
    expect(errorsAfter(withVat(closed, open))).toEqual([]);
  });

  it('tax_exemptions_provided_for_domestic_account', () => {
    expect(errorsAfter((a) => (elec(a).ccl_exemptions = [open]))).toEqual(only('tax_exemptions_provided_for_domestic_account', `${MP0}.ccl_exemptions`));
  });

  it('multiple_open_ended_tax_exemptions', () => {
    expect(errorsAfter(withVat(open, { ...open, effective_from: '2019-06-01' })).map((e) => e.code)).toContain('multiple_open_ended_tax_exemptions');
  });

  it('overlapping_effective_dates_for_tax_exemptions, at the later one', () => {
    expect(errorsAfter(withVat(closed, { ...closed, effective_from: '2018-06-01', effective_to: '2018-09-30' }))).toEqual(
      only('overlapping_effective_dates_for_tax_exemptions', `${MP0}.vat_exemptions.1.effective_from`),
    );
  });

  it('start_date_same_as_end_date; a rate is a proportion with two decimals', () => {
    expect(errorsAfter(withVat({ effective_from: '2018-01-01', effective_to: '2018-01-01', rate: '0.555' }))).toEqual([
      { code: 'start_date_same_as_end_date', attr: `${MP0}.vat_exemptions.0.effective_to` },
      { code: 'invalid', attr: `${MP0}.vat_exemptions.0.rate` },
    ]);
  });
});
