import { knownTariffCodes } from './catalogue-codes';
import { type CodeMapping, defaultMapping, platformTariffCode } from '../../source/mapping';
import { DISTRIBUTOR_REGIONS } from '../../source/mpan';
import { minimalPdf } from './pdf';
import { Rng } from './prng';
import { type ExpectedOutcome, type GeneratedDocument, type DatasetItem, type GenerateOptions } from './ground-truth';
import {
  DAY,
  refDays,
  iso,
  daysOf,
  addMonths,
  firstOfMonth,
  legacyDate,
  GIVEN,
  FAMILY,
  TITLES,
  STREETS,
  DOMAINS,
  PLACES,
  NOTE_BODIES,
  postcode,
  nationalMobile,
  nationalLandline,
  messyPhone,
  ascii,
  messyName,
  sortKey,
} from './legacy-values';
import { DefectPicker, applyDefect, type BuildContext, type BuiltRecord, type TariffChoice } from './defects';
import { buildMeterPoint } from './meter-point';
import type { BillRow, ContactRow, DocumentRow, NoteRow, SourceMeterPoint, SourceRecord, SourceSupplyAddress, TransactionRow } from '../../source/types';

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

// The dataset's contract, re-exported: callers import the generator (tests, the CLI, chaos, bench).
export * from './ground-truth';
export { REFERENCE_DAY } from './legacy-values';

// ---------------------------------------------------------------------------------------------
// One account

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
      email: rng.chance(0.9)
        ? `${rng.chance(0.2) ? ascii(given).toUpperCase() : ascii(given)}.${ascii(family)}${rng.int(1, 999)}@${rng.pick(DOMAINS)}${rng.chance(0.1) ? ' ' : ''}`
        : null,
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
    transactions.push({
      transaction_id: nextId(),
      account_id: accountId,
      posted_on: legacyDate(rng, p.to),
      amount: `-${amount}`,
      txn_type: 'CHG',
      method: null,
      description: `Energy charges ${p.from} to ${p.to}`,
    });
  }

  // Payments: monthly on the schedule day, from the first bill's month up to the reference day.
  const payFrom = firstOfMonth(bills0[0]?.from ?? addMonths(lastBilled, -2));
  for (let d = payFrom; daysOf(d) + day - 1 < refDays - 1; d = addMonths(d, 1)) {
    const posted = iso(daysOf(d) + day - 1);
    if (posted < opened) continue;
    transactions.push({
      transaction_id: nextId(),
      account_id: accountId,
      posted_on: legacyDate(rng, posted),
      amount: monthly,
      txn_type: 'PAY',
      method,
      description: rng.chance(0.5) ? 'Payment received' : null,
    });
  }
  if (rng.chance(0.1)) {
    transactions.push({
      transaction_id: nextId(),
      account_id: accountId,
      posted_on: legacyDate(rng, iso(refDays - rng.int(2, 20))),
      amount: '10.00',
      txn_type: 'CRD',
      method: null,
      description: 'Goodwill credit',
    });
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
    const when = new Date(rng.int(openedDays, refDays - 2) * DAY + rng.int(8 * 60, 18 * 60) * 60_000);
    const createdAt = `${String(when.getUTCDate()).padStart(2, '0')}/${String(when.getUTCMonth() + 1).padStart(2, '0')}/${when.getUTCFullYear()} ${String(when.getUTCHours()).padStart(2, '0')}:${String(when.getUTCMinutes()).padStart(2, '0')}`;
    let documentId: number | null = null;
    if (rng.chance(0.35)) {
      documentId = nextId();
      const storagePath = `attachments/${accountNumber}/${noteId}.pdf`;
      documents.push({
        document_id: documentId,
        account_id: accountId,
        kind: 'NOTE',
        file_name: `note-${noteId}.pdf`,
        storage_path: storagePath,
        mime_type: 'application/pdf',
      });
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
