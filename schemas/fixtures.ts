import type { EnergyAccount, ScheduleAccountCreation } from './account';

/**
 * A realistic, valid UK domestic migration payload: one customer, legacy billing address, one
 * supply address with an Economy 7 electricity meter point (two settlement registers) and a gas
 * meter point, 12 readings in all (3 transfer + 9 history), a ledger, a payment schedule, a note
 * with a document and a statement with a PDF. All dates are in the past, so it validates today.
 * A fresh object on every call: tests may mutate it.
 */
export function realisticAccount(overrides: Partial<EnergyAccount> = {}): EnergyAccount {
  const base: EnergyAccount = {
    import_supplier: 'LEGACY_ENERGY',
    external_account_number: 'EXT-1001',
    account_type: 'DOMESTIC',
    customers: [
      {
        given_name: 'Alice',
        family_name: 'Hughes',
        title: 'Ms',
        email: 'alice.hughes@example.com',
        mobile: '07123456789',
        landline: '02072343456',
        date_of_birth: '1984-03-17',
        psr: [{ elec_industry_code: '01', gas_industry_code: '01', effective_from: '2021-06-01T00:00:00Z' }],
        customer_preferences: { opted_into_sms: true, opted_into_updates: true, is_user_psr_consent_obtained: true },
      },
    ],
    billing_name: 'Alice Hughes',
    billing_address1: '14 Orchard Lane',
    billing_address2: 'Kidlington',
    billing_postcode: 'OX5 1AB',
    sales_channel: 'DIRECT',
    communication_preference: 'ONLINE',
    supply_addresses: [
      {
        supply_address1: '14 Orchard Lane',
        supply_address2: 'Kidlington',
        supply_postcode: 'OX5 1AB',
        customer_at_supply_address_from_date: '2019-04-01',
        meter_points: [
          {
            supply_type: 'ELECTRICITY',
            identifier: '2000024512368',
            mpid: 'LEGE',
            supply_start_date: '2019-04-01',
            profile_class: 2,
            ssc: '0151',
            measurement_class: 'A',
            agreements: [
              { tariff_code: 'E-2R-VAR-22-11-01-C', effective_from: '2019-04-01', effective_to: '2023-04-01' },
              { tariff_code: 'E-2R-FIX-23-04-01-C', effective_from: '2023-04-01' },
            ],
            meters: [
              {
                meter_serial_number: 'E14UP18345',
                installed_on: '2014-09-12',
                smart_type: 'SMETS2',
                smart_device_id: '00-1A-2B-FF-FE-3C-4D-5E',
                smart_commissioned_on: '2020-02-03',
                registers: [
                  { register_id: '1', tpr: '00206', number_of_digits: 5, is_settlement: true },
                  { register_id: '2', tpr: '00210', number_of_digits: 5, is_settlement: true },
                ],
                transfer_readings: [
                  { register_id: '1', reading_date: '2024-05-31', reading_value: '23145.00', reading_type: 'SMART' },
                  { register_id: '2', reading_date: '2024-05-31', reading_value: '11872.00', reading_type: 'SMART' },
                ],
                reading_history: [
                  { register_id: '1', reading_date: '2024-04-30', reading_value: '22890.00', reading_type: 'SMART', billed: true },
                  { register_id: '2', reading_date: '2024-04-30', reading_value: '11730.00', reading_type: 'SMART', billed: true },
                  { register_id: '1', reading_date: '2024-03-31', reading_value: '22601.00', reading_type: 'SMART', billed: true },
                  { register_id: '2', reading_date: '2024-03-31', reading_value: '11566.00', reading_type: 'SMART', billed: true },
                ],
              },
            ],
            eac_history: [
              { effective_from: '2023-10-01', tpr: '00206', consumption: '2450.00', source: 'D0019' },
              { effective_from: '2023-10-01', tpr: '00210', consumption: '1380.00', source: 'D0019' },
            ],
            smart_refusal_interest: { type: 'INTERESTED', date: '2019-05-01', source: 'EMAIL' },
          },
          {
            supply_type: 'GAS',
            identifier: '7483920156',
            mpid: 'LEGE',
            shipper_mpid: 'LGS',
            supply_start_date: '2019-04-01',
            ldz: 'SO',
            agreements: [{ tariff_code: 'G-1R-FIX-23-04-01-C', effective_from: '2019-04-01' }],
            meters: [
              {
                meter_serial_number: 'G4A00512345678',
                gas_number_of_digits: 5,
                installed_on: '2015-01-20',
                smart_type: 'SMETS2',
                units_of_measure: 'SCMH',
                transfer_readings: [{ reading_date: '2024-05-31', reading_value: '04512.000', reading_type: 'SMART' }],
                reading_history: [
                  { reading_date: '2024-04-30', reading_value: '04460.000', reading_type: 'SMART', billed: true },
                  { reading_date: '2024-03-31', reading_value: '04391.000', reading_type: 'SMART', billed: true },
                  { reading_date: '2024-02-29', reading_value: '04302.000', reading_type: 'SMART', billed: true },
                  { reading_date: '2024-01-31', reading_value: '04205.000', reading_type: 'CUSTOMER', billed: true },
                  { reading_date: '2023-12-31', reading_value: '04111.000', reading_type: 'ESTIMATE', billed: true },
                ],
              },
            ],
            aq_history: [
              { effective_from: '2023-04-01', effective_to: '2024-03-31', consumption: '11250.00' },
              { effective_from: '2024-04-01', consumption: '11020.00' },
            ],
          },
        ],
      },
    ],
    transfer_balance: '42.17',
    last_billed_to_date: '2024-05-31',
    ledgers: [
      {
        ledger_balance: '42.17',
        last_statement_balance: '12.17',
        last_statement_closing_date: '2024-05-31',
        last_statement_issue_date: '2024-06-02',
        current_statement_transactions: [
          {
            type: 'PAYMENT',
            transaction_id: 'TX-9001',
            transaction_date: '2024-06-10',
            amount: '30.00',
            reason: 'ACCOUNT_CHARGE_PAYMENT',
            payment_type: 'DD_REGULAR_COLLECTION',
          },
        ],
        historical_statement_transactions: [
          { type: 'CREDIT', transaction_id: 'TX-8001', transaction_date: '2024-05-10', amount: '12.17', reason: 'DIRECT_DEBIT_DISCOUNT' },
        ],
      },
    ],
    payment_schedules: [{ means: 'DD', amount: '95.00', day_of_month: 10, frequency: 'MONTHLY', start_date: '2023-04-10' }],
    references: [{ namespace: 'legacy-energy.customer-reference', value: 'CR-558123' }],
    notes: [
      {
        created_at: '2024-05-02T09:15:00Z',
        body: 'Customer asked for paper-free billing.',
        document_paths: [{ document_path: '/notes/EXT-1001/email-2024-05-02.pdf' }],
      },
    ],
    statements: [
      {
        statement_id: 'ST-2024-05',
        bill_period_from_date: '2024-05-01',
        bill_period_to_date: '2024-05-31',
        statement_path: '/statements/EXT-1001/2024-05.pdf',
        issued_date: '2024-06-02',
      },
    ],
    account_campaigns: [{ slug: 'legacy_migration_2024', campaign_note: 'Migrated from legacy platform' }],
    metadata: [{ key: 'legacy_account_id', value: { id: 1001, brand: 'legacy' } }],
    warm_home_discount: [{ tax_year: '2023/24', account_type: 'CREDIT', group: 'CORE' }],
  };
  return { ...base, ...overrides };
}

/** UTC datetime without milliseconds, as the payload convention writes it. */
function utcSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A valid schedule request: the realistic account, window opening in 5 minutes, closing a day later. */
export function exampleScheduleRequest(opts: { now?: Date; isDryRun?: boolean } = {}): ScheduleAccountCreation {
  const now = (opts.now ?? new Date()).getTime();
  return {
    payload: realisticAccount(),
    task_params: {
      is_dry_run: opts.isDryRun ?? false,
      schedule_window_start: utcSeconds(now + 5 * 60_000),
      schedule_window_end: utcSeconds(now + 24 * 3_600_000),
    },
  };
}
