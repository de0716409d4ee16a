import { type ValidationError, validationError } from './errors';
import { dayOf, isCalendarDate, isTaxYear, isUkPostcode } from './formats';
import { dateField, isObj, objects, present, scaled, type Emit, type Obj, type Path, type RuleContext } from './rule-kit';
import { accountRules } from './rules-account';
import { meterRules } from './rules-meters';
import { paymentRules } from './rules-payments';

/**
 * Cross-field rules from the spec's `x-validators`, with the spec's own codes. They run on the raw
 * payload even when field-level checks failed (so every error is reported at once), hence the
 * defensive reads: a rule only fires on values it can read as the right type, and leaves shape
 * errors to the schema. Each error's attr is the field the platform would point at.
 */

// The readers every rule file shares are in rule-kit.ts; the context type is exported from here too.
export type { RuleContext };

const isBlank = (v: unknown) => !present(v);

const OCCUPIER_TYPES = new Set(['DOMESTIC_OCCUPIER', 'BUSINESS_OCCUPIER']);
/** Measurement classes B and D are unmetered supplies: no meters expected. */
const UNMETERED_CLASSES = new Set(['B', 'D']);

/** A date or UTC datetime as epoch ms; undefined when unreadable. */
function instant(v: unknown): number | undefined {
  if (!dayOf(v)) return undefined;
  const s = v as string;
  return Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s);
}

/** `toKey`, if given, must be on or later than `fromKey`. */
function endBeforeStart(o: Obj, fromKey: string, toKey: string, path: Path, emit: Emit) {
  const a = o[fromKey];
  const b = o[toKey];
  if (typeof a !== 'string' || typeof b !== 'string') return;
  // Two dates compare as strings; anything involving a datetime compares as instants.
  const bothDates = a.length === 10 && b.length === 10;
  const from = bothDates ? (isCalendarDate(a) ? a : undefined) : instant(a);
  const to = bothDates ? (isCalendarDate(b) ? b : undefined) : instant(b);
  if (from !== undefined && to !== undefined && to < from) {
    emit('start_date_later_than_end_date', [...path, toKey], `${toKey} must be on or after ${fromKey}.`);
  }
}

function notInFuture(o: Obj, key: string, code: string, path: Path, ctx: RuleContext, emit: Emit) {
  const day = dayOf(o[key]);
  if (day && day > ctx.today) emit(code, [...path, key], `${key} may not be in the future.`);
}

function duplicateMetadataKeys(list: unknown, path: Path, emit: Emit) {
  const seen = new Set<string>();
  for (const [m, i] of objects(list)) {
    if (typeof m.key !== 'string') continue;
    if (seen.has(m.key)) emit('metadata_has_duplicate_keys', [...path, i, 'key'], `Metadata key "${m.key}" is repeated.`);
    seen.add(m.key);
  }
}

function consents(list: unknown, path: Path, ctx: RuleContext, emit: Emit) {
  for (const [c, i] of objects(list)) notInFuture(c, 'signed_at', 'date_in_future', [...path, i], ctx, emit);
}

function customerRules(account: Obj, ctx: RuleContext, emit: Emit) {
  const type = typeof account.account_type === 'string' ? account.account_type : undefined;
  const domestic = type === undefined || type.startsWith('DOMESTIC');
  const business = type !== undefined && type.startsWith('BUSINESS');
  const customers = objects(account.customers);

  if (account.unknown_occupier === true && customers.length > 0) {
    emit('customer_with_unknown_occupier', ['customers'], 'No customers may be given for an unknown occupier.');
  }
  for (const [c, i] of customers) {
    const at: Path = ['customers', i];
    if (domestic && isBlank(c.family_name)) {
      emit('customer_family_name_required', [...at, 'family_name'], 'A family name is required for customers of a domestic account.');
    }
    if (business && isBlank(c.given_name)) {
      emit('customer_given_name_required', [...at, 'given_name'], 'A given name is required for customers of a business account.');
    }
    for (const [p, j] of objects(c.psr)) {
      if (isBlank(p.elec_industry_code) && isBlank(p.gas_industry_code)) {
        emit('psr_industry_code_not_provided', [...at, 'psr', j], 'A PSR record needs an electricity or gas industry code.');
      }
      endBeforeStart(p, 'effective_from', 'effective_to', [...at, 'psr', j], emit);
    }
    consents(c.consents, [...at, 'consents'], ctx, emit);
    duplicateMetadataKeys(c.metadata, [...at, 'metadata'], emit);
  }
}

