import { dayOf } from './formats';
import { type Emit, type Obj, type Path, given, isObj, meterPoints, nextDay, objects, openEnded, repeated } from './rule-kit';

/**
 * The stateless `x-validators` of a meter point's dated lists: `configuration_periods` and
 * `capacity_values` (ElectricityConfigurationPeriod, ElectricityCapacityValue), `vat_exemptions` and
 * `ccl_exemptions`; and of its `agents` and its agreements'
 * `bespoke_tariff_rates` and `characteristics`. Where the contract leaves a reading open the looser
 * one is enforced (COVERAGE.md): a period's `effective_to_date` may be read inclusively or not, so
 * the next period may start on that day or the day after.
 */

type Dated = { o: Obj; i: number; from: string; to: string | undefined; open: boolean };

function datedPeriods(list: unknown): Dated[] {
  const out: Dated[] = [];
  for (const [o, i] of objects(list)) {
    const from = dayOf(o.effective_from_date);
    if (from === undefined) continue;
    const to = dayOf(o.effective_to_date);
    out.push({ o, i, from, to, open: !given(o.effective_to_date) });
  }
  return out.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.i - b.i));
}

/** `start_date_later_than_end_date` and `gaps_or_overlaps_in_periods` of one list of periods. */
function periodRules(list: unknown, at: Path, emit: Emit): Dated[] {
  const periods = datedPeriods(list);
  for (const p of periods) {
    if (p.to !== undefined && p.to < p.from)
      emit('start_date_later_than_end_date', [...at, p.i, 'effective_to_date'], 'effective_to_date may not be before effective_from_date.');
  }
  for (let k = 1; k < periods.length; k++) {
    const prev = periods[k - 1];
    const next = periods[k];
    const where: Path = [...at, next.i, 'effective_from_date'];
    if (prev.open) emit('gaps_or_overlaps_in_periods', where, 'A period starts while an earlier open-ended period is still running.');
    else if (prev.to !== undefined && next.from < prev.to)
      emit('gaps_or_overlaps_in_periods', where, `This period starts on ${next.from}, before the previous one ends (${prev.to}).`);
    else if (prev.to !== undefined && next.from > nextDay(prev.to))
      emit('gaps_or_overlaps_in_periods', where, `There is a gap between ${prev.to} and ${next.from}.`);
  }
  return periods;
}

function configurationPeriodRules(mp: Obj, at: Path, today: string, emit: Emit) {
  const list = [...at, 'configuration_periods'];
  const periods = periodRules(mp.configuration_periods, list, emit);
  for (const p of periods) {
    if (p.from > today)
      emit('configuration_period_starts_in_future', [...list, p.i, 'effective_from_date'], 'A configuration period may not start in the future.');
  }
  const latest = periods.at(-1);
  if (latest && !latest.open)
    emit(
      'latest_configuration_period_not_open_ended',
      [...list, latest.i, 'effective_to_date'],
      'The latest configuration period must be open-ended (no effective_to_date).',
    );
}

function agreementRules(mp: Obj, at: Path, emit: Emit) {
  for (const [a, k] of objects(mp.agreements)) {
    const ag: Path = [...at, 'agreements', k];
    repeated(objects(a.characteristics), 'code', (v, c) =>
      emit('children_with_duplicate_values', [...ag, 'characteristics', c, 'code'], `Characteristic "${v}" is given twice.`),
    );
    if (mp.supply_type !== 'ELECTRICITY') continue;
    for (const [rate, b] of objects(a.bespoke_tariff_rates)) {
      for (const [reg, r] of objects(rate.registers)) {
        if (!given(reg.register_id) && !given(reg.rate_type)) {
          emit(
            'no_register_id_or_rate_type_provided_for_bespoke_elec_rate',
            [...ag, 'bespoke_tariff_rates', b, 'registers', r],
            'A bespoke register rate needs a register_id or a rate_type.',
          );
        }
      }
    }
  }
}

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

export function meterPeriodRules(account: Obj, ctx: { today: string }, emit: Emit): void {
  const domestic = typeof account.account_type === 'string' && account.account_type.startsWith('DOMESTIC');
  for (const { mp, path } of meterPoints(account)) {
    taxExemptionRules(mp, path, domestic, emit);
    configurationPeriodRules(mp, path, ctx.today, emit);
    periodRules(mp.capacity_values, [...path, 'capacity_values'], emit);
    if (isObj(mp.agents) && (given(mp.dc_to_appoint) || given(mp.mop_to_appoint))) {
      emit('agents_and_mpids_to_appoint_provided', [...path, 'agents'], 'Give agents or dc_to_appoint / mop_to_appoint (deprecated), not both.');
    }
    agreementRules(mp, path, emit);
  }
}
