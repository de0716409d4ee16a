import { dayOf } from './formats';
import {
  type Emit,
  type Obj,
  type Path,
  given,
  nextDay,
  isObj,
  meterPoints,
  objects,
  openEnded,
  present,
  repeated,
  scaled,
  sumOf,
  type RuleContext,
} from './rule-kit';

/**
 * The spec's payment, ledger and transaction `x-validators` that need only the payload (and today):
 * payment schedules, preferences and instructions, ledgers, statement transactions and their balances,
 * supply charge line items. Codes are the platform's; attrs name the field it would point at.
 */

/** A schedule without `trigger` is a fixed (REGULAR) one, as the spec's `trigger` description says. */
const triggerOf = (s: Obj): string => (typeof s.trigger === 'string' ? s.trigger : 'REGULAR');

/** Either every item carries a ledger code or none does. */
function ledgerCodeUniformity(list: unknown, key: string, code: string, emit: Emit) {
  const items = objects(list);
  const withCode = items.filter(([o]) => present(o.ledger_code)).length;
  if (withCode > 0 && withCode < items.length) emit(code, [key], `Give a ledger_code on every item of ${key} or on none.`);
}

function scheduleFields(s: Obj, at: Path, emit: Emit) {
  const trigger = triggerOf(s);
  if (trigger !== 'BILL') {
    const amount = scaled(s.amount);
    if (s.amount === undefined || amount === 0n)
      emit('zero_payment_schedule_amount', [...at, 'amount'], 'A payment schedule not triggered by BILL needs a non-zero amount.');
  }
  if (trigger === 'REGULAR') {
    if (openEnded(s.frequency)) emit('fixed_payment_schedule_missing_frequency', [...at, 'frequency'], 'A regular (fixed) payment schedule needs a frequency.');
    if (openEnded(s.day_of_month))
      emit('fixed_payment_schedule_missing_day_of_month', [...at, 'day_of_month'], 'A regular (fixed) payment schedule needs a day_of_month.');
  }
  // Only regular schedules may be exempt; REGULAR_PLAN is left to the platform (the spec does not say).
  if (s.exempt_from_payment_adequacy === true && (trigger === 'PLAN' || trigger === 'BALANCE' || trigger === 'BILL')) {
    emit(
      'invalid_payment_schedule_to_exempt_from_payment_adequacy',
      [...at, 'exempt_from_payment_adequacy'],
      'Only a regular payment schedule may be exempt from payment adequacy.',
    );
  }
  if (given(s.delay_strategy) && openEnded(s.delay_days)) {
    emit('payment_schedule_delay_strategy_missing_delay_days', [...at, 'delay_days'], 'delay_days is required when delay_strategy is set.');
  }
  if ((given(s.delay_strategy) || given(s.delay_days)) && trigger !== 'BILL') {
    emit('payment_schedule_delay_must_have_bill_trigger', [...at, 'trigger'], 'delay_strategy and delay_days apply only to a BILL-triggered schedule.');
  }

  const instalments = objects(s.instalments);
  if (trigger === 'PLAN' && instalments.length === 0)
    emit('payment_instalments_not_provided', [...at, 'instalments'], 'A PLAN-triggered schedule needs instalments.');
  if (instalments.length === 0) return;
  const total = scaled(s.amount);
  const sum = sumOf(instalments, 'amount');
  if (total !== undefined && sum !== undefined && sum !== total) {
    emit('payment_instalments_do_not_sum_to_total', [...at, 'instalments'], 'The instalment amounts must add up to the schedule amount.');
  }
  const start = dayOf(s.start_date);
  const end = dayOf(s.end_date);
  for (const [p, k] of instalments) {
    const d = dayOf(p.payment_date);
    if (d && ((start && d < start) || (end && d > end))) {
      emit(
        'payment_instalments_date_outside_of_payment_schedule_active_period',
        [...at, 'instalments', k, 'payment_date'],
        'An instalment must fall between the schedule start_date and end_date.',
      );
    }
  }
  // The unique pair is (payment_date, payment_type); payment_type is never sent, so payment_date alone.
  repeated(instalments, 'payment_date', (v, k) =>
    emit('children_with_duplicate_values', [...at, 'instalments', k, 'payment_date'], `Two instalments fall on ${v}.`),
  );
}

