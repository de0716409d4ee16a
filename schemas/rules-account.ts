import { type Emit, type Obj, type Path, duplicateMetadataKeys, endBeforeStart, given, isObj, objects, present, repeated, type RuleContext } from './rule-kit';
import { paymentPlanRules } from './rules-plans';
import { portfolioAndDeprecatedRules } from './rules-portfolio-deprecated';

/**
 * The spec's account-, business-, supply-address-, note-, statement-, debt- and campaign-level
 * `x-validators` that need only the payload (customers: rules-customers.ts; meter points:
 * rules-meters.ts). Codes are the platform's; attrs name the field it would point at.
 */

function accountTypeRules(account: Obj, emit: Emit) {
  const type = typeof account.account_type === 'string' ? account.account_type : '';
  const domestic = type.startsWith('DOMESTIC');
  const business = type.startsWith('BUSINESS');
  const addresses = objects(account.supply_addresses).length;

  if (domestic && isObj(account.business)) {
    for (const key of ['business_type', 'company_number']) {
      if (given(account.business[key])) emit('business_fields_provided_for_domestic_accounts', ['business', key], `${key} is for business accounts only.`);
    }
  }
  const options = account.account_billing_options;
  if (domestic && isObj(options)) {
    emit('account_billing_options_provided_for_domestic_accounts', ['account_billing_options'], 'account_billing_options are for business accounts only.');
  }
  if (isObj(options)) {
    const industry = options.use_industry_billing === true;
    const period = given(options.period_start_day) && given(options.period_length);
    if (industry && (given(options.period_start_day) || given(options.period_length))) {
      emit(
        'account_billing_options_industry_billing_with_period_data',
        ['account_billing_options', 'use_industry_billing'],
        'Give industry billing or a billing period, not both.',
      );
    }
    if (!industry && !period) {
      emit(
        'account_billing_options_period_data_required',
        ['account_billing_options'],
        'Without industry billing, period_start_day and period_length are required.',
      );
      if (business)
        emit(
          'business_account_missing_billing_options',
          ['account_billing_options'],
          'A business account’s billing options need period_start_day and period_length.',
        );
    }
    if (!industry && options.period_length === 'QUARTERLY' && !given(account.next_bill_due_date)) {
      emit(
        'next_bill_to_date_not_provided_for_quarterly_billing',
        ['next_bill_due_date'],
        'Quarterly billing without industry billing needs next_bill_due_date.',
      );
    }
  }
  const occupier = account.unknown_occupier === true || type.endsWith('_OCCUPIER');
  if (business && !occupier && objects(account.customers).length === 0) {
    emit('business_account_missing_customers', ['customers'], 'A business account needs at least one customer.');
  }
  if (type === 'SYSTEM' && addresses > 0) emit('system_account_has_a_supply_address', ['supply_addresses'], 'A system account has no supply address.');
  if (type === 'PORTFOLIO_LEAD' && addresses > 0)
    emit('portfolio_lead_has_a_supply_address', ['supply_addresses'], 'A portfolio lead account has no supply address.');
  if (account.unknown_occupier === true && addresses > 1) {
    emit('occupier_account_with_multiple_supply_addresses', ['supply_addresses'], 'An unknown occupier account has at most one supply address.');
  }
}

function supplyAddressRules(account: Obj, emit: Emit) {
  const seen = new Map<string, number>();
  const addresses = objects(account.supply_addresses);
  for (const [sa, i] of addresses) {
    const key = [sa.supply_address1, sa.supply_address2, sa.supply_postcode].map((v) => (typeof v === 'string' ? v.trim() : '')).join('\u0000');
    if (present(sa.supply_address1) && seen.has(key)) {
      emit('duplicate_supply_addresses_found', ['supply_addresses', i], `This supply address repeats supply address ${seen.get(key)}.`);
    } else seen.set(key, i);
    if (Array.isArray(sa.property_administrators) && sa.property_administrators.length > 1) {
      emit('multiple_property_administrators', ['supply_addresses', i, 'property_administrators'], 'At most one property administrator may be given.');
    }
    for (const [pa, k] of objects(sa.property_administrators)) {
      endBeforeStart(pa, 'effective_from', 'effective_to', ['supply_addresses', i, 'property_administrators', k], emit);
    }
    duplicateMetadataKeys(sa.metadata, ['supply_addresses', i, 'metadata'], emit);
  }
  repeated(addresses, 'property_external_identifier', (v, i) =>
    emit(
      'duplicate_property_external_identifiers',
      ['supply_addresses', i, 'property_external_identifier'],
      `property_external_identifier "${v}" is repeated.`,
    ),
  );
}

