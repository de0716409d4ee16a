import { isValidPhoneNumber } from 'libphonenumber-js/max';
import { z } from 'zod';
import { knownTariffCodes } from './catalogue-codes';
import { type CodeMapping, defaultMapping, platformTariffCode } from '../source/mapping';
import { DISTRIBUTOR_REGIONS, mpanCheckDigit } from '../source/mpan';
import { minimalPdf } from './pdf';
import { Rng } from './prng';
import type {
  AgreementRow,
  BillRow,
  ContactRow,
  DocumentRow,
  NoteRow,
  ReadingRow,
  SourceAccount,
  SourceMeter,
  SourceMeterPoint,
  SourceRecord,
  SourceSupplyAddress,
  TransactionRow,
} from '../source/types';

/**
 * Seeded, deterministic synthetic legacy data with known defects and the outcome each account
 * must have (ground truth). Streaming: accounts are generated one at a time, account i from its
 * own PRNG stream, so 100k accounts never sit in memory.
 *
 * Stages, in pipeline order: transform → validate → catalogue → documents → platform. The expected
 * stage is the first one that must fail. `supplier_conflict` is two legacy records with the same
 * account number (the CRM was merged from two systems once): the transform refuses to pick one
 * (`duplicate_external_account_number`), since sending both would make the outcome depend on which
 * import the platform processes first.
 */

export const DEFECT_KINDS = [
  'invalid_phone',
  'impossible_date',
  'end_before_start',
  'missing_required_nested_field',
  'unknown_tariff_code',
  'missing_document',
  'duplicate_meter_point',
  'supplier_conflict',
] as const;
export const defectKindSchema = z.enum(DEFECT_KINDS);
export type DefectKind = z.infer<typeof defectKindSchema>;

export const STAGES = ['transform', 'validate', 'catalogue', 'documents', 'platform'] as const;
export const stageSchema = z.enum(STAGES);
export type Stage = z.infer<typeof stageSchema>;

export const expectedOutcomeSchema = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('completed') }),
  // attr null: the outcome names no field (the platform's event does not, and the pre-flight cannot tell which).
  z.object({ outcome: z.literal('failed'), stage: stageSchema, code: z.string(), attr: z.string().nullable() }),
]);
export type ExpectedOutcome = z.infer<typeof expectedOutcomeSchema>;

export const groundTruthSchema = z.object({
  external_account_number: z.string(),
  defect: defectKindSchema.nullable(),
  expected: expectedOutcomeSchema,
});
export type GroundTruth = z.infer<typeof groundTruthSchema>;

export interface GeneratedDocument {
  /** Path under the source documents folder (= legacy documents.storage_path). */
  relativePath: string;
  bytes: Buffer;
}

export interface DatasetItem {
  /** What an adapter yields for this account number. */
  source: SourceAccount;
  /** The legacy records as the export holds them: source's record first, then any conflicting ones. */
  records: SourceRecord[];
  expected: GroundTruth;
  /** Files to place in the source documents folder (a `missing_document` account lacks one). */
  documents: GeneratedDocument[];
}

export interface GenerateOptions {
  accounts: number;
  seed: number;
  /** Share of accounts with a defect; default 0.2. */
  defectRate?: number;
  /** Relative weights of the defect kinds; default equal. A kind with weight 0 never occurs. */
  mix?: Partial<Record<DefectKind, number>>;
  /** Default `LGC-`. */
  accountNumberPrefix?: string;
  /** Added to every legacy row id, so several datasets can share one legacy schema. Default 0. */
  accountIdOffset?: number;
  /** Defaults to source/default-mapping.json. */
  mapping?: CodeMapping;
  /** Tariff codes the platform knows; default: the platform catalogue. */
  catalogue?: ReadonlySet<string>;
}

// ---------------------------------------------------------------------------------------------
// Calendar helpers (UTC day numbers; no clock is read: the dataset lives before REFERENCE_DAY)