function billingAddressRules(account: Obj, emit: Emit) {
  const newStyle = account.billing_address !== undefined && account.billing_address !== null;
  const legacyKeys = ['billing_address1', 'billing_address2', 'billing_address3', 'billing_address4', 'billing_address5', 'billing_postcode'];
  if (newStyle && legacyKeys.some((k) => present(account[k]))) {
    emit('billing_address_new_style_and_legacy', ['billing_address'], 'Give either billing_address or billing_address1..5/billing_postcode, not both.');
  }
  const occupier = account.unknown_occupier === true || (typeof account.account_type === 'string' && OCCUPIER_TYPES.has(account.account_type));
  if (!newStyle && !occupier) {
    const missing = isBlank(account.billing_address1) ? 'billing_address1' : isBlank(account.billing_postcode) ? 'billing_postcode' : undefined;
    if (missing) emit('billing_address_not_provided', [missing], 'billing_address1 and billing_postcode are required for this account.');
  }
  if (isObj(account.billing_address)) {
    const a = account.billing_address;
    if (a.country === 'GB' && present(a.postal_code) && !isUkPostcode(a.postal_code)) {
      emit('invalid_postcode', ['billing_address', 'postal_code'], 'Enter a valid UK postcode.');
    }
  }
}

/** Agreements (effective_to exclusive) must follow one another without gap or overlap from the current supply period on. */
function agreementContinuity(mp: Obj, path: Path, emit: Emit) {
  const supplyStart = dayOf(mp.supply_start_date);
  const relevant: Array<{ from: string; to: string | null; index: number }> = [];
  for (const [a, index] of objects(mp.agreements)) {
    const from = dayOf(a.effective_from);
    const to = dateField(a, 'effective_to');
    if (!from || (to === undefined && a.effective_to !== undefined)) return; // unreadable dates: schema reports them
    const end = to ?? null;
    if (supplyStart && end !== null && end <= supplyStart) continue; // historic: gaps allowed
    relevant.push({ from, to: end, index });
  }
  relevant.sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : x.index - y.index));
  for (let k = 1; k < relevant.length; k++) {
    const prev = relevant[k - 1];
    const next = relevant[k];
    if (prev.to === null || prev.to !== next.from) {
      const kind = prev.to === null || next.from < prev.to ? 'overlaps' : 'leaves a gap after';
      emit('gaps_or_overlaps_in_agreement_dates', [...path, 'agreements', next.index, 'effective_from'], `This agreement ${kind} agreement ${prev.index}.`);
    }
  }
}

function meterPointRules(mp: Obj, path: Path, ctx: RuleContext, emit: Emit) {
  endBeforeStart(mp, 'supply_start_date', 'supply_end_date', path, emit);
  const end = dateField(mp, 'supply_end_date');
  const billable = end === null || end === undefined ? mp.supply_end_date === undefined || mp.supply_end_date === null : end >= ctx.today;

  const agreements = objects(mp.agreements);
  for (const [a, k] of agreements) endBeforeStart(a, 'effective_from', 'effective_to', [...path, 'agreements', k], emit);
  if (billable && agreements.length === 0) {
    emit('meter_point_with_no_agreement', [...path, 'agreements'], 'A meter point on supply needs at least one agreement.');
  }
  agreementContinuity(mp, path, emit);

  for (const [aq, k] of objects(mp.aq_history)) endBeforeStart(aq, 'effective_from', 'effective_to', [...path, 'aq_history', k], emit);

  const activeMeters = objects(mp.meters).filter(([m]) => {
    const removed = dateField(m, 'removed_on');
    return removed === null || removed === undefined || removed > ctx.today;
  });
  const unmetered = typeof mp.measurement_class === 'string' && UNMETERED_CLASSES.has(mp.measurement_class);
  if (billable && activeMeters.length === 0 && !unmetered) {
    emit('meter_point_with_no_meters', [...path, 'meters'], 'A meter point on supply needs at least one active meter.');
  }
  if (!billable) return;

  for (const [meter, m] of activeMeters) {
    const readings = objects(meter.transfer_readings);
    if (mp.supply_type === 'ELECTRICITY') {
      for (const [reg, r] of objects(meter.registers)) {
        if (reg.is_settlement === false || typeof reg.register_id !== 'string') continue;
        const count = readings.filter(([t]) => t.register_id === reg.register_id).length;
        const at: Path = [...path, 'meters', m, 'registers', r];
        if (count === 0) emit('missing_transfer_reading_for_register', at, `Register ${reg.register_id} has no transfer reading.`);
        if (count > 1) emit('multiple_transfer_readings_for_register', at, `Register ${reg.register_id} has ${count} transfer readings.`);
      }
    } else if (mp.supply_type === 'GAS') {
      const at: Path = [...path, 'meters', m, 'transfer_readings'];
      if (readings.length === 0) emit('active_gas_meter_without_transfer_reading', at, 'An active gas meter needs a transfer reading.');
      if (readings.length > 1) emit('active_gas_meter_with_multiple_transfer_readings', at, 'An active gas meter takes a single transfer reading.');
    }
  }
}

