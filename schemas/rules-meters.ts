import { dayOf } from './formats';
import {
  type Emit,
  type Obj,
  type Path,
  given,
  nextDay,
  isActiveMeter,
  isBillable,
  isObj,
  meterPoints,
  objects,
  openEnded,
  present,
  type RuleContext,
} from './rule-kit';

/**
 * The spec's meter point, meter, register, reading, agreement, AQ and EAC `x-validators` that need
 * only the payload and today. Billable = supply open-ended or ending today or later; active meter =
 * not removed on or before today (the same readings as `rules.ts`).
 */

/** Electricity prepay customer reference numbers must read as an integer once whitespace is removed. */
const INTEGER = /^[+-]?\d+$/;

function agreementRules(mp: Obj, path: Path, lastBilled: string | undefined, billable: boolean, emit: Emit) {
  const start = dayOf(mp.supply_start_date);
  const agreements = objects(mp.agreements);
  let readable = true;
  let covered = false;
  for (const [a] of agreements) {
    const from = dayOf(a.effective_from);
    const to = openEnded(a.effective_to) ? null : dayOf(a.effective_to);
    if (!from || to === undefined || (to !== null && to < from)) {
      readable = false; // unreadable or reversed dates: reported by the schema / start_date_later_than_end_date
      continue;
    }
    // Covered whether effective_to is read as inclusive or exclusive: only the looser reading is enforced.
    if (lastBilled && from <= lastBilled && (to === null || lastBilled <= to)) covered = true;
  }
  if (billable && lastBilled && start && lastBilled >= start && agreements.length > 0 && readable && !covered) {
    emit('no_agreement_covering_last_billed_to_date', [...path, 'agreements'], `No agreement covers the last billed to date ${lastBilled}.`);
  }
}

function readingsOf(m: Obj): Array<[Obj, number, 'transfer_readings' | 'reading_history']> {
  return [
    ...objects(m.transfer_readings).map(([r, k]): [Obj, number, 'transfer_readings'] => [r, k, 'transfer_readings']),
    ...objects(m.reading_history).map(([r, k]): [Obj, number, 'reading_history'] => [r, k, 'reading_history']),
  ];
}

interface MeterContext {
  elec: boolean;
  billable: boolean;
  accountLastBilled: string | undefined;
  /** The meter point carries its own last_billed_to_date: which level the transfer date must match is then not pinned down. */
  pointLastBilled: boolean;
  today: string;
}

/** The last billed date a reading is judged by: its register's (electricity) or its meter's (gas). */
function levelLastBilled(r: Obj, m: Obj, elec: boolean, registers: Map<string, string | undefined>): string | undefined {
  if (!elec) return dayOf(m.last_billed_to_date);
  return present(r.register_id) ? registers.get(r.register_id) : undefined;
}

const byFrom = (x: { from: string; k: number }, y: { from: string; k: number }) => (x.from < y.from ? -1 : x.from > y.from ? 1 : x.k - y.k);

