import { type Emit, type Obj, type Path, given, isObj, objects, present, repeated } from './rule-kit';

/**
 * The stateless `x-validators` of `portfolio` / `business.portfolios` (AccountPortfolio,
 * BusinessPortfolio) and of the deprecated fields the contract still declares next to their
 * replacements (`debt`, customer and business user `details`, `dd_reference`).
 */

function portfolioReferenceRules(portfolio: unknown, at: Path, emit: Emit) {
  if (!isObj(portfolio)) return;
  repeated(objects(portfolio.portfolio_references), 'namespace', (v, k) =>
    emit('duplicate_portfolio_references', [...at, 'portfolio_references', k, 'namespace'], `Portfolio reference namespace "${v}" is given twice.`),
  );
}

function portfolioRules(account: Obj, emit: Emit) {
  portfolioReferenceRules(account.portfolio, ['portfolio'], emit);
  if (isObj(account.business)) for (const [p, k] of objects(account.business.portfolios)) portfolioReferenceRules(p, ['business', 'portfolios', k], emit);
  const lead = account.account_type === 'PORTFOLIO_LEAD' || account.is_portfolio_lead === true;
  if (isObj(account.portfolio) && given(account.portfolio.portfolio_settings) && !lead) {
    emit('portfolio_settings_included_when_not_lead', ['portfolio', 'portfolio_settings'], 'Only a portfolio lead account may carry portfolio_settings.');
  }
}

function detailsRules(people: unknown, at: Path, emit: Emit) {
  for (const [c, i] of objects(people)) {
    if (c.details !== undefined && c.details !== null && Array.isArray(c.user_details) && c.user_details.length > 0) {
      emit('customer_details_and_user_details_both_provided', [...at, i, 'details'], 'Give user_details or details (deprecated), not both.');
    }
  }
}

function deprecatedFieldRules(account: Obj, emit: Emit) {
  if (isObj(account.debt) && Array.isArray(account.debts) && account.debts.length > 0) {
    emit('debt_and_debts_are_defined', ['debt'], 'Give debts or debt (deprecated), not both.');
  }
  detailsRules(account.customers, ['customers'], emit);
  if (isObj(account.business)) detailsRules(account.business.users, ['business', 'users'], emit);
  // An occupier account is one of the *_OCCUPIER account types; unknown_occupier alone is left to the platform.
  if (present(account.dd_reference) && typeof account.account_type === 'string' && account.account_type.endsWith('_OCCUPIER')) {
    emit('dd_reference_for_occupier_account', ['dd_reference'], 'An occupier account may not carry a direct debit reference.');
  }
}

export function portfolioAndDeprecatedRules(account: Obj, emit: Emit): void {
  portfolioRules(account, emit);
  deprecatedFieldRules(account, emit);
}
