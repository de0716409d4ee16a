import { dayOf } from './formats';
import {
  type Emit,
  type Obj,
  type Path,
  dateField,
  duplicates,
  endBeforeStart,
  given,
  nextDay,
  isActiveMeter,
  isBillable,
  isObj,
  meterPoints,
  objects,
  notInFuture,
  openEnded,
  present,
  type RuleContext,
} from './rule-kit';
import { meterPeriodRules } from './rules-meter-periods';

/**
 * Every meter-point rule: the spec's meter point, meter, register, reading, agreement, AQ and EAC
 * `x-validators` that need only the payload and today, with the dated period lists of
 * rules-meter-periods.ts (configuration periods, capacity values, tax exemptions) run from
 * `meterRules` too. Billable = supply open-ended or ending today or later; active meter = not removed
 * on or before today.
 */

/** Measurement classes B and D are unmetered supplies: no meters expected. */
const UNMETERED_CLASSES = new Set(['B', 'D']);

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

/** A meter point's identifier once per supply address and on one supply address only. */
function duplicateMeterPoints(points: ReturnType<typeof meterPoints>, emit: Emit) {
  const seenAcross = new Map<string, number>();
  let seenHere = new Set<string>();
  let address = -1;
  for (const { mp, path, address: i } of points) {
    if (i !== address) {
      seenHere = new Set<string>();
      address = i;
    }
    if (typeof mp.identifier !== 'string' || mp.identifier === '') continue;
    const id = mp.identifier;
    if (seenHere.has(id)) {
      emit('duplicate_meter_points_provided', [...path, 'identifier'], `Meter point ${id} is given twice on this supply address.`);
    } else if (seenAcross.has(id) && seenAcross.get(id) !== i) {
      emit('duplicate_meter_points_on_different_supply_addresses_provided', [...path, 'identifier'], `Meter point ${id} is on another supply address too.`);
    }
    seenHere.add(id);
    if (!seenAcross.has(id)) seenAcross.set(id, i);
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

/**
 * Supply dates in order, agreements and meters present while on supply, one transfer reading per
 * settlement register (electricity) or per active meter (gas). An unreadable removed_on counts as
 * active here (the schema reports it), unlike isActiveMeter in rule-kit.ts.
 */
function supplyRules(mp: Obj, path: Path, ctx: RuleContext, emit: Emit) {
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

/** The spec lets a meter have two registers with the same TPR for the odd TPRs 01201 to 01229. */
function mayRepeatTpr(tpr: string): boolean {
  if (!/^\d{5}$/.test(tpr)) return false;
  const n = Number(tpr);
  return n >= 1201 && n <= 1229 && n % 2 === 1;
}

/** Future commissioning, repeated register ids / TPRs on one meter, more than one open-ended AQ. */
function registerAndAqRules(mp: Obj, mpPath: Path, ctx: RuleContext, emit: Emit) {
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

/** Meter points, their agreements, meters, registers, readings, consumption histories and periods. */
export function meterRules(account: Obj, ctx: RuleContext, emit: Emit): void {
  const { today } = ctx;
  const accountLastBilled = dayOf(account.last_billed_to_date);
  const points = meterPoints(account);
  duplicateMeterPoints(points, emit);
  let billableCount = 0;
  for (const { mp, path } of points) {
    supplyRules(mp, path, ctx, emit);
    registerAndAqRules(mp, path, ctx, emit);
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
  meterPeriodRules(account, ctx, emit);
}
