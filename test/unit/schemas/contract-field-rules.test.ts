import { describe, expect, it } from 'vitest';
import { realisticAccount } from '../../../schemas/fixtures';
import { validateAccount } from '../../../schemas/validate';

/**
 * The stateless x-validators of the fields modelled from the contract (rules-meter-periods.ts,
 * rules-plans.ts, rules-portfolio-deprecated.ts): each fires with the platform's code at the attr
 * the platform would point at, and stays quiet on the valid neighbour.
 */

const TODAY = '2024-06-20';
type Edit = (a: any) => void;

function errors(edit: Edit): string[] {
  const a: any = realisticAccount();
  edit(a);
  const r = validateAccount(a, { today: TODAY });
  return r.ok ? [] : r.errors.map((e) => `${e.code} ${e.attr}`);
}

const MP = 'supply_addresses.0.meter_points.0';
const elec = (a: any) => a.supply_addresses[0].meter_points[0];

describe('the realistic fixture', () => {
  it('is valid on the day these tests use', () => {
    expect(errors(() => {})).toEqual([]);
  });
});

describe('meter point periods (configuration_periods, capacity_values)', () => {
  const cfg = (from: string, to?: string) => ({ effective_from_date: from, ...(to ? { effective_to_date: to } : {}), measurement_class: 'A' });
  it('consecutive periods, the last open-ended, are valid whether effective_to_date is read inclusively or not', () => {
    expect(errors((a) => (elec(a).configuration_periods = [cfg('2020-01-01', '2021-12-31'), cfg('2022-01-01', '2023-01-01'), cfg('2023-01-01')]))).toEqual([]);
  });
  it('a gap, an overlap, a period after an open-ended one', () => {
    expect(errors((a) => (elec(a).configuration_periods = [cfg('2020-01-01', '2020-12-31'), cfg('2021-01-05', '2022-01-01'), cfg('2021-06-01')]))).toEqual([
      `gaps_or_overlaps_in_periods ${MP}.configuration_periods.1.effective_from_date`,
      `gaps_or_overlaps_in_periods ${MP}.configuration_periods.2.effective_from_date`,
    ]);
    expect(
      errors(
        (a) =>
          (elec(a).capacity_values = [
            { effective_from_date: '2021-01-01', value: '10.00' },
            { effective_from_date: '2020-01-01', value: '9.00' },
          ]),
      ),
    ).toEqual([`gaps_or_overlaps_in_periods ${MP}.capacity_values.0.effective_from_date`]);
  });
  it('an end before the start', () => {
    expect(errors((a) => (elec(a).capacity_values = [{ effective_from_date: '2021-01-01', effective_to_date: '2020-12-31', value: '10.00' }]))).toEqual([
      `start_date_later_than_end_date ${MP}.capacity_values.0.effective_to_date`,
    ]);
  });
  it('a configuration period starting after today; the latest one ended', () => {
    expect(errors((a) => (elec(a).configuration_periods = [cfg('2020-01-01', '2024-06-20'), cfg('2024-06-21')]))).toEqual([
      `configuration_period_starts_in_future ${MP}.configuration_periods.1.effective_from_date`,
    ]);
    expect(errors((a) => (elec(a).configuration_periods = [cfg('2020-01-01', '2024-06-20')]))).toEqual([
      `latest_configuration_period_not_open_ended ${MP}.configuration_periods.0.effective_to_date`,
    ]);
  });
});

describe('meter point agents and agreements', () => {
  it('agents next to the deprecated dc/mop_to_appoint', () => {
    expect(errors((a) => (elec(a).agents = { dc_contract: { contract_reference: 'DC1' } }))).toEqual([]);
    expect(errors((a) => Object.assign(elec(a), { agents: { dc_contract: { contract_reference: 'DC1' } }, mop_to_appoint: 'MOPX' }))).toEqual([
      `agents_and_mpids_to_appoint_provided ${MP}.agents`,
    ]);
  });
  it('a bespoke electricity register rate without register_id or rate_type; a characteristic code twice', () => {
    const rate = (reg: object) => ({ standing_charge: '20.00', registers: [{ unit_rate: '0.25', ...reg }] });
    expect(errors((a) => (elec(a).agreements[0].bespoke_tariff_rates = [rate({ register_id: '1' }), rate({ rate_type: 'STANDARD' })]))).toEqual([]);
    expect(errors((a) => (elec(a).agreements[0].bespoke_tariff_rates = [rate({})]))).toEqual([
      `no_register_id_or_rate_type_provided_for_bespoke_elec_rate ${MP}.agreements.0.bespoke_tariff_rates.0.registers.0`,
    ]);
    const ch = (code: string, value: string) => ({ code, value });
    expect(
      errors(
        (a) =>
          (elec(a).agreements[0].characteristics = [
            ch('gbr-electricity.payment-method', 'DIRECT_DEBIT'),
            ch('gbr-electricity.meter-rate-profile', 'flat_rate'),
          ]),
      ),
    ).toEqual([]);
    expect(
      errors(
        (a) =>
          (elec(a).agreements[0].characteristics = [ch('gbr-electricity.payment-method', 'DIRECT_DEBIT'), ch('gbr-electricity.payment-method', 'PREPAYMENT')]),
      ),
    ).toEqual([`children_with_duplicate_values ${MP}.agreements.0.characteristics.1.code`]);
  });
});