function supplyAddressRules(account: Obj, ctx: RuleContext, emit: Emit) {
  const seenAcross = new Map<string, number>();
  for (const [sa, i] of objects(account.supply_addresses)) {
    const at: Path = ['supply_addresses', i];
    const seenHere = new Set<string>();
    for (const [mp, j] of objects(sa.meter_points)) {
      const mpPath: Path = [...at, 'meter_points', j];
      if (typeof mp.identifier === 'string' && mp.identifier !== '') {
        const id = mp.identifier;
        if (seenHere.has(id)) {
          emit('duplicate_meter_points_provided', [...mpPath, 'identifier'], `Meter point ${id} is given twice on this supply address.`);
        } else if (seenAcross.has(id) && seenAcross.get(id) !== i) {
          emit(
            'duplicate_meter_points_on_different_supply_addresses_provided',
            [...mpPath, 'identifier'],
            `Meter point ${id} is on another supply address too.`,
          );
        }
        seenHere.add(id);
        if (!seenAcross.has(id)) seenAcross.set(id, i);
      }
      meterPointRules(mp, mpPath, ctx, emit);
    }
    for (const [pa, k] of objects(sa.property_administrators)) {
      endBeforeStart(pa, 'effective_from', 'effective_to', [...at, 'property_administrators', k], emit);
    }
    duplicateMetadataKeys(sa.metadata, [...at, 'metadata'], emit);
  }
}

function transactions(list: unknown, path: Path, ctx: RuleContext, emit: Emit) {
  for (const [t, i] of objects(list)) notInFuture(t, 'transaction_date', 'transaction_in_future', [...path, i], ctx, emit);
}

function moneyRules(account: Obj, ctx: RuleContext, emit: Emit) {
  transactions(account.current_statement_transactions, ['current_statement_transactions'], ctx, emit);
  transactions(account.historical_statement_transactions, ['historical_statement_transactions'], ctx, emit);
  for (const [l, i] of objects(account.ledgers)) {
    transactions(l.current_statement_transactions, ['ledgers', i, 'current_statement_transactions'], ctx, emit);
    transactions(l.historical_statement_transactions, ['ledgers', i, 'historical_statement_transactions'], ctx, emit);
  }
  for (const [s, i] of objects(account.payment_schedules)) endBeforeStart(s, 'start_date', 'end_date', ['payment_schedules', i], emit);
  notInFuture(account, 'last_payment_review_date', 'last_payment_review_date_is_future_dated', [], ctx, emit);
}

function otherRules(account: Obj, ctx: RuleContext, emit: Emit) {
  consents(account.consents, ['consents'], ctx, emit);
  duplicateMetadataKeys(account.metadata, ['metadata'], emit);
  for (const [n, i] of objects(account.notes)) {
    const hasDocs = Array.isArray(n.document_paths) && n.document_paths.length > 0;
    if (isBlank(n.body) && !hasDocs) emit('note_body_or_document_path_not_found', ['notes', i], 'A note needs a body or document paths.');
  }
  for (const [s, i] of objects(account.statements)) {
    notInFuture(s, 'bill_period_to_date', 'historical_statement_period_end_in_future', ['statements', i], ctx, emit);
  }
  for (const [w, i] of objects(account.warm_home_discount)) {
    if (typeof w.tax_year === 'string' && !isTaxYear(w.tax_year)) {
      emit('incorrect_format_for_tax_year', ['warm_home_discount', i, 'tax_year'], 'A tax year looks like 2017/18.');
    }
  }
  if (isObj(account.dunning_path)) {
    const start = dayOf(account.dunning_path.start_date);
    if (start && start < ctx.today) emit('date_in_past', ['dunning_path', 'start_date'], 'The dunning path may not start in the past.');
  }
}

function duplicates(list: unknown, key: string, path: Path, code: string, emit: Emit, what: string) {
  const seen = new Set<string>();
  for (const [o, i] of objects(list)) {
    const v = o[key];
    if (typeof v !== 'string' || v === '') continue;
    if (seen.has(v)) emit(code, [...path, i, key], `${what} "${v}" is repeated.`);
    seen.add(v);
  }
}