/** Within each ledger_code group, schedules that are not debt repayment plans: one open end, no shared start, no overlap. */
function scheduleGroups(schedules: Array<[Obj, number]>, emit: Emit) {
  const groups = new Map<string, Array<{ i: number; start: string; end: string | null }>>();
  for (const [s, i] of schedules) {
    if (s.is_debt_repayment_plan === true) continue;
    const start = dayOf(s.start_date);
    const end = openEnded(s.end_date) ? null : dayOf(s.end_date);
    if (!start || end === undefined) continue; // unreadable: the schema reports it
    const key = present(s.ledger_code) ? s.ledger_code : '';
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push({ i, start, end });
  }
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    for (const o of g.filter((x) => x.end === null).slice(1)) {
      emit(
        'multiple_open_ended_payment_schedules',
        ['payment_schedules', o.i, 'end_date'],
        'Only one open-ended payment schedule (other than a debt repayment plan) is allowed per ledger.',
      );
    }
    g.sort((x, y) => (x.start < y.start ? -1 : x.start > y.start ? 1 : x.i - y.i));
    for (let b = 1; b < g.length; b++) {
      // Overlap whether end_date is inclusive or exclusive: same start, or starts strictly before an earlier one ends.
      const clash = g.slice(0, b).find((a) => a.start === g[b].start || a.end === null || g[b].start < a.end);
      if (clash) {
        emit('payment_schedule_date_overlaps', ['payment_schedules', g[b].i, 'start_date'], `This payment schedule overlaps payment schedule ${clash.i}.`);
      }
    }
  }
}

function preferences(account: Obj, emit: Emit) {
  const ledgerIds = new Set<string>();
  for (const [l] of objects(account.ledgers)) if (present(l.ledger_identifier)) ledgerIds.add(l.ledger_identifier);
  const instructionIds = new Set<string>();
  for (const [p] of objects(account.payment_instructions)) if (present(p.instruction_identifier)) instructionIds.add(p.instruction_identifier);
  for (const [p, i] of objects(account.payment_preferences)) {
    if (present(p.ledger_identifier) && !ledgerIds.has(p.ledger_identifier)) {
      emit(
        'invalid_payment_preference_ledger_identifier',
        ['payment_preferences', i, 'ledger_identifier'],
        `No ledger in this payload has ledger_identifier "${p.ledger_identifier}".`,
      );
    }
    const params = p.instruction_reference_params;
    if (p.type === 'ACTIVE_NEW' && isObj(params) && present(params.instruction_identifier) && !instructionIds.has(params.instruction_identifier)) {
      emit(
        'active_new_payment_preference_invalid_instruction_identifier',
        ['payment_preferences', i, 'instruction_reference_params', 'instruction_identifier'],
        `No payment instruction in this payload has instruction_identifier "${params.instruction_identifier}".`,
      );
    }
  }
}

const SIGN: Record<string, bigint> = { PAYMENT: 1n, CREDIT: 1n, REPAYMENT: -1n, CHARGE: -1n, SUPPLY_CHARGE: -1n };
const isPrepay = (t: Obj) => present(t.to_prepay_meter_serial_number);

/** The balance effect of transactions (payments and credits add, the rest subtract), prepay ones left out. */
function signedSum(items: ReadonlyArray<[Obj, number]>): bigint | undefined {
  let sum = 0n;
  for (const [t] of items) {
    if (isPrepay(t)) continue;
    const sign = typeof t.type === 'string' ? SIGN[t.type] : undefined;
    const amount = scaled(t.amount);
    if (sign === undefined || amount === undefined) return undefined;
    sum += sign * amount;
  }
  return sum;
}