describe('payment adequacy changes and payment plans', () => {
  const change = (over: object = {}) => ({
    average_monthly_charge: 100,
    average_monthly_elec_charge: 60,
    average_monthly_gas_charge: 40,
    balance_adjustment: 0,
    created_at: '2024-05-01T09:00:00Z',
    applied_at: '2024-05-02T09:00:00Z',
    current_balance: 0,
    existing_direct_debit_payment: 90,
    new_direct_debit: 100,
    target_balance: 0,
    ...over,
  });
  const noReview = (a: any) => delete a.last_payment_review_date;
  it('a consistent change is valid; not next to last_payment_review_date', () => {
    expect(errors((a) => (noReview(a), (a.payment_adequacy_changes = [change()])))).toEqual([]);
    expect(errors((a) => ((a.last_payment_review_date = '2024-05-01'), (a.payment_adequacy_changes = [change()])))).toEqual([
      'payment_adequacy_changes_and_last_payment_review_date_provided payment_adequacy_changes',
    ]);
  });
  it('monthly charges that do not add up; dates in the future or applied before created; applied or a reason, one of the two', () => {
    const at = (over: object) => errors((a) => (noReview(a), (a.payment_adequacy_changes = [change(over)])));
    expect(at({ average_monthly_gas_charge: 41 })).toEqual(['payment_adequacy_monthly_charges_unequal payment_adequacy_changes.0.average_monthly_charge']);
    expect(at({ created_at: '2024-06-21T00:00:00Z', applied_at: '2024-06-22T00:00:00Z' })).toEqual([
      'payment_adequacy_invalid_dates payment_adequacy_changes.0.applied_at',
      'payment_adequacy_invalid_dates payment_adequacy_changes.0.created_at',
    ]);
    expect(at({ applied_at: '2024-05-01T08:59:59Z' })).toEqual(['payment_adequacy_invalid_dates payment_adequacy_changes.0.applied_at']);
    expect(at({ applied_at: null })).toEqual(['payment_adequacy_missing_reason payment_adequacy_changes.0.should_not_be_applied_reason']);
    expect(at({ applied_at: null, should_not_be_applied_reason: 'Customer in arrears' })).toEqual([]);
    expect(at({ should_not_be_applied_reason: 'Customer in arrears' })).toEqual([
      'payment_adequacy_should_not_have_been_applied payment_adequacy_changes.0.applied_at',
    ]);
  });
  it('a plan payment whose components do not add up to its total', () => {
    const plan = (total: number) => ({
      accepted_at: '2024-05-01T09:00:00Z',
      schedule_means: 'DD',
      strategy_name: 'standard',
      payments: [
        {
          payment_date: '2024-07-01',
          total_amount: total,
          amount_components: [
            { amount: 3000, component_type: 'DEBT' },
            { amount: 2000, component_type: 'USAGE' },
          ],
        },
      ],
    });
    expect(errors((a) => (a.payment_plans = [plan(5000)]))).toEqual([]);
    expect(errors((a) => (a.payment_plans = [plan(5001)]))).toEqual([
      'payment_plan_payment_components_do_not_sum_to_total payment_plans.0.payments.0.total_amount',
    ]);
  });
});