/** The spec lets a meter have two registers with the same TPR for the odd TPRs 01201 to 01229. */
function mayRepeatTpr(tpr: string): boolean {
  if (!/^\d{5}$/.test(tpr)) return false;
  const n = Number(tpr);
  return n >= 1201 && n <= 1229 && n % 2 === 1;
}

/** Rules of the spec's x-validators that need no platform state, added for the pre-send check. */
function statelessRules(account: Obj, ctx: RuleContext, emit: Emit) {
  // Unique transaction ids across every transaction list of the account.
  const seenIds = new Set<string>();
  const lists: Array<[unknown, Path]> = [
    [account.current_statement_transactions, ['current_statement_transactions']],
    [account.historical_statement_transactions, ['historical_statement_transactions']],
    ...objects(account.ledgers).flatMap(([l, i]): Array<[unknown, Path]> => [
      [l.current_statement_transactions, ['ledgers', i, 'current_statement_transactions']],
      [l.historical_statement_transactions, ['ledgers', i, 'historical_statement_transactions']],
    ]),
  ];
  for (const [list, path] of lists) {
    for (const [t, i] of objects(list)) {
      if (typeof t.transaction_id !== 'string' || t.transaction_id === '') continue;
      if (seenIds.has(t.transaction_id)) emit('duplicate_transaction_ids', [...path, i, 'transaction_id'], `Transaction id "${t.transaction_id}" is repeated.`);
      seenIds.add(t.transaction_id);
    }
  }

  // Account campaigns: exactly one of slug / campaign_name, each campaign once.
  for (const [c, i] of objects(account.account_campaigns)) {
    const slug = present(c.slug);
    const name = present(c.campaign_name);
    if (slug && name) emit('campaign_name_and_slug_provided', ['account_campaigns', i], 'Give a campaign slug or a campaign name, not both.');
    if (!slug && !name) emit('campaign_name_or_slug_not_provided', ['account_campaigns', i], 'Give a campaign slug or a campaign name.');
  }
  duplicates(account.account_campaigns, 'slug', ['account_campaigns'], 'duplicate_account_campaigns', emit, 'Campaign');
  duplicates(account.account_campaigns, 'campaign_name', ['account_campaigns'], 'duplicate_account_campaigns', emit, 'Campaign');

  // Ledgers: statement issued on or after it closed; balances add up to the transfer balance.
  for (const [l, i] of objects(account.ledgers)) {
    const closed = dayOf(l.last_statement_closing_date);
    const issued = dayOf(l.last_statement_issue_date);
    if (closed && issued && issued < closed) {
      emit(
        'last_statement_issued_before_closing_date',
        ['ledgers', i, 'last_statement_issue_date'],
        'last_statement_issue_date must be on or after last_statement_closing_date.',
      );
    }
  }
  const ledgers = objects(account.ledgers);
  const transfer = scaled(account.transfer_balance);
  const balances = ledgers.map(([l]) => scaled(l.ledger_balance));
  if (transfer !== undefined && ledgers.length > 0 && balances.every((b) => b !== undefined)) {
    const sum = balances.reduce<bigint>((a, b) => a + b, 0n);
    if (sum !== transfer) emit('ledger_balances_not_equal_to_transfer_balance', ['transfer_balance'], 'The ledger balances must add up to transfer_balance.');
  }
  duplicates(account.payment_preferences, 'ledger_identifier', ['payment_preferences'], 'duplicate_ledger_in_payment_preferences', emit, 'Ledger');

  // Payment schedules: what a debt repayment plan and a balance trigger require.
  for (const [s, i] of objects(account.payment_schedules)) {
    const at: Path = ['payment_schedules', i];
    if (s.is_debt_repayment_plan === true && s.debt_repayment_end_date === undefined) {
      emit('debt_repayment_missing_end_date', [...at, 'debt_repayment_end_date'], 'A debt repayment plan needs debt_repayment_end_date.');
    }
    const debtEnd = dayOf(s.debt_repayment_end_date);
    const end = dayOf(s.end_date);
    if (debtEnd && end && debtEnd > end) {
      emit(
        'debt_repayment_end_date_after_schedule_end_date',
        [...at, 'debt_repayment_end_date'],
        'debt_repayment_end_date may not be after the schedule end_date.',
      );
    }
    if (s.trigger === 'BALANCE' && (s.balance_threshold === undefined || s.balance_threshold === null)) {
      emit('balance_triggered_schedule_missing_threshold', [...at, 'balance_threshold'], 'A balance-triggered schedule needs balance_threshold.');
    }
  }

  // Meters and meter points: future commissioning, repeated register ids / TPRs on one meter,
  // more than one open-ended AQ.
  for (const [sa, i] of objects(account.supply_addresses)) {
    for (const [mp, j] of objects(sa.meter_points)) {
      const mpPath: Path = ['supply_addresses', i, 'meter_points', j];
      for (const [m, k] of objects(mp.meters)) {
        const mPath: Path = [...mpPath, 'meters', k];
        notInFuture(m, 'smart_commissioned_on', 'future_smart_meter_commission_date', mPath, ctx, emit);
        duplicates(m.registers, 'register_id', [...mPath, 'registers'], 'meter_with_duplicate_register_ids', emit, 'Register id');
        if (mp.supply_type === 'ELECTRICITY') {
          const seen = new Set<string>();
          for (const [r, k] of objects(m.registers)) {
            const tpr = r.tpr;
            if (typeof tpr !== 'string' || tpr === '') continue;
            if (seen.has(tpr) && !mayRepeatTpr(tpr)) emit('registers_have_duplicate_tprs', [...mPath, 'registers', k, 'tpr'], `TPR "${tpr}" is repeated.`);
            seen.add(tpr);
          }
        }
      }
      const openAqs = objects(mp.aq_history).filter(([aq]) => aq.effective_to === undefined || aq.effective_to === null);
      for (const [, k] of openAqs.slice(1)) {
        emit('multiple_open_ended_aqs_in_meterpoint_aq_history', [...mpPath, 'aq_history', k, 'effective_to'], 'At most one AQ entry may be open-ended.');
      }
    }
  }

  // Campaigns: the expiry date after the start date.
  for (const [c, i] of objects(account.account_campaigns)) {
    const start = dayOf(c.start_date);
    const expiry = dayOf(c.expiry_date);
    if (start && expiry && expiry <= start)
      emit('start_date_same_as_end_date', ['account_campaigns', i, 'expiry_date'], 'expiry_date must be after start_date.');
  }
}