function supplyCharge(t: Obj, at: Path, emit: Emit) {
  const lines = objects(t.line_items);
  let needsSupplyPoint = false;
  for (const [l, j] of lines) {
    const specs = [l.rate_band, l.rate_specification_code, l.time_series_specification_code].filter(present).length;
    if (specs !== 1) {
      emit(
        'conflicting_rate_band_specification',
        [...at, 'line_items', j],
        'Give exactly one of rate_band, rate_specification_code, time_series_specification_code.',
      );
    }
    if (Array.isArray(l.units) && l.units.length !== 0 && l.units.length !== 2) {
      emit('line_item_units_must_be_two_values', [...at, 'line_items', j, 'units'], 'units must hold exactly two values.');
    }
    if (present(l.rate_specification_code)) needsSupplyPoint = true;
  }
  if (needsSupplyPoint && !present(t.supply_point_identifier)) {
    emit(
      'supply_point_identifier_required_for_rate_specification_code',
      [...at, 'supply_point_identifier'],
      'supply_point_identifier is required when a line item uses rate_specification_code.',
    );
  }
  const amount = scaled(t.amount);
  const net = sumOf(lines, 'net_amount');
  const tax = sumOf(objects(t.tax_items), 'amount');
  if (lines.length > 0 && amount !== undefined && net !== undefined && tax !== undefined && net + tax !== amount) {
    emit(
      'ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount',
      [...at, 'amount'],
      'The supply charge amount must equal its line items’ net amounts plus its tax amounts.',
    );
  }
}

interface Statement {
  path: Path;
  current: unknown;
  historical: unknown;
  /** The ledger's own fields; undefined for the account-level lists. */
  ledger?: Obj;
}

interface TxnContext {
  accountLastBilled: string | undefined;
  anyLastBilled: boolean;
  prepaySerials: Set<string>;
}

function statementRules(st: Statement, tc: TxnContext, emit: Emit) {
  const current = objects(st.current);
  const historical = objects(st.historical);
  const closing = st.ledger ? dayOf(st.ledger.last_statement_closing_date) : undefined;

  if (historical.length > 0 && st.ledger && !given(st.ledger.last_statement_closing_date) && !tc.anyLastBilled) {
    emit(
      'historical_statement_transactions_without_last_statement_closing_date_or_last_billed_to_date',
      [...st.path, 'last_statement_closing_date'],
      'Historical statement transactions need a last_statement_closing_date or a last_billed_to_date.',
    );
  }

  let earliestCurrent: string | undefined;
  for (const [t] of current) {
    const d = dayOf(t.transaction_date);
    if (d && (earliestCurrent === undefined || d < earliestCurrent)) earliestCurrent = d;
  }
  const opening = closing ? nextDay(closing) : undefined;

  let firstDocument: string | undefined;
  for (const [t, k] of historical) {
    const at: Path = [...st.path, 'historical_statement_transactions', k];
    const d = dayOf(t.transaction_date);
    if (d && earliestCurrent && d > earliestCurrent) {
      emit(
        'historical_statement_transaction_after_current_statement_transaction',
        [...at, 'transaction_date'],
        'Historical statement transactions must be dated before the current statement transactions.',
      );
    }
    if (d && closing && d > closing) {
      emit(
        'historical_statement_transaction_after_last_statement_closing_date',
        [...at, 'transaction_date'],
        'A historical statement transaction may not be after last_statement_closing_date.',
      );
    }
    if (present(t.billing_document_identifier)) {
      if (firstDocument === undefined) firstDocument = t.billing_document_identifier;
      else if (t.billing_document_identifier !== firstDocument) {
        emit(
          'historical_statement_billing_document_identifier_mismatch',
          [...at, 'billing_document_identifier'],
          'Every historical statement transaction must carry the same billing_document_identifier.',
        );
      }
    }
    targetPrepay(t, at, tc, emit);
    if (t.type === 'SUPPLY_CHARGE') supplyCharge(t, at, emit);
  }
  for (const [t, k] of current) {
    const at: Path = [...st.path, 'current_statement_transactions', k];
    const d = dayOf(t.transaction_date);
    if (d && !isPrepay(t) && opening && d < opening) {
      emit(
        'current_statement_transaction_before_current_statement_opening_date',
        [...at, 'transaction_date'],
        'A current statement transaction may not be before the day after last_statement_closing_date.',
      );
    }
    if (d && !isPrepay(t) && tc.accountLastBilled && d < tc.accountLastBilled) {
      emit(
        'current_statement_transaction_before_last_billed_to_date',
        [...at, 'transaction_date'],
        'A current statement transaction may not be before last_billed_to_date.',
      );
    }
    if (given(t.billing_document_identifier)) {
      emit(
        'billing_document_identifier_not_allowed_for_current_statement_transactions',
        [...at, 'billing_document_identifier'],
        'billing_document_identifier applies to historical statement transactions only.',
      );
    }
    targetPrepay(t, at, tc, emit);
    if (t.type === 'SUPPLY_CHARGE') supplyCharge(t, at, emit);
  }

  if (!st.ledger) return;
  const lastStatement = scaled(st.ledger.last_statement_balance);
  if (lastStatement === undefined) return;
  const historicalSum = signedSum(historical);
  if (historical.length > 0 && historicalSum !== undefined && historicalSum !== lastStatement) {
    emit(
      'historical_statement_transactions_balance_mismatch',
      [...st.path, 'last_statement_balance'],
      'The historical statement transactions must add up to last_statement_balance.',
    );
  }
  const balance = scaled(st.ledger.ledger_balance);
  const currentSum = signedSum(current);
  if (balance !== undefined && currentSum !== undefined && lastStatement + currentSum !== balance) {
    emit(
      'balance_mismatch_on_transfer_balance',
      [...st.path, 'ledger_balance'],
      'last_statement_balance plus the current statement transactions must equal the balance.',
    );
  }
}

