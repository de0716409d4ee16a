import { DEFECT_KINDS, type DefectKind, type Stage, type ExpectedOutcome, type GeneratedDocument } from './ground-truth';
import { iso, daysOf, legacyDate, invalidPhone, impossibleDate, sortKey } from './legacy-values';
import type { Rng } from './prng';
import type { ContactRow, SourceMeterPoint, SourceRecord } from '../../source/types';

/**
 * The defects the generator plants (synthetic/ground-truth.ts lists them): picked by a smooth
 * weighted round-robin so a small dataset still covers every kind, and each applied to a clean
 * built record, returning the outcome the pipeline must reach for it.
 */

export interface TariffChoice {
  ELECTRICITY: { current: string[]; retired: string[] };
  GAS: { current: string[]; retired: string[] };
}

export interface BuildContext {
  rng: Rng;
  accountId: number;
  accountNumber: string;
  tariffs: TariffChoice;
  withDocuments: boolean;
}

export interface BuiltRecord {
  record: SourceRecord;
  documents: GeneratedDocument[];
}

// ---------------------------------------------------------------------------------------------
// Defect selection: smooth weighted round-robin, so a small dataset still covers every kind.

export class DefectPicker {
  private readonly kinds: DefectKind[];
  private readonly weights: number[];
  private readonly current: number[];
  private readonly total: number;

  constructor(mix: Partial<Record<DefectKind, number>> | undefined) {
    this.kinds = DEFECT_KINDS.filter((k) => (mix?.[k] ?? (mix ? 0 : 1)) > 0);
    this.weights = this.kinds.map((k) => mix?.[k] ?? 1);
    this.current = this.kinds.map(() => 0);
    this.total = this.weights.reduce((a, b) => a + b, 0);
  }

  next(): DefectKind | null {
    if (this.kinds.length === 0) return null;
    let best = 0;
    for (let i = 0; i < this.kinds.length; i++) {
      this.current[i] += this.weights[i];
      if (this.current[i] > this.current[best]) best = i;
    }
    this.current[best] -= this.total;
    return this.kinds[best];
  }
}

// ---------------------------------------------------------------------------------------------
// Defects: each mutates a clean record and returns the outcome the pipeline must reach.

const failed = (stage: Stage, code: string, attr: string | null): ExpectedOutcome => ({ outcome: 'failed', stage, code, attr });
const MP0 = 'supply_addresses.0.meter_points.0';

function primaryContact(record: SourceRecord): ContactRow {
  const c = record.contacts.find((x) => x.is_primary);
  if (!c) throw new Error('generator: record without a primary contact');
  return c;
}

export function applyDefect(kind: DefectKind, built: BuiltRecord, b: BuildContext): ExpectedOutcome {
  const { record } = built;
  const { rng } = b;
  const mp0 = record.supply_addresses[0].meter_points[0];
  switch (kind) {
    case 'invalid_phone':
      primaryContact(record).mobile_phone = invalidPhone(rng);
      return failed('validate', 'invalid_phone_number', 'customers.0.mobile');
    case 'impossible_date':
      primaryContact(record).date_of_birth = impossibleDate(rng, rng.int(1950, 1995));
      return failed('transform', 'invalid_date', 'customers.0.date_of_birth');
    case 'end_before_start': {
      // A keying slip: the tariff's end date typed a year before its start.
      const ag = mp0.agreements[0];
      const start = sortKey(ag.start_date);
      ag.end_date = legacyDate(rng, iso(daysOf(start) - rng.int(30, 365)));
      return failed('validate', 'start_date_later_than_end_date', `${MP0}.agreements.0.effective_to`);
    }
    case 'missing_required_nested_field':
      // Null or blank in the legacy row: the transform omits it, the platform requires it.
      mp0.meters[0].serial_number = rng.chance(0.5) ? null : '   ';
      return failed('validate', 'required', `${MP0}.meters.0.meter_serial_number`);
    case 'unknown_tariff_code': {
      const fuel = (mp0.fuel ?? '').toUpperCase() === 'G' ? 'GAS' : 'ELECTRICITY';
      const retired = b.tariffs[fuel].retired;
      if (retired.length === 0) throw new Error(`generator: the mapping has no retired ${fuel} tariff for unknown_tariff_code`);
      mp0.agreements[0].tariff_code = rng.pick(retired);
      // The pre-flight confirms only electricity tariffs with unit rates in the catalogue and never
      // refuses; the platform reports tariff_code_not_found without a field. The outcome names the
      // field only when this agreement is the one tariff the pre-flight could not confirm.
      const unconfirmed = record.supply_addresses
        .flatMap((sa) => sa.meter_points)
        .flatMap((mp) =>
          mp.agreements.map((a) => ({
            gas: (mp.fuel ?? '').toUpperCase() === 'G',
            retired: a.tariff_code !== null && [...b.tariffs.ELECTRICITY.retired, ...b.tariffs.GAS.retired].includes(a.tariff_code),
          })),
        )
        .filter((a) => a.gas || a.retired).length;
      return failed('platform', 'tariff_code_not_found', unconfirmed === 1 ? `${MP0}.agreements.0.tariff_code` : null);
    }
    case 'missing_document': {
      const noteWithDoc = record.notes.findIndex((n) => n.document_id !== null);
      const useNote = noteWithDoc >= 0 && (record.bills.length === 0 || rng.chance(0.5));
      const docId = useNote ? record.notes[noteWithDoc].document_id : record.bills[0]?.document_id;
      const doc = record.documents.find((d) => d.document_id === docId);
      if (!doc) throw new Error('generator: missing_document needs an account with a document');
      built.documents = built.documents.filter((g) => g.relativePath !== doc.storage_path);
      const noteIndex = [...record.notes].sort((x, y) => x.note_id - y.note_id).findIndex((n) => n.document_id === docId);
      return failed(
        'documents',
        'path_does_not_exist_in_file_store',
        useNote ? `notes.${noteIndex}.document_paths.0.document_path` : 'statements.0.statement_path',
      );
    }
    case 'duplicate_meter_point': {
      // The meter point was keyed in twice: a second row with its own ids, same MPxN.
      const sa = record.supply_addresses[0];
      const base = b.accountId * 1000 + 900;
      let n = 0;
      const copy: SourceMeterPoint = {
        ...mp0,
        meter_point_id: base + n++,
        agreements: mp0.agreements.map((a) => ({ ...a, agreement_id: base + n++, meter_point_id: base })),
        meters: mp0.meters.map((m) => {
          const meterId = base + n++;
          return {
            ...m,
            meter_id: meterId,
            meter_point_id: base,
            registers: m.registers.map((r) => ({ ...r, register_row_id: base + n++, meter_id: meterId })),
            readings: m.readings.map((r) => ({ ...r, reading_id: base + n++, meter_id: meterId })),
          };
        }),
      };
      sa.meter_points.push(copy);
      return failed('validate', 'duplicate_meter_points_provided', `supply_addresses.0.meter_points.${sa.meter_points.length - 1}.identifier`);
    }
    case 'supplier_conflict':
      return failed('transform', 'duplicate_external_account_number', 'external_account_number');
  }
}