function singleMeterRules(m: Obj, at: Path, mc: MeterContext, emit: Emit) {
  const active = isActiveMeter(m, mc.today);
  const registers = objects(m.registers);
  const registerLastBilled = new Map<string, string | undefined>();
  for (const [r] of registers) if (present(r.register_id)) registerLastBilled.set(r.register_id, dayOf(r.last_billed_to_date));

  if (mc.elec) {
    if (active && registers.length === 0)
      emit('registers_missing_for_active_electricity_meter', [...at, 'registers'], 'An active electricity meter needs at least one register.');
    const known = registerLastBilled.size > 0;
    for (const [r, k] of objects(m.transfer_readings)) {
      if (!present(r.register_id))
        emit('reading_without_register_id', [...at, 'transfer_readings', k, 'register_id'], 'An electricity transfer reading needs a register_id.');
      else if (known && !registerLastBilled.has(r.register_id)) {
        emit(
          'reading_register_id_not_recognised',
          [...at, 'transfer_readings', k, 'register_id'],
          `Register ${r.register_id} is not a register of this meter.`,
        );
      }
    }
    for (const [r, k] of objects(m.reading_history)) {
      if (!present(r.register_id))
        emit('no_register_id_for_reading', [...at, 'reading_history', k, 'register_id'], 'An electricity reading needs a register_id.');
      else if (known && !registerLastBilled.has(r.register_id)) {
        emit(
          'historical_reading_register_id_not_recognised',
          [...at, 'reading_history', k, 'register_id'],
          `Register ${r.register_id} is not a register of this meter.`,
        );
      }
    }
    if (m.is_prepay === true) {
      const ref = m.prepay_customer_reference_number;
      if (active && !present(ref)) {
        emit(
          'electricity_prepay_meter_without_customer_reference_number',
          [...at, 'prepay_customer_reference_number'],
          'An active electricity prepay meter needs a prepay_customer_reference_number.',
        );
      }
      if (present(ref) && !INTEGER.test(ref.replace(/\s+/g, ''))) {
        emit(
          'invalid_prepay_customer_reference_number',
          [...at, 'prepay_customer_reference_number'],
          'The prepay customer reference number must be a whole number.',
        );
      }
    }
  }
  if (m.is_prepay !== true && isObj(m.prepay_details)) {
    emit('prepay_details_on_non_prepay_meter', [...at, 'prepay_details'], 'prepay_details apply only to a meter with is_prepay true.');
  }
  // smart_type defaults to NONE ("not a smart meter"); the smart fields "should not be provided otherwise".
  if (openEnded(m.smart_type) || m.smart_type === 'NONE') {
    const field = present(m.smart_device_id) ? 'smart_device_id' : given(m.smart_commissioned_on) ? 'smart_commissioned_on' : undefined;
    if (field) emit('smart_details_provided_for_non_smart_meter', [...at, field], `${field} applies only to a smart meter (smart_type).`);
  }

  for (const [r, k] of objects(m.reading_history)) {
    const lb = levelLastBilled(r, m, mc.elec, registerLastBilled);
    const d = dayOf(r.reading_date);
    if (r.billed === true && lb && d && d > lb) {
      emit(
        'billed_reading_after_last_billed_to_date',
        [...at, 'reading_history', k, 'reading_date'],
        `A billed reading may not be after the last billed to date ${lb}.`,
      );
    }
  }
  if (mc.billable && active) {
    for (const [r, k] of objects(m.transfer_readings)) {
      const expected = levelLastBilled(r, m, mc.elec, registerLastBilled) ?? (mc.pointLastBilled ? undefined : mc.accountLastBilled);
      const d = dayOf(r.reading_date);
      if (expected && d && d !== expected) {
        emit(
          'transfer_reading_dates_must_match_last_billed_to_date',
          [...at, 'transfer_readings', k, 'reading_date'],
          `A transfer reading must be dated on the last billed to date ${expected}.`,
        );
      }
    }
  }
}

function electricityHistory(mp: Obj, path: Path, billable: boolean, today: string, emit: Emit) {
  const eacs = objects(mp.eac_history);
  const seen = new Set<string>();
  const tprs = new Set<string>();
  for (const [e, k] of eacs) {
    if (!present(e.tpr)) continue;
    tprs.add(e.tpr);
    const from = dayOf(e.effective_from);
    if (!from) continue;
    const key = `${from}|${e.tpr}`;
    if (seen.has(key)) emit('repeated_eac_for_tpr', [...path, 'eac_history', k], `TPR ${e.tpr} has two EACs from ${from}.`);
    seen.add(key);
  }
  if (!billable) return;
  for (const [m, mi] of objects(mp.meters)) {
    if (!isActiveMeter(m, today)) continue;
    for (const [r, ri] of objects(m.registers)) {
      if (r.is_settlement === false || !present(r.tpr) || tprs.has(r.tpr)) continue;
      emit('missing_eacs_for_active_register_tpr', [...path, 'meters', mi, 'registers', ri, 'tpr'], `eac_history has no EAC for TPR ${r.tpr}.`);
    }
  }
}

function gasHistory(mp: Obj, path: Path, billable: boolean, today: string, emit: Emit) {
  const aqs: Array<{ from: string; to: string | null; k: number }> = [];
  for (const [aq, k] of objects(mp.aq_history)) {
    const from = dayOf(aq.effective_from);
    const to = openEnded(aq.effective_to) ? null : dayOf(aq.effective_to);
    if (!from || to === undefined) return; // unreadable: the schema reports it
    aqs.push({ from, to, k });
  }
  aqs.sort(byFrom);
  for (let n = 1; n < aqs.length; n++) {
    const prev = aqs[n - 1];
    // effective_to is inclusive here: the next entry starts the day after it.
    if (prev.to === null || aqs[n].from !== nextDay(prev.to)) {
      emit(
        'gaps_or_overlaps_in_aq_history',
        [...path, 'aq_history', aqs[n].k, 'effective_from'],
        'Each AQ entry must start the day after the previous one ends.',
      );
    }
  }
  let current = false;
  for (const a of aqs) if (a.to === null || a.to >= today) current = true;
  if (billable && !current) {
    emit('no_current_or_future_aq_entry_found', [...path, 'aq_history'], 'A billable gas meter point needs a current or future AQ entry.');
  }
}

