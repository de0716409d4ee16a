import { type ValidationError, validationError } from './errors';
import { dayOf, isTaxYear, isUkPostcode } from './formats';
import {
  type Emit,
  type Obj,
  type Path,
  type RuleContext,
  duplicateMetadataKeys,
  duplicates,
  endBeforeStart,
  isObj,
  notInFuture,
  objects,
  present,
  scaled,
} from './rule-kit';
import { accountRules } from './rules-account';
import { consentRules, customerRules } from './rules-customers';
import { meterRules } from './rules-meters';
import { paymentRules } from './rules-payments';
import { switchRules } from './rules-switch';

/**
 * Cross-field rules from the spec's `x-validators`, with the spec's own codes. They run on the raw
 * payload even when field-level checks failed (so every error is reported at once), hence the
 * defensive reads: a rule only fires on values it can read as the right type, and leaves shape
 * errors to the schema. Each error's attr is the field the platform would point at. This file holds
 * the billing-address, money, note, statement, ledger, campaign and schedule-window rules and runs
 * the rest: customers (rules-customers.ts), meter points (rules-meters.ts), payments
 * (rules-payments.ts), the account as a whole (rules-account.ts); the readers they share are in
 * rule-kit.ts.
 */

// The context type is exported from here too.
export type { RuleContext };

const isBlank = (v: unknown) => !present(v);

const OCCUPIER_TYPES = new Set(['DOMESTIC_OCCUPIER', 'BUSINESS_OCCUPIER']);

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
  consentRules(account.consents, ['consents'], ctx, emit);
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
  moneyRules(payload, ctx, emit);
  otherRules(payload, ctx, emit);
  statelessRules(payload, ctx, emit);
  paymentRules(payload, ctx, emit);
  meterRules(payload, ctx, emit);
  accountRules(payload, ctx, emit);
  switchRules(payload, ctx, emit);
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