/** An Emit appending to `errors` (made here, not inline: tsx's keepNames would rename an inline arrow on every call). */
function emitterInto(errors: ValidationError[]): Emit {
  return (code, path, detail) => {
    errors.push(validationError(code, path, detail));
  };
}

/** Every cross-field rule over one account payload (raw or parsed). */
export function accountRuleErrors(payload: unknown, ctx: RuleContext): ValidationError[] {
  if (!isObj(payload)) return [];
  const errors: ValidationError[] = [];
  const emit = emitterInto(errors);
  customerRules(payload, ctx, emit);
  billingAddressRules(payload, emit);
  supplyAddressRules(payload, ctx, emit);
  moneyRules(payload, ctx, emit);
  otherRules(payload, ctx, emit);
  statelessRules(payload, ctx, emit);
  paymentRules(payload, ctx, emit);
  meterRules(payload, ctx, emit);
  accountRules(payload, ctx, emit);
  return errors;
}

export interface TaskParamsContext {
  /** The current instant. */
  now: Date;
}

/** The spec's schedule window rules: start not in the past, end at most 4 days ahead, start before end. */
export function taskParamsRuleErrors(taskParams: unknown, ctx: TaskParamsContext, prefix: Path = ['task_params']): ValidationError[] {
  if (!isObj(taskParams)) return [];
  const errors: ValidationError[] = [];
  const start = typeof taskParams.schedule_window_start === 'string' ? Date.parse(taskParams.schedule_window_start) : NaN;
  const end = typeof taskParams.schedule_window_end === 'string' ? Date.parse(taskParams.schedule_window_end) : NaN;
  const now = ctx.now.getTime();
  if (!Number.isNaN(start) && start < now) {
    errors.push(validationError('schedule_window_start_in_past', [...prefix, 'schedule_window_start'], 'schedule_window_start may not be in the past.'));
  }
  if (!Number.isNaN(end) && end > now + MAX_SCHEDULE_AHEAD_MS) {
    errors.push(
      validationError('schedule_window_end_too_far_in_future', [...prefix, 'schedule_window_end'], 'schedule_window_end may be at most 4 days ahead.'),
    );
  }
  if (!Number.isNaN(start) && !Number.isNaN(end) && start >= end) {
    errors.push(
      validationError('schedule_window_start__after_end', [...prefix, 'schedule_window_start'], 'schedule_window_start must be before schedule_window_end.'),
    );
  }
  return errors;
}

export const MAX_SCHEDULE_AHEAD_MS = 4 * 24 * 60 * 60 * 1000;