describe('contribution agreements, commission contracts, partner organisations', () => {
  const agreement = (start: string, end: string | null, periods: Array<[string, string]> = []) => ({
    active_period_start_date: start,
    active_period_end_date: end,
    amount: '5.00',
    interval: 'MONTHLY',
    scheme: 'warm-homes',
    periods: periods.map(([s, e]) => ({ start_date: s, end_date: e })),
  });
  it('agreements and periods that meet at a boundary are valid; overlapping ones and an end before the start are not', () => {
    expect(
      errors(
        (a) =>
          (a.contribution_agreements = [
            agreement('2023-01-01', '2023-12-31', [
              ['2023-01-01', '2023-06-30'],
              ['2023-06-30', '2023-12-31'],
            ]),
            agreement('2023-12-31', null),
          ]),
      ),
    ).toEqual([]);
    expect(
      errors(
        (a) =>
          (a.contribution_agreements = [
            agreement('2023-01-01', null),
            agreement('2023-06-01', '2023-05-01', [
              ['2023-06-01', '2023-08-01'],
              ['2023-07-01', '2023-09-01'],
            ]),
          ]),
      ),
    ).toEqual([
      'start_date_later_than_end_date contribution_agreements.1.active_period_end_date',
      'overlapping_contribution_agreements contribution_agreements.1.active_period_start_date',
      'overlapping_contribution_periods contribution_agreements.1.periods.1.start_date',
    ]);
  });
  it('commission contracts: dates, the deprecated value against commission_type and unit_rate_uplift', () => {
    const contract = (over: object) => ({
      affiliate_organisation_name: 'Broker Ltd',
      effective_from: '2023-01-01',
      effective_to: '2024-01-01',
      mpxn: '2000024512368',
      status: 'PAID',
      ...over,
    });
    expect(
      errors((a) => (a.commission_contracts = [contract({ unit_rate_uplift: '0.010' }), contract({ commission_type: 'UNIT_RATE_UPLIFT', value: '0.01' })])),
    ).toEqual([]);
    expect(
      errors(
        (a) =>
          (a.commission_contracts = [
            contract({ commission_type: 'UNIT_RATE_UPLIFT' }),
            contract({ value: '0.01', unit_rate_uplift: '0.010', effective_to: '2022-12-31' }),
          ]),
      ),
    ).toEqual([
      'commission_type_requires_value commission_contracts.0.value',
      'start_date_later_than_end_date commission_contracts.1.effective_to',
      'uplift_and_value_conflict commission_contracts.1.value',
    ]);
    expect(errors((a) => (a.commission_contracts = [contract({ mpxn: '12345' })]))).toEqual(['invalid_supply_point_identifier commission_contracts.0.mpxn']);
  });
  it('a partner organisation valid to before valid from', () => {
    const org = (to: string) => ({ organisation_number: 'P-1', role: 'introducer', valid_from: '2024-01-01T00:00:00Z', valid_to: to });
    expect(errors((a) => (a.partner_organisations = [org('2024-01-01T00:00:00Z')]))).toEqual([]);
    expect(errors((a) => (a.partner_organisations = [org('2023-12-31T23:59:59Z')]))).toEqual([
      'start_date_later_than_end_date partner_organisations.0.valid_to',
    ]);
  });
});

describe('portfolios and deprecated fields', () => {
  const refs = (...ns: string[]) => ns.map((namespace, k) => ({ namespace, value: `V${k}` }));
  it('a portfolio reference namespace twice, on the account or a business portfolio', () => {
    expect(errors((a) => (a.portfolio = { portfolio_references: refs('portfolio-label', 'external-portfolio-reference-id') }))).toEqual([]);
    expect(errors((a) => (a.portfolio = { portfolio_references: refs('portfolio-label', 'portfolio-label') }))).toEqual([
      'duplicate_portfolio_references portfolio.portfolio_references.1.namespace',
    ]);
    expect(errors((a) => (a.business = { portfolios: [{ portfolio_references: refs('portfolio-label', 'portfolio-label') }] }))).toEqual([
      'duplicate_portfolio_references business.portfolios.0.portfolio_references.1.namespace',
    ]);
  });
  it('portfolio settings on an account that is not a portfolio lead', () => {
    expect(errors((a) => (a.portfolio = { portfolio_settings: null }))).toEqual([]);
    expect(errors((a) => (a.portfolio = { portfolio_settings: { collective_billing: true } }))).toEqual([
      'portfolio_settings_included_when_not_lead portfolio.portfolio_settings',
    ]);
    expect(errors((a) => ((a.is_portfolio_lead = true), (a.portfolio = { portfolio_settings: { collective_billing: true } })))).toEqual([]);
  });
  it('deprecated fields next to their replacements', () => {
    expect(errors((a) => (a.debt = { agency_name: 'Acme' }))).toEqual([]);
    expect(errors((a) => ((a.debt = { agency_name: 'Acme' }), (a.debts = [{ agency_name: 'Acme' }])))).toEqual(['debt_and_debts_are_defined debt']);
    expect(errors((a) => (a.customers[0].details = { legacy_id: 7 }))).toEqual([]);
    expect(
      errors((a) => ((a.customers[0].details = { legacy_id: 7 }), (a.customers[0].user_details = [{ namespace: 'external_user_id', value: 'U1' }]))),
    ).toEqual(['customer_details_and_user_details_both_provided customers.0.details']);
    expect(errors((a) => (a.dd_reference = 'DD-1'))).toEqual([]);
    expect(errors((a) => ((a.dd_reference = 'DD-1'), (a.account_type = 'DOMESTIC_OCCUPIER')))).toContain('dd_reference_for_occupier_account dd_reference');
  });
});