const DAY = 86_400_000;
/** The generated history ends before this day, so nothing is "in the future" for validation. */
export const REFERENCE_DAY = '2025-06-01';
const refDays = Date.parse(`${REFERENCE_DAY}T00:00:00Z`) / DAY;
const iso = (days: number) => new Date(days * DAY).toISOString().slice(0, 10);
const daysOf = (isoDate: string) => Date.parse(`${isoDate}T00:00:00Z`) / DAY;
const addMonths = (isoDate: string, months: number) => {
  const d = new Date(`${isoDate}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.toISOString().slice(0, 10);
};
const firstOfMonth = (isoDate: string) => `${isoDate.slice(0, 8)}01`;

/** `YYYY-MM-DD` → legacy `DD/MM/YYYY`, sometimes with a padding slip (`3/7/2021`, trailing space). */
function legacyDate(rng: Rng, isoDate: string): string {
  const [y, m, d] = isoDate.split('-');
  const r = rng.next();
  if (r < 0.08) return `${Number(d)}/${Number(m)}/${y}`;
  if (r < 0.12) return `${d}/${m}/${y} `;
  return `${d}/${m}/${y}`;
}

// ---------------------------------------------------------------------------------------------
// Value pools

const GIVEN = ['Olivia', 'Amelia', 'Isla', 'Ava', 'Mia', 'Grace', 'Freya', 'Sophie', 'Oliver', 'George', 'Harry', 'Noah', 'Jack', 'Leo', 'Arthur', 'Oscar', 'Priya', 'Mohammed', 'Wojciech', 'Siobhán', 'Aoife', 'Rhys', 'Eilidh', 'Chidi'];
const FAMILY = ['Smith', 'Jones', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Johnson', 'Davies', 'Patel', 'Wright', 'Evans', 'Thomas', 'Roberts', 'Khan', 'Walker', 'Hughes', "O'Neill", 'Jabłoński', 'MacLeod', 'Okafor', 'Nguyen', 'Ellis-Barker'];
const TITLES = ['Mr', 'Mrs', 'Ms', 'Miss', 'Dr', 'Mx', null];
const STREETS = ['High Street', 'Station Road', 'Church Lane', 'Victoria Road', 'Green Lane', 'Manor Road', 'Park Avenue', 'Mill Lane', 'Kings Road', 'Queens Drive', 'The Crescent', 'Orchard Close'];
const DOMAINS = ['example.com', 'example.org', 'example.net', 'mail.example.co.uk'];
/** Outward codes with their town and distribution region (first two MPAN digits). */
const PLACES: Array<{ outward: string; town: string; county: string | null; distributor: string }> = [
  { outward: 'W1F', town: 'London', county: null, distributor: '12' },
  { outward: 'SW1A', town: 'London', county: null, distributor: '12' },
  { outward: 'E14', town: 'London', county: null, distributor: '12' },
  { outward: 'CB2', town: 'Cambridge', county: 'Cambridgeshire', distributor: '10' },
  { outward: 'NR1', town: 'Norwich', county: 'Norfolk', distributor: '10' },
  { outward: 'B33', town: 'Birmingham', county: 'West Midlands', distributor: '14' },
  { outward: 'NG1', town: 'Nottingham', county: 'Nottinghamshire', distributor: '11' },
  { outward: 'L1', town: 'Liverpool', county: 'Merseyside', distributor: '13' },
  { outward: 'M1', town: 'Manchester', county: 'Greater Manchester', distributor: '16' },
  { outward: 'NE1', town: 'Newcastle upon Tyne', county: 'Tyne and Wear', distributor: '15' },
  { outward: 'LS1', town: 'Leeds', county: 'West Yorkshire', distributor: '23' },
  { outward: 'BS1', town: 'Bristol', county: null, distributor: '22' },
  { outward: 'EX1', town: 'Exeter', county: 'Devon', distributor: '22' },
  { outward: 'CF10', town: 'Cardiff', county: null, distributor: '21' },
  { outward: 'BN1', town: 'Brighton', county: 'East Sussex', distributor: '19' },
  { outward: 'RG1', town: 'Reading', county: 'Berkshire', distributor: '20' },
  { outward: 'G2', town: 'Glasgow', county: null, distributor: '18' },
  { outward: 'EH1', town: 'Edinburgh', county: null, distributor: '18' },
  { outward: 'AB10', town: 'Aberdeen', county: null, distributor: '17' },
];
const INWARD_LETTERS = 'ABDEFGHJLNPQRSTUWXYZ';
const MOBILE_PREFIXES = ['071', '073', '074', '075', '077', '078', '079'];
const LANDLINE_AREAS = ['020', '0161', '0113', '0117', '0121', '0131', '0141', '0114', '01223', '01392', '01603'];
const NOTE_BODIES = [
  'Customer called about their direct debit amount.',
  'Meter reading provided by phone.',
  'Moving home enquiry - advised of process.',
  'Complaint about estimated bill; reading requested.  ',
  'PSR check completed, no changes.',
  'Customer asked for paper bills.\nFollow-up letter sent.',
];

// ---------------------------------------------------------------------------------------------
// Messy value generators

function postcode(rng: Rng, outward: string): { clean: string; messy: string } {
  const inward = `${rng.int(0, 9)}${rng.pick([...INWARD_LETTERS])}${rng.pick([...INWARD_LETTERS])}`;
  const clean = `${outward} ${inward}`;
  const r = rng.next();
  const messy =
    r < 0.25 ? clean.toLowerCase() : r < 0.45 ? `${outward}${inward}` : r < 0.55 ? `${outward}  ${inward} ` : r < 0.65 ? ` ${clean.toLowerCase().replace(' ', '')}` : clean;
  return { clean, messy };
}

function nationalMobile(rng: Rng): string {
  for (;;) {
    const n = `${rng.pick(MOBILE_PREFIXES)}${rng.digits(8)}`;
    if (isValidPhoneNumber(n, 'GB')) return n;
  }
}

function nationalLandline(rng: Rng): string {
  for (;;) {
    const area = rng.pick(LANDLINE_AREAS);
    const n = `${area}${area === '020' ? rng.pick(['7', '8']) : String(rng.int(2, 9))}${rng.digits(10 - area.length)}`;
    if (n.length === 11 && isValidPhoneNumber(n, 'GB')) return n;
  }
}

/** A valid national number written the ways legacy agents typed them. */
function messyPhone(rng: Rng, national: string): string {
  const intl = national.slice(1);
  const mobile = national.startsWith('07');
  const spaced = national.startsWith('020')
    ? `${national.slice(0, 3)} ${national.slice(3, 7)} ${national.slice(7)}`
    : national.length === 11 && (mobile || /^01\d{3}/.test(national))
      ? `${national.slice(0, 5)} ${national.slice(5)}`
      : `${national.slice(0, 4)} ${national.slice(4, 7)} ${national.slice(7)}`;
  switch (rng.int(0, 6)) {
    case 0:
      return spaced;
    case 1:
      return `+44 ${spaced.slice(1)}`;
    case 2:
      return `0044${intl}`;
    case 3:
      return national.startsWith('020') ? `(020) ${national.slice(3, 7)} ${national.slice(7)}` : `(${spaced.split(' ')[0]}) ${spaced.split(' ').slice(1).join(' ')}`;
    case 4:
      return `${national} `;
    case 5:
      return `+44 (0)${spaced.slice(1)}`;
    default:
      return national.replace(/(\d{5})(\d{3})(\d{3})/, '$1-$2-$3');
  }
}

function invalidPhone(rng: Rng): string {
  for (;;) {
    const n = `07${rng.digits(rng.pick([6, 7, 10]))}`;
    if (!isValidPhoneNumber(n, 'GB')) return `${n.slice(0, 5)} ${n.slice(5)}`;
  }
}

function impossibleDate(rng: Rng, year: number): string {
  const [d, m] = rng.pick([
    [31, 2],
    [30, 2],
    [31, 4],
    [31, 6],
    [31, 9],
    [31, 11],
  ] as const);
  return `${d}/${String(m).padStart(2, '0')}/${year}`;
}

/** Name → e-mail local part: accents folded, letters only. */
function ascii(name: string): string {
  return name.normalize('NFD').toLowerCase().replace(/ł/g, 'l').replace(/[^a-z]/g, '');
}

function messyName(rng: Rng, name: string): string {
  const r = rng.next();
  return r < 0.1 ? name.toUpperCase() : r < 0.2 ? `${name} ` : r < 0.25 ? ` ${name}` : name;
}

function mpan(rng: Rng, distributor: string): string {
  const body = `${distributor}${rng.int(1, 9)}${rng.digits(9)}`;
  return `${body}${mpanCheckDigit(body)}`;
}

function mprn(rng: Rng): string {
  return `${rng.int(1, 9)}${rng.digits(rng.pick([7, 9]))}`;
}

// ---------------------------------------------------------------------------------------------
// Defect selection: smooth weighted round-robin, so a small dataset still covers every kind.

class DefectPicker {
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
// One account

interface TariffChoice {
  ELECTRICITY: { current: string[]; retired: string[] };
  GAS: { current: string[]; retired: string[] };
}

/** Legacy tariff codes per fuel whose platform code exists in every region (or in none: retired). */
function tariffChoices(mapping: CodeMapping, catalogue: ReadonlySet<string>): TariffChoice {
  const regions = [...new Set(Object.values(DISTRIBUTOR_REGIONS))];
  const out: TariffChoice = { ELECTRICITY: { current: [], retired: [] }, GAS: { current: [], retired: [] } };
  for (const [legacy, entry] of Object.entries(mapping.tariffs)) {
    const known = regions.filter((r) => catalogue.has(platformTariffCode(entry, r))).length;
    if (known === regions.length) out[entry.fuel].current.push(legacy);
    else if (known === 0) out[entry.fuel].retired.push(legacy);
  }
  for (const fuel of ['ELECTRICITY', 'GAS'] as const) {
    if (out[fuel].current.length === 0) throw new Error(`generator: no ${fuel} tariff in the mapping is in the platform catalogue for every region`);
  }
  return out;
}

interface BuildContext {
  rng: Rng;
  accountId: number;
  accountNumber: string;
  tariffs: TariffChoice;
  withDocuments: boolean;
}

interface BuiltRecord {
  record: SourceRecord;
  documents: GeneratedDocument[];
}

function buildRecord(b: BuildContext): BuiltRecord {
  const { rng, accountId, accountNumber } = b;
  const idBase = accountId * 1000;
  let seq = 0;
  const nextId = () => idBase + ++seq;

  const openedDays = rng.int(daysOf('2014-01-01'), daysOf('2023-06-30'));
  const opened = iso(openedDays);
  // Billed monthly up to the 1st of a month between Jan and May 2025.
  const lastBilled = `2025-0${rng.int(1, 5)}-01`;
  const place = rng.pick(PLACES);
  const street = `${rng.int(1, 220)} ${rng.pick(STREETS)}`;
  const pc = postcode(rng, place.outward);

  // Contacts
  const family = rng.pick(FAMILY);
  const contacts: ContactRow[] = [];
  const contactCount = rng.chance(0.3) ? 2 : 1;
  for (let c = 0; c < contactCount; c++) {
    const given = rng.pick(GIVEN);
    const dob = iso(rng.int(daysOf('1940-01-01'), daysOf('2002-12-31')));
    contacts.push({
      contact_id: nextId(),
      account_id: accountId,
      is_primary: c === 0,
      title: rng.pick(TITLES),
      first_name: messyName(rng, given),
      surname: messyName(rng, family),
      date_of_birth: rng.chance(0.85) ? legacyDate(rng, dob) : null,
      email: rng.chance(0.9) ? `${rng.chance(0.2) ? ascii(given).toUpperCase() : ascii(given)}.${ascii(family)}${rng.int(1, 999)}@${rng.pick(DOMAINS)}${rng.chance(0.1) ? ' ' : ''}` : null,
      mobile_phone: c === 0 || rng.chance(0.5) ? messyPhone(rng, nationalMobile(rng)) : null,
      home_phone: rng.chance(0.5) ? messyPhone(rng, nationalLandline(rng)) : rng.chance(0.2) ? '' : null,
    });
  }
  // Older CRM rows hold the account holder as the second contact.
  if (contactCount === 2 && rng.chance(0.3)) {
    contacts[0].is_primary = false;
    contacts[1].is_primary = true;
  }

  // Supply addresses, meter points, meters, readings
  const supplyAddresses: SourceSupplyAddress[] = [];
  const addressCount = rng.chance(0.1) ? 2 : 1;
  for (let s = 0; s < addressCount; s++) {
    const sPlace = s === 0 ? place : rng.pick(PLACES);
    const sPc = s === 0 ? pc : postcode(rng, sPlace.outward);
    const from = s === 0 ? opened : iso(rng.int(openedDays + 30, daysOf(lastBilled) - 200));
    const supplyAddressId = nextId();
    const fuels: Array<'E' | 'G'> = (() => {
      const r = rng.next();
      return r < 0.5 ? ['E', 'G'] : r < 0.85 ? ['E'] : ['G'];
    })();
    const meterPoints: SourceMeterPoint[] = fuels.map((fuel) => buildMeterPoint(b, nextId, supplyAddressId, fuel, sPlace.distributor, from, lastBilled));
    supplyAddresses.push({
      supply_address_id: supplyAddressId,
      account_id: accountId,
      line1: s === 0 ? street : `${rng.int(1, 220)} ${rng.pick(STREETS)}`,
      line2: rng.chance(0.2) ? `Flat ${rng.int(1, 12)}` : rng.chance(0.3) ? '' : null,
      town: `${sPlace.town}${rng.chance(0.1) ? '  ' : ''}`,
      county: sPlace.county,
      postcode: sPc.messy,
      occupied_from: legacyDate(rng, from),
      occupied_to: null,
      meter_points: meterPoints,
    });
  }

  // Billing: usually the first supply address, sometimes a correspondence address.
  const billingElsewhere = rng.chance(0.1);
  const billingPlace = billingElsewhere ? rng.pick(PLACES) : place;
  const holder = contacts.find((c) => c.is_primary) ?? contacts[0];
  const billingName = [holder.title, holder.first_name?.trim(), family].filter(Boolean).join(' ');

  // Bills (statements): monthly, the last one ending at lastBilled, each with a PDF.
  const documents: DocumentRow[] = [];
  const generated: GeneratedDocument[] = [];
  const bills: BillRow[] = [];
  const billCount = b.withDocuments ? rng.int(1, 4) : 0;
  const bills0: Array<{ from: string; to: string }> = [];
  for (let k = billCount; k >= 1; k--) bills0.push({ from: addMonths(lastBilled, -k), to: addMonths(lastBilled, -k + 1) });
  const transactions: TransactionRow[] = [];
  const method = rng.pick(['DD', 'DD', 'DD', 'DDR', 'CARD', 'CHQ', 'CASH', 'BACS']);
  const day = rng.int(1, 28);
  const monthlyPence = rng.int(50, 180) * 100 + (rng.chance(0.5) ? 50 : 0);
  const monthly = (monthlyPence / 100).toFixed(2);
  for (const p of bills0) {
    const billId = nextId();
    const docId = nextId();
    const amount = (Math.round(monthlyPence * (0.6 + rng.next() * 0.8)) / 100).toFixed(2);
    const fileName = `statement-${p.from}-to-${p.to}.pdf`;
    const storagePath = `bills/${p.to.slice(0, 4)}/${accountNumber}_${billId}.pdf`;
    documents.push({ document_id: docId, account_id: accountId, kind: 'BILL', file_name: fileName, storage_path: storagePath, mime_type: 'application/pdf' });
    generated.push({
      relativePath: storagePath,
      bytes: minimalPdf([`Statement ${billId}`, `Account ${accountNumber}`, `Period ${p.from} to ${p.to}`, `Amount due GBP ${amount}`]),
    });
    bills.push({
      bill_id: billId,
      account_id: accountId,
      period_from: legacyDate(rng, p.from),
      period_to: legacyDate(rng, p.to),
      issued_on: legacyDate(rng, iso(daysOf(p.to) + rng.int(1, 5))),
      amount,
      document_id: docId,
    });
    // The bill's charge is posted on the period end: part of the closed statement.
    transactions.push({ transaction_id: nextId(), account_id: accountId, posted_on: legacyDate(rng, p.to), amount: `-${amount}`, txn_type: 'CHG', method: null, description: `Energy charges ${p.from} to ${p.to}` });
  }

  // Payments: monthly on the schedule day, from the first bill's month up to the reference day.
  const payFrom = firstOfMonth(bills0[0]?.from ?? addMonths(lastBilled, -2));
  for (let d = payFrom; daysOf(d) + day - 1 < refDays - 1; d = addMonths(d, 1)) {
    const posted = iso(daysOf(d) + day - 1);
    if (posted < opened) continue;
    transactions.push({ transaction_id: nextId(), account_id: accountId, posted_on: legacyDate(rng, posted), amount: monthly, txn_type: 'PAY', method, description: rng.chance(0.5) ? 'Payment received' : null });
  }
  if (rng.chance(0.1)) {
    transactions.push({ transaction_id: nextId(), account_id: accountId, posted_on: legacyDate(rng, iso(refDays - rng.int(2, 20))), amount: '10.00', txn_type: 'CRD', method: null, description: 'Goodwill credit' });
  }
  // The ledger is listed in posting order (ids follow it).
  transactions.sort((x, y) => sortKey(x.posted_on).localeCompare(sortKey(y.posted_on)) || x.transaction_id - y.transaction_id);
  transactions.forEach((t, i) => (t.transaction_id = idBase + 500 + i));
  let balancePence = 0;
  for (const t of transactions) balancePence += Math.round(Number(t.amount) * 100);

  // Notes, some with attachments
  const notes: NoteRow[] = [];
  const noteCount = b.withDocuments ? rng.int(0, 3) : 0;
  for (let n = 0; n < noteCount; n++) {
    const noteId = nextId();
    const when = new Date((rng.int(openedDays, refDays - 2) * DAY) + rng.int(8 * 60, 18 * 60) * 60_000);
    const createdAt = `${String(when.getUTCDate()).padStart(2, '0')}/${String(when.getUTCMonth() + 1).padStart(2, '0')}/${when.getUTCFullYear()} ${String(when.getUTCHours()).padStart(2, '0')}:${String(when.getUTCMinutes()).padStart(2, '0')}`;
    let documentId: number | null = null;
    if (rng.chance(0.35)) {
      documentId = nextId();
      const storagePath = `attachments/${accountNumber}/${noteId}.pdf`;
      documents.push({ document_id: documentId, account_id: accountId, kind: 'NOTE', file_name: `note-${noteId}.pdf`, storage_path: storagePath, mime_type: 'application/pdf' });
      generated.push({ relativePath: storagePath, bytes: minimalPdf([`Note ${noteId}`, `Account ${accountNumber}`, `Attachment scanned ${createdAt}`]) });
    }
    notes.push({ note_id: noteId, account_id: accountId, created_at: createdAt, body: rng.pick(NOTE_BODIES), document_id: documentId });
  }

  const record: SourceRecord = {
    account: {
      account_id: accountId,
      account_number: accountNumber,
      brand: rng.pick(['Legacy Energy', 'LEGACY ENERGY', 'Legacy Energy ']),
      account_type: 'DOM',
      opened_on: legacyDate(rng, opened),
      billing_name: rng.chance(0.8) ? billingName : null,
      billing_line1: billingElsewhere ? `${rng.int(1, 220)} ${rng.pick(STREETS)}` : `${street}${rng.chance(0.1) ? ' ' : ''}`,
      billing_line2: rng.chance(0.5) ? '' : null,
      billing_town: billingPlace.town,
      billing_county: billingPlace.county,
      billing_postcode: billingElsewhere ? postcode(rng, billingPlace.outward).messy : pc.messy,
      billing_email: null,
      payment_method: method,
      comms_pref: rng.pick(['E', 'E', 'P', null]),
      last_billed_to: legacyDate(rng, lastBilled),
    },
    contacts,
    balance: { account_id: accountId, balance: (balancePence / 100).toFixed(2), as_of: legacyDate(rng, iso(refDays - 1)) },
    supply_addresses: supplyAddresses,
    transactions,
    payment_schedules: [
      {
        schedule_id: nextId(),
        account_id: accountId,
        method,
        amount: monthly,
        frequency: 'M',
        day_of_month: day,
        start_date: legacyDate(rng, payFrom < opened ? opened : payFrom),
        end_date: null,
      },
    ],
    notes,
    bills,
    documents,
  };
  return { record, documents: generated };
}

/** `DD/MM/YYYY` (possibly unpadded) → sortable `YYYY-MM-DD`. */
function sortKey(legacy: string | null): string {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec((legacy ?? '').trim());
  return m ? `${m[3]}-${m[2].padStart(2, '0')}-${m[1].padStart(2, '0')}` : '';
}

function buildMeterPoint(
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
    agreements.push({ agreement_id: nextId(), meter_point_id: meterPointId, tariff_code: standard, start_date: legacyDate(rng, supplyStart), end_date: legacyDate(rng, switchDay) });
    const fixes = choices.length > 1 ? choices.slice(1) : choices;
    agreements.push({ agreement_id: nextId(), meter_point_id: meterPointId, tariff_code: rng.pick(fixes), start_date: legacyDate(rng, switchDay), end_date: null });
  } else {
    agreements.push({ agreement_id: nextId(), meter_point_id: meterPointId, tariff_code: rng.pick(choices), start_date: legacyDate(rng, supplyStart), end_date: null });
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
    serial_number: fuel === 'E' ? `${rng.pick(['S', 'E', 'K', 'Z'])}${rng.int(10, 24)}${rng.pick(['E', 'N', 'K'])}${rng.digits(6)}` : `G4${rng.pick(['A', 'K', 'E'])}${rng.digits(7)}${rng.pick(['', ' '])}`,
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

// ---------------------------------------------------------------------------------------------
// Defects: each mutates a clean record and returns the outcome the pipeline must reach.

const failed = (stage: Stage, code: string, attr: string | null): ExpectedOutcome => ({ outcome: 'failed', stage, code, attr });
const MP0 = 'supply_addresses.0.meter_points.0';

function primaryContact(record: SourceRecord): ContactRow {
  const c = record.contacts.find((x) => x.is_primary);
  if (!c) throw new Error('generator: record without a primary contact');
  return c;
}

function applyDefect(kind: DefectKind, built: BuiltRecord, b: BuildContext): ExpectedOutcome {
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
        .flatMap((mp) => mp.agreements.map((a) => ({ gas: (mp.fuel ?? '').toUpperCase() === 'G', retired: a.tariff_code !== null && [...b.tariffs.ELECTRICITY.retired, ...b.tariffs.GAS.retired].includes(a.tariff_code) })))
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
      return failed('documents', 'path_does_not_exist_in_file_store', useNote ? `notes.${noteIndex}.document_paths.0.document_path` : 'statements.0.statement_path');
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

function accountNumber(prefix: string, index: number): string {
  return `${prefix}${String(index + 1).padStart(7, '0')}`;
}

export function* generateDataset(opts: GenerateOptions): Generator<DatasetItem> {
  const mapping = opts.mapping ?? defaultMapping();
  const tariffs = tariffChoices(mapping, opts.catalogue ?? knownTariffCodes());
  const defectRate = opts.defectRate ?? 0.2;
  const prefix = opts.accountNumberPrefix ?? 'LGC-';
  const picker = new DefectPicker(opts.mix);
  for (let i = 0; i < opts.accounts; i++) {
    const number = accountNumber(prefix, i);
    const defect = Rng.forKey(opts.seed, i, 1).chance(defectRate) ? picker.next() : null;
    const offset = opts.accountIdOffset ?? 0;
    const b: BuildContext = { rng: Rng.forKey(opts.seed, i), accountId: offset + i + 1, accountNumber: number, tariffs, withDocuments: true };
    const built = buildRecord(b);
    let expected: ExpectedOutcome = { outcome: 'completed' };
    const records: SourceRecord[] = [built.record];
    let conflicting: number[] = [];
    if (defect) {
      const defectRng: BuildContext = { ...b, rng: Rng.forKey(opts.seed, i, 2) };
      if (defect === 'missing_document' && built.record.documents.length === 0) {
        // Every account has at least one bill, so this only happens for document-less records.
        throw new Error('generator: missing_document on an account without documents');
      }
      expected = applyDefect(defect, built, defectRng);
      if (defect === 'supplier_conflict') {
        const dupId = offset + opts.accounts + i + 1;
        const dup = buildRecord({ rng: Rng.forKey(opts.seed, i, 3), accountId: dupId, accountNumber: number, tariffs, withDocuments: false });
        records.push(dup.record);
        conflicting = [dupId];
      }
    }
    yield {
      source: { ...built.record, conflicting_account_ids: conflicting },
      records,
      expected: { external_account_number: number, defect, expected },
      documents: built.documents,
    };
  }
}
