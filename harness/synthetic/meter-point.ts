import { DISTRIBUTOR_REGIONS } from '../../source/mpan';
import type { AgreementRow, ReadingRow, SourceMeter, SourceMeterPoint } from '../../source/types';
import type { BuildContext } from './defects';
import { addMonths, daysOf, iso, legacyDate, mpan, mprn } from './legacy-values';

/**
 * One legacy meter point of a synthetic account (generator.ts): its agreements (standard variable
 * tariff, sometimes followed by a fix), one meter with quarterly billed readings and the transfer
 * reading on the last billed date. Every draw comes from the account's PRNG, in the order
 * generator.ts has always drawn them, so a seed gives the same dataset.
 */

export function buildMeterPoint(
  b: BuildContext,
  nextId: () => number,
  supplyAddressId: number,
  fuel: 'E' | 'G',
  distributor: string,
  supplyStart: string,
  lastBilled: string,
): SourceMeterPoint {
  const { rng } = b;
  const meterPointId = nextId();
  const supplyType = fuel === 'E' ? 'ELECTRICITY' : 'GAS';
  const agreements: AgreementRow[] = [];
  const choices = b.tariffs[supplyType].current;
  const standard = choices[0];
  if (rng.chance(0.3) && daysOf(lastBilled) - daysOf(supplyStart) > 400) {
    // Moved from the standard variable tariff to a fix: the fix starts the day the SVT ends.
    const switchDay = iso(rng.int(daysOf(supplyStart) + 180, daysOf(lastBilled) - 60));
    agreements.push({
      agreement_id: nextId(),
      meter_point_id: meterPointId,
      tariff_code: standard,
      start_date: legacyDate(rng, supplyStart),
      end_date: legacyDate(rng, switchDay),
    });
    const fixes = choices.length > 1 ? choices.slice(1) : choices;
    agreements.push({
      agreement_id: nextId(),
      meter_point_id: meterPointId,
      tariff_code: rng.pick(fixes),
      start_date: legacyDate(rng, switchDay),
      end_date: null,
    });
  } else {
    agreements.push({
      agreement_id: nextId(),
      meter_point_id: meterPointId,
      tariff_code: rng.pick(choices),
      start_date: legacyDate(rng, supplyStart),
      end_date: null,
    });
  }

  const meterId = nextId();
  const installed = iso(daysOf(supplyStart) - rng.int(30, 3000));
  const smart = rng.chance(0.4);
  const registers = fuel === 'E' ? [{ register_row_id: nextId(), meter_id: meterId, register_code: '1', tpr: '00001', digits: 5 }] : [];
  const readings: ReadingRow[] = [];
  // Quarterly history up to the last billed date, then the transfer reading on it.
  let value = rng.int(1000, 60000);
  const perDay = fuel === 'E' ? rng.int(5, 12) : rng.int(8, 30);
  const historyCount = rng.int(1, 4);
  for (let k = historyCount; k >= 1; k--) {
    const d = addMonths(lastBilled, -3 * k);
    if (d <= supplyStart) continue;
    value += perDay * 90;
    readings.push({
      reading_id: nextId(),
      meter_id: meterId,
      register_code: fuel === 'E' ? '1' : null,
      read_date: legacyDate(rng, d),
      read_value: `${value % 100000}.00`,
      read_type: rng.pick(smart ? ['S', 'S', 'A'] : ['A', 'C', 'E']),
      is_transfer: false,
      billed: true,
    });
  }
  value += perDay * 30;
  readings.push({
    reading_id: nextId(),
    meter_id: meterId,
    register_code: fuel === 'E' ? '1' : null,
    read_date: legacyDate(rng, lastBilled),
    read_value: `${value % 100000}${rng.chance(0.5) ? '.00' : ''}`,
    read_type: smart ? 'S' : rng.pick(['C', 'E']),
    is_transfer: true,
    billed: false,
  });
  const meter: SourceMeter = {
    meter_id: meterId,
    meter_point_id: meterPointId,
    serial_number:
      fuel === 'E'
        ? `${rng.pick(['S', 'E', 'K', 'Z'])}${rng.int(10, 24)}${rng.pick(['E', 'N', 'K'])}${rng.digits(6)}`
        : `G4${rng.pick(['A', 'K', 'E'])}${rng.digits(7)}${rng.pick(['', ' '])}`,
    meter_type: smart ? rng.pick(['SMETS2', 'SMETS2', 'SMETS1']) : 'CREDIT',
    installed_on: legacyDate(rng, installed),
    removed_on: null,
    dial_digits: 5,
    registers,
    readings,
  };
  return {
    meter_point_id: meterPointId,
    supply_address_id: supplyAddressId,
    fuel: rng.chance(0.1) ? fuel.toLowerCase() : fuel,
    mpxn: fuel === 'E' ? mpan(rng, distributor) : mprn(rng),
    gsp_group: `_${DISTRIBUTOR_REGIONS[distributor]}`,
    supplier_mpid: fuel === 'E' ? 'LGCY' : 'LGC',
    shipper_mpid: fuel === 'G' ? rng.pick(['BGT', 'ECG', 'SGL']) : null,
    profile_class: fuel === 'E' ? 1 : null,
    ssc: fuel === 'E' ? '0393' : null,
    annual_consumption: fuel === 'E' ? String(rng.int(1800, 4500)) : String(rng.int(7000, 17000)),
    supply_start: legacyDate(rng, supplyStart),
    supply_end: null,
    agreements,
    meters: [meter],
  };
}