function targetPrepay(t: Obj, at: Path, tc: TxnContext, emit: Emit) {
  if (present(t.to_prepay_meter_serial_number) && !tc.prepaySerials.has(t.to_prepay_meter_serial_number)) {
    emit(
      'transactions_target_non_initialised_prepay_meter',
      [...at, 'to_prepay_meter_serial_number'],
      `No meter with prepay_details has serial number "${t.to_prepay_meter_serial_number}".`,
    );
  }
}

/** Payment schedules, preferences and instructions, ledgers and statement transactions. */
export function paymentRules(account: Obj, ctx: RuleContext, emit: Emit): void {
  void ctx;
  const schedules = objects(account.payment_schedules);
  ledgerCodeUniformity(account.payment_schedules, 'payment_schedules', 'payment_schedules_ledger_code_uniformity_failed', emit);
  for (const [s, i] of schedules) scheduleFields(s, ['payment_schedules', i], emit);
  scheduleGroups(schedules, emit);
  ledgerCodeUniformity(account.payment_instructions, 'payment_instructions', 'payment_instructions_ledger_code_uniformity_failed', emit);
  preferences(account, emit);

  const ledgers = objects(account.ledgers);
  repeated(ledgers, 'ledger_code', (v, i) => emit('duplicate_ledger_entries_found', ['ledgers', i, 'ledger_code'], `Ledger code "${v}" is given twice.`));
  repeated(ledgers, 'ledger_identifier', (v, i) =>
    emit('duplicate_identifiers_entries_found', ['ledgers', i, 'ledger_identifier'], `Ledger identifier "${v}" is given twice.`),
  );

  // What the transaction rules need from elsewhere in the payload: last billed dates, prepay meters.
  let anyLastBilled = given(account.last_billed_to_date);
  const prepaySerials = new Set<string>();
  for (const { mp } of meterPoints(account)) {
    if (given(mp.last_billed_to_date)) anyLastBilled = true;
    for (const [m] of objects(mp.meters)) {
      if (given(m.last_billed_to_date)) anyLastBilled = true;
      for (const [r] of objects(m.registers)) if (given(r.last_billed_to_date)) anyLastBilled = true;
      if (isObj(m.prepay_details) && present(m.meter_serial_number)) prepaySerials.add(m.meter_serial_number);
    }
  }
  const tc: TxnContext = { accountLastBilled: dayOf(account.last_billed_to_date), anyLastBilled, prepaySerials };
  statementRules({ path: [], current: account.current_statement_transactions, historical: account.historical_statement_transactions }, tc, emit);
  for (const [l, i] of ledgers) {
    statementRules({ path: ['ledgers', i], current: l.current_statement_transactions, historical: l.historical_statement_transactions, ledger: l }, tc, emit);
  }
}
