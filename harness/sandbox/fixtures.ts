/**
 * The smallest account payload the sandbox accepts and processes to an account: one customer, one
 * electricity meter point on a catalogue tariff, no documents. Shared by the sandbox's tests and
 * its benchmark, so both exercise the same request.
 */
export function minimalAccountPayload(opts: { supplier: string; externalAccountNumber: string; tariffCode?: string }): Record<string, unknown> {
  return {
    import_supplier: opts.supplier,
    external_account_number: opts.externalAccountNumber,
    account_type: 'DOMESTIC',
    billing_name: 'Ada Lovelace',
    billing_address1: '1 Test Street',
    billing_postcode: 'W1F 9DE',
    customers: [{ given_name: 'Ada', family_name: 'Lovelace', email: 'ada@example.com', mobile: '07912345678' }],
    supply_addresses: [
      {
        supply_address1: '1 Test Street',
        supply_postcode: 'W1F 9DE',
        customer_at_supply_address_from_date: '2024-01-01',
        meter_points: [
          {
            identifier: '1200060176720',
            supply_type: 'ELECTRICITY',
            mpid: 'TENT',
            supply_start_date: '2024-01-01',
            agreements: [{ tariff_code: opts.tariffCode ?? 'E-1R-VAR-22-11-01-C', effective_from: '2024-01-01' }],
          },
        ],
      },
    ],
  };
}
