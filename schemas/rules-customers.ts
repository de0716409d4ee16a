import {
  type Emit,
  type Obj,
  type Path,
  type RuleContext,
  duplicateMetadataKeys,
  endBeforeStart,
  given,
  isObj,
  notInFuture,
  objects,
  present,
  repeated,
} from './rule-kit';

/**
 * The spec's customer-level `x-validators` that need only the payload and today, and the consent
 * rules customers share with the account. Codes are the platform's; attrs name the field it would
 * point at. Within one account the errors come out customer by customer; validateAccount sorts them
 * by (attr, code) anyway (sortErrors in schemas/errors.ts), so the order is pinned there
 * (test/unit/schemas/rule-order.test.ts).
 */

const OCCUPIER = 'the occupier';
const norm = (v: unknown) => (typeof v === 'string' ? v.trim().replace(/\s+/g, ' ').toLowerCase() : '');

/** A customer named "The Occupier" (in either name field or across both). */
function namedTheOccupier(c: Obj): boolean {
  const given_ = norm(c.given_name);
  const family = norm(c.family_name);
  return given_ === OCCUPIER || family === OCCUPIER || `${given_} ${family}`.trim() === OCCUPIER;
}

/** The spec's test addresses: `test@…`, `xxx@…`, `…@test.com`, `…@test.co.uk`, `….xxx`, `….xx`. */
export function isTestEmail(email: string): boolean {
  const e = email.trim().toLowerCase();
  return e.startsWith('test@') || e.startsWith('xxx@') || e.endsWith('@test.com') || e.endsWith('@test.co.uk') || e.endsWith('.xxx') || e.endsWith('.xx');
}

/** Consents (a customer's or the account's): not signed in the future, each type once. */
export function consentRules(list: unknown, path: Path, ctx: RuleContext, emit: Emit): void {
  for (const [c, i] of objects(list)) notInFuture(c, 'signed_at', 'date_in_future', [...path, i], ctx, emit);
  repeated(objects(list), 'type', (v, k) => emit('children_with_duplicate_values', [...path, k, 'type'], `Consent type "${v}" is given twice.`));
}

/** `repeated_values_for_unique_customer_detail_namespace`: external_user_id is the one unique namespace the spec names. */
function uniqueUserDetails(c: Obj, at: Path, i: number, externalIds: Map<string, number>, emit: Emit) {
  for (const [d, k] of objects(c.user_details)) {
    if (d.namespace !== 'external_user_id' || !given(d.value)) continue;
    const key = String(d.value);
    const owner = externalIds.get(key);
    if (owner !== undefined && owner !== i) {
      emit(
        'repeated_values_for_unique_customer_detail_namespace',
        [...at, 'user_details', k, 'value'],
        `external_user_id "${key}" is also given for customer ${owner}.`,
      );
    }
    if (owner === undefined) externalIds.set(key, i);
  }
}

/** Every customer rule: names by account type, "The Occupier", test emails, PSR, consents, metadata, unique details. */
export function customerRules(account: Obj, ctx: RuleContext, emit: Emit): void {
  const type = typeof account.account_type === 'string' ? account.account_type : undefined;
  const domestic = type === undefined || type.startsWith('DOMESTIC');
  const business = type !== undefined && type.startsWith('BUSINESS');
  const customers = objects(account.customers);

  if (account.unknown_occupier === true && customers.length > 0) {
    emit('customer_with_unknown_occupier', ['customers'], 'No customers may be given for an unknown occupier.');
  }
  const externalIds = new Map<string, number>();
  for (const [c, i] of customers) {
    const at: Path = ['customers', i];
    if (domestic && !present(c.family_name)) {
      emit('customer_family_name_required', [...at, 'family_name'], 'A family name is required for customers of a domestic account.');
    }
    if (business && !present(c.given_name)) {
      emit('customer_given_name_required', [...at, 'given_name'], 'A given name is required for customers of a business account.');
    }
    if (namedTheOccupier(c)) {
      emit('customer_may_not_be_named_the_occupier', at, 'A customer may not be named "The Occupier": use unknown_occupier on the account.');
      if (present(c.email) || present(c.mobile) || present(c.landline)) {
        emit('contact_details_for_occupier', at, 'A customer named "The Occupier" may not have contact details.');
      }
    }
    if (present(c.email) && isTestEmail(c.email)) emit('possible_test_email_address', [...at, 'email'], `"${c.email}" looks like a test address.`);
    for (const [p, j] of objects(c.psr)) {
      if (!present(p.elec_industry_code) && !present(p.gas_industry_code)) {
        emit('psr_industry_code_not_provided', [...at, 'psr', j], 'A PSR record needs an electricity or gas industry code.');
      }
      endBeforeStart(p, 'effective_from', 'effective_to', [...at, 'psr', j], emit);
    }
    consentRules(c.consents, [...at, 'consents'], ctx, emit);
    if (isObj(c.customer_preferences) && Array.isArray(c.consents) && c.consents.length > 0) {
      emit('fields_are_mutually_exclusive', [...at, 'consents'], 'Give customer_preferences or consents, not both.');
    }
    duplicateMetadataKeys(c.metadata, [...at, 'metadata'], emit);
    uniqueUserDetails(c, at, i, externalIds, emit);
  }
}