function listRules(account: Obj, emit: Emit) {
  for (const [n, i] of objects(account.notes)) {
    if (typeof n.created_at === 'string' && typeof n.unpin_at === 'string') {
      const created = Date.parse(n.created_at);
      const unpin = Date.parse(n.unpin_at);
      if (!Number.isNaN(created) && !Number.isNaN(unpin) && unpin < created) {
        emit('note_unpin_at_earlier_than_creation_date', ['notes', i, 'unpin_at'], 'unpin_at may not be before created_at.');
      }
    }
  }
  // pdf_context is not in the schema, so a statement needs its statement_path.
  for (const [s, i] of objects(account.statements)) {
    if (!present(s.statement_path)) emit('missing_statement_path_or_pdf_context', ['statements', i, 'statement_path'], 'A statement needs a statement_path.');
  }
  for (const [d, i] of objects(account.debts)) {
    if (given(d.start_date) && !present(d.agency_name))
      emit('debt_collection_agency_name_required', ['debts', i, 'agency_name'], 'A debt with a start_date needs an agency_name.');
  }
  depositRules(account, emit);
  const campaigns = objects(account.account_campaigns);
  const bySlug = campaigns.some(([c]) => present(c.slug) && !present(c.campaign_name));
  const byName = campaigns.some(([c]) => present(c.campaign_name) && !present(c.slug));
  if (bySlug && byName)
    emit('inconsistent_campaign_identifiers', ['account_campaigns'], 'Identify every account campaign the same way: all by slug or all by campaign_name.');
}

/** One deposit agreement an account; a last interest date only once fulfilled, and not before it. */
function depositRules(account: Obj, emit: Emit) {
  const deposits = objects(account.deposit_agreements);
  if (deposits.length > 1) emit('multiple_active_deposits_not_allowed', ['deposit_agreements'], 'Only one deposit agreement can be migrated onto an account.');
  for (const [d, i] of deposits) {
    if (!present(d.last_interest_date)) continue;
    const at: Path = ['deposit_agreements', i, 'last_interest_date'];
    if (!present(d.fulfilled_at))
      emit('last_interest_date_not_allowed', at, 'last_interest_date is only allowed on a fulfilled deposit agreement (fulfilled_at).');
    else if (d.fulfilled_at.slice(0, 10) > d.last_interest_date)
      emit('fulfilled_at_greater_than_last_interest_date', at, 'fulfilled_at may not be later than last_interest_date.');
  }
}

/** Business details, account type, billing options, supply addresses, notes, statements, debts, campaigns. */
export function accountRules(account: Obj, ctx: RuleContext, emit: Emit): void {
  if (isObj(account.business)) {
    repeated(objects(account.business.details), 'key', (v, k) =>
      emit('children_with_duplicate_values', ['business', 'details', k, 'key'], `Business detail "${v}" is given twice.`),
    );
  }
  if (typeof account.billing_email === 'string' && account.billing_email.toLowerCase().includes('blackhole+')) {
    emit('billing_email_not_valid', ['billing_email'], 'billing_email may not contain "blackhole+".');
  }
  accountTypeRules(account, emit);
  supplyAddressRules(account, emit);
  listRules(account, emit);
  // Fields modelled from the contract (contract-zod.ts): their stateless validators.
  paymentPlanRules(account, ctx, emit);
  portfolioAndDeprecatedRules(account, emit);
}