/** Meter points, their agreements, meters, registers, readings and consumption histories. */
/**
 * A meter point's VAT and CCL exemptions, each list on its own: an end after the start, one open
 * end, no overlap (read as payment schedules are: overlapping whether effective_to is inclusive or
 * not, so touching periods pass), and none on a domestic account.
 */
function taxExemptionRules(mp: Obj, path: Path, domestic: boolean, emit: Emit) {
  for (const key of ['ccl_exemptions', 'vat_exemptions'] as const) {
    const list = objects(mp[key]);
    if (list.length === 0) continue;
    if (domestic) emit('tax_exemptions_provided_for_domestic_account', [...path, key], 'Tax exemptions are for business accounts only.');
    const periods: Array<{ i: number; from: string; to: string | null }> = [];
    for (const [x, i] of list) {
      const from = dayOf(x.effective_from);
      const to = openEnded(x.effective_to) ? null : dayOf(x.effective_to);
      if (!from || to === undefined) continue; // unreadable: the schema reports it
      if (to !== null && to <= from) emit('start_date_same_as_end_date', [...path, key, i, 'effective_to'], 'effective_to must be later than effective_from.');
      periods.push({ i, from, to });
    }
    for (const o of periods.filter((p) => p.to === null).slice(1)) {
      emit('multiple_open_ended_tax_exemptions', [...path, key, o.i, 'effective_to'], 'Only one open-ended tax exemption is allowed.');
    }
    periods.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.i - b.i));
    for (let b = 1; b < periods.length; b++) {
      const clash = periods
        .slice(0, b)
        .find((a) => a.from === periods[b].from || (a.to !== null && periods[b].from < a.to) || (a.to === null && periods[b].to !== null));
      if (clash)
        emit('overlapping_effective_dates_for_tax_exemptions', [...path, key, periods[b].i, 'effective_from'], `This exemption overlaps exemption ${clash.i}.`);
    }
  }
}

export function meterRules(account: Obj, ctx: RuleContext, emit: Emit): void {
  const { today } = ctx;
  const accountLastBilled = dayOf(account.last_billed_to_date);
  const points = meterPoints(account);
  let billableCount = 0;
  for (const { mp, path } of points) {
    const billable = isBillable(mp, today);
    if (billable) billableCount++;
    const start = dayOf(mp.supply_start_date);
    const end = dayOf(mp.supply_end_date);
    if (end && end > today) {
      emit('future_supply_end_date', [...path, 'supply_end_date'], 'A meter point may not end supply in the future.');
      emit('loss_in_progress', [...path, 'supply_end_date'], 'A future supply_end_date means a loss is in progress.');
    }
    if (billable && start && start > today)
      emit('future_supply_start_date', [...path, 'supply_start_date'], 'A billable meter point may not start supply in the future.');
    if (mp.dr_in_progress === true)
      emit('disputed_read_in_progress', [...path, 'dr_in_progress'], 'The platform refuses a meter point with a disputed read in progress.');
    const refusal = mp.smart_refusal_interest;
    if (isObj(refusal) && refusal.type === 'INTERESTED' && given(refusal.refusal_reason)) {
      emit(
        'smart_refusal_reason_given_for_interest',
        [...path, 'smart_refusal_interest', 'refusal_reason'],
        'A refusal_reason applies only when the interest is not INTERESTED.',
      );
    }

    taxExemptionRules(mp, path, typeof account.account_type === 'string' && account.account_type.startsWith('DOMESTIC'), emit);

    const pointLastBilled = dayOf(mp.last_billed_to_date);
    agreementRules(mp, path, pointLastBilled ?? accountLastBilled, billable, emit);

    const elec = mp.supply_type === 'ELECTRICITY';
    const mc: MeterContext = { elec, billable, accountLastBilled, pointLastBilled: given(mp.last_billed_to_date), today };
    const meters = objects(mp.meters);
    for (const [m, k] of meters) singleMeterRules(m, [...path, 'meters', k], mc, emit);

    // Off supply with meters: a final reading on the supply end date.
    if (end && end < today && meters.length > 0 && !meters.some(([m]) => readingsOf(m).some(([r]) => r.reading_date === end))) {
      emit('no_reading_on_supply_end_date', [...path, 'supply_end_date'], `An off-supply meter point needs a reading on its supply_end_date ${end}.`);
    }

    if (elec) electricityHistory(mp, path, billable, today, emit);
    else if (mp.supply_type === 'GAS') gasHistory(mp, path, billable, today, emit);
  }
  if (points.length > 0 && billableCount === 0) {
    emit('no_supply_point_on_supply', ['supply_addresses'], 'At least one meter point must be on supply (open-ended or ending today or later).');
  }
}
