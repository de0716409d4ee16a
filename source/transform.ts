import type { CountryCode } from 'libphonenumber-js';
import type { EnergyAccount } from '../schemas/account';
import { type CodeMapping, platformTariffCode } from './mapping';
import { clean, normaliseDate, normaliseDateTime, normaliseDecimal, normalisePhone, normalisePostcode } from './normalise';
import type { DocumentRef, SourceAccount, SourceMeter, SourceMeterPoint, SourceSupplyAddress, TransactionRow } from './types';

/**
 * Legacy account → v2 `EnergyAccount` payload. Pure: no I/O, no clock. What it cannot decide
 * without guessing is a transform error naming the payload attr and the legacy field:
 *  - `invalid_date`: a date that does not exist (31/02/2020) or is unreadable. Never rolled over.
 *  - `unmapped_code`: a legacy code (tariff, payment method, …) missing from the CodeMapping.
 *  - `missing_region`: a meter point without a GSP group, so no tariff code can be built.
 *  - `duplicate_external_account_number`: two legacy records claim the account number.
 * Values the platform itself validates (phones, postcodes, required fields) are passed on cleaned
 * but unjudged, so validation reports them with the platform's own codes. Optional fields without a
 * value are omitted, never sent as null or ''.
 * It stays one file a little past ~400 lines: the Transformer below is one class whose methods share
 * the error and document lists, the source record and the transform context, so a split would pass
 * that state between files for no change in what each method does.
 */

export interface TransformContext {
  importSupplierCode: string;
  mapping: CodeMapping;
  /** Region for phone numbers without a `+` prefix; default GB. */
  defaultRegion?: string;
}

export interface TransformError {
  code: string;
  attr: string;
  sourceField: string;
  detail: string;
}

export type TransformResult = { ok: true; payload: EnergyAccount; documents: DocumentRef[] } | { ok: false; errors: TransformError[] };

export const TRANSFORM_CODES = {
  invalidDate: 'invalid_date',
  unmappedCode: 'unmapped_code',
  missingRegion: 'missing_region',
  duplicateAccountNumber: 'duplicate_external_account_number',
} as const;

type Obj = Record<string, unknown>;
type Payload = EnergyAccount;
type Customer = NonNullable<Payload['customers']>[number];
type SupplyAddress = NonNullable<Payload['supply_addresses']>[number];
type MeterPoint = SupplyAddress['meter_points'][number];
type Transaction = NonNullable<Payload['current_statement_transactions']>[number];

/** Drops keys whose value is undefined, so optional fields without a value are absent. */
function compact<T extends Obj>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

const PDF = 'application/pdf';

/** A path segment safe in an object key (account numbers may hold spaces or slashes in legacy data). */
function pathSegment(value: string): string {
  return value.trim().replace(/[^A-Za-z0-9._-]+/g, '_');
}

/** Decimal string → pence (bigint); undefined when not a plain decimal. */
function toPence(value: string | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(value);
  if (!m) return undefined;
  const pence = BigInt(m[2]) * 100n + BigInt((m[3] ?? '0').padEnd(2, '0'));
  return m[1] === '-' ? -pence : pence;
}

function fromPence(pence: bigint): string {
  const neg = pence < 0n;
  const abs = neg ? -pence : pence;
  return `${neg ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

class Transformer {
  readonly errors: TransformError[] = [];
  readonly documents: DocumentRef[] = [];
  private readonly region: CountryCode;
  private readonly accountSegment: string;

  constructor(
    private readonly src: SourceAccount,
    private readonly ctx: TransformContext,
  ) {
    this.region = (ctx.defaultRegion ?? 'GB') as CountryCode;
    this.accountSegment = pathSegment(src.account.account_number);
  }

  private fail(code: string, attr: string, sourceField: string, detail: string): void {
    this.errors.push({ code, attr, sourceField, detail });
  }

  private date(value: string | null, attr: string, sourceField: string): string | undefined {
    const r = normaliseDate(value);
    if (r.ok) return r.value;
    this.fail(TRANSFORM_CODES.invalidDate, attr, sourceField, `"${r.raw}" is not a real date (DD/MM/YYYY).`);
    return undefined;
  }

  private mapped<T>(table: Record<string, T>, value: string | null, attr: string, sourceField: string, what: string): T | undefined {
    const code = clean(value);
    if (code === undefined) return undefined;
    const hit = Object.prototype.hasOwnProperty.call(table, code) ? table[code] : undefined;
    if (hit === undefined) this.fail(TRANSFORM_CODES.unmappedCode, attr, sourceField, `Legacy ${what} "${code}" has no entry in the code mapping.`);
    return hit;
  }

  run(): Payload {
    const a = this.src.account;
    const m = this.ctx.mapping;
    if (this.src.conflicting_account_ids.length > 0) {
      this.fail(
        TRANSFORM_CODES.duplicateAccountNumber,
        'external_account_number',
        'accounts.account_number',
        `Legacy records ${[a.account_id, ...this.src.conflicting_account_ids].join(', ')} all hold account number ${a.account_number.trim()}; resolve in the source.`,
      );
    }
    const lastBilled = this.date(a.last_billed_to, 'last_billed_to_date', 'accounts.last_billed_to');
    const payload: Payload = compact({
      import_supplier: this.ctx.importSupplierCode,
      external_account_number: a.account_number.trim(),
      account_type: this.mapped(m.accountTypes, a.account_type, 'account_type', 'accounts.account_type', 'account type'),
      date_of_sale: this.date(a.opened_on, 'date_of_sale', 'accounts.opened_on'),
      communication_preference: this.mapped(
        m.communicationPreferences,
        a.comms_pref,
        'communication_preference',
        'accounts.comms_pref',
        'communication preference',
      ),
      customers: this.customers(),
      billing_name: clean(a.billing_name),
      billing_address1: clean(a.billing_line1),
      billing_address2: clean(a.billing_line2),
      billing_address3: clean(a.billing_town),
      billing_address4: clean(a.billing_county),
      billing_postcode: normalisePostcode(a.billing_postcode),
      billing_email: clean(a.billing_email)?.toLowerCase(),
      supply_addresses: this.src.supply_addresses.map((s, i) => this.supplyAddress(s, i)),
      last_billed_to_date: lastBilled,
      ...this.money(lastBilled),
      payment_schedules: this.paymentSchedules(),
      notes: this.notes(),
      statements: this.statements(),
    } as Payload);
    for (const key of ['customers', 'supply_addresses', 'payment_schedules', 'notes', 'statements', 'ledgers'] as const) {
      const v = payload[key];
      if (Array.isArray(v) && v.length === 0) delete payload[key];
    }
    return payload;
  }

  private customers(): Customer[] {
    // Primary contact first: the platform treats customers[0] as the account holder.
    const contacts = [...this.src.contacts].sort((x, y) => Number(y.is_primary) - Number(x.is_primary) || x.contact_id - y.contact_id);
    return contacts.map((c, i) =>
      compact({
        title: clean(c.title),
        given_name: clean(c.first_name),
        family_name: clean(c.surname),
        email: clean(c.email)?.toLowerCase(),
        mobile: normalisePhone(c.mobile_phone, this.region),
        landline: normalisePhone(c.home_phone, this.region),
        date_of_birth: this.date(c.date_of_birth, `customers.${i}.date_of_birth`, 'contacts.date_of_birth'),
      }),
    );
  }

  private supplyAddress(s: SourceSupplyAddress, i: number): SupplyAddress {
    const at = `supply_addresses.${i}`;
    return compact({
      supply_address1: clean(s.line1),
      supply_address2: clean(s.line2),
      supply_address3: clean(s.town),
      supply_address4: clean(s.county),
      supply_postcode: normalisePostcode(s.postcode),
      customer_at_supply_address_from_date: this.date(s.occupied_from, `${at}.customer_at_supply_address_from_date`, 'supply_addresses.occupied_from'),
      customer_at_supply_address_to_date: this.date(s.occupied_to, `${at}.customer_at_supply_address_to_date`, 'supply_addresses.occupied_to'),
      meter_points: s.meter_points.map((mp, j) => this.meterPoint(mp, `${at}.meter_points.${j}`)),
    } as SupplyAddress);
  }

  private meterPoint(mp: SourceMeterPoint, at: string): MeterPoint {
    const fuel = clean(mp.fuel)?.toUpperCase();
    const region = clean(mp.gsp_group)?.replace(/^_/, '').toUpperCase();
    const supplyType = fuel === 'G' ? 'GAS' : fuel === 'E' ? 'ELECTRICITY' : undefined;
    if (!supplyType) this.fail(TRANSFORM_CODES.unmappedCode, `${at}.supply_type`, 'meter_points.fuel', `Legacy fuel "${mp.fuel ?? ''}" is neither E nor G.`);
    const supplyStart = this.date(mp.supply_start, `${at}.supply_start_date`, 'meter_points.supply_start');
    const agreements = mp.agreements.map((ag, k) => {
      const aAt = `${at}.agreements.${k}`;
      const entry = this.mapped(this.ctx.mapping.tariffs, ag.tariff_code, `${aAt}.tariff_code`, 'agreements.tariff_code', 'tariff code');
      if (entry && supplyType && entry.fuel !== supplyType) {
        this.fail(
          TRANSFORM_CODES.unmappedCode,
          `${aAt}.tariff_code`,
          'agreements.tariff_code',
          `Legacy tariff "${clean(ag.tariff_code)}" is a ${entry.fuel} tariff on a ${supplyType} meter point.`,
        );
      }
      if (entry && !region)
        this.fail(
          TRANSFORM_CODES.missingRegion,
          `${aAt}.tariff_code`,
          'meter_points.gsp_group',
          'The meter point has no GSP group: the tariff region is unknown.',
        );
      return compact({
        tariff_code: entry && region ? platformTariffCode(entry, region) : undefined,
        effective_from: this.date(ag.start_date, `${aAt}.effective_from`, 'agreements.start_date'),
        effective_to: this.date(ag.end_date, `${aAt}.effective_to`, 'agreements.end_date'),
      });
    });
    const consumption = normaliseDecimal(mp.annual_consumption);
    const common = {
      identifier: clean(mp.mpxn)?.replace(/\s+/g, ''),
      mpid: clean(mp.supplier_mpid)?.toUpperCase(),
      supply_start_date: supplyStart,
      supply_end_date: this.date(mp.supply_end, `${at}.supply_end_date`, 'meter_points.supply_end'),
      agreements,
    };
    if (supplyType === 'GAS') {
      return compact({
        supply_type: 'GAS' as const,
        ...common,
        shipper_mpid: clean(mp.shipper_mpid)?.toUpperCase(),
        meters: mp.meters.map((mt, k) => this.gasMeter(mt, `${at}.meters.${k}`)),
        aq_history: consumption && supplyStart ? [{ effective_from: supplyStart, consumption }] : undefined,
      }) as MeterPoint;
    }
    const meters = mp.meters.map((mt, k) => this.electricityMeter(mt, `${at}.meters.${k}`));
    const tprs = [...new Set(mp.meters.flatMap((mt) => mt.registers.map((r) => clean(r.tpr)).filter((t): t is string => !!t)))];
    return compact({
      supply_type: 'ELECTRICITY' as const,
      ...common,
      profile_class: mp.profile_class ?? undefined,
      ssc: clean(mp.ssc),
      meters,
      eac_history: consumption && supplyStart && tprs.length > 0 ? tprs.map((tpr) => ({ effective_from: supplyStart, tpr, consumption })) : undefined,
    }) as MeterPoint;
  }

  private readings(mt: SourceMeter, at: string, withRegister: boolean) {
    const transfer: Obj[] = [];
    const history: Obj[] = [];
    for (const r of mt.readings) {
      const list = r.is_transfer ? transfer : history;
      const rAt = `${at}.${r.is_transfer ? 'transfer_readings' : 'reading_history'}.${list.length}`;
      list.push(
        compact({
          register_id: withRegister ? clean(r.register_code) : undefined,
          reading_date: this.date(r.read_date, `${rAt}.reading_date`, 'readings.read_date'),
          reading_value: normaliseDecimal(r.read_value),
          reading_type: this.mapped(this.ctx.mapping.readingTypes, r.read_type, `${rAt}.reading_type`, 'readings.read_type', 'reading type'),
          billed: r.is_transfer ? undefined : r.billed,
        }),
      );
    }
    return { transfer_readings: transfer.length ? transfer : undefined, reading_history: history.length ? history : undefined };
  }

  private meterCommon(mt: SourceMeter, at: string) {
    const type = clean(mt.meter_type)?.toUpperCase();
    return {
      meter_serial_number: clean(mt.serial_number),
      installed_on: this.date(mt.installed_on, `${at}.installed_on`, 'meters.installed_on'),
      removed_on: this.date(mt.removed_on, `${at}.removed_on`, 'meters.removed_on'),
      smart_type: type === 'SMETS1' || type === 'SMETS2' ? type : undefined,
    };
  }

  private electricityMeter(mt: SourceMeter, at: string) {
    return compact({
      ...this.meterCommon(mt, at),
      registers: mt.registers.map((r) => compact({ register_id: clean(r.register_code), tpr: clean(r.tpr), number_of_digits: r.digits ?? undefined })),
      ...this.readings(mt, at, true),
    });
  }

  private gasMeter(mt: SourceMeter, at: string) {
    return compact({
      ...this.meterCommon(mt, at),
      gas_number_of_digits: mt.dial_digits ?? undefined,
      ...this.readings(mt, at, false),
    });
  }

  private transaction(t: TransactionRow, at: string): Transaction | undefined {
    const method = this.mapped(this.ctx.mapping.paymentMethods, t.method, `${at}.payment_type`, 'transactions.method', 'payment method');
    const amount = normaliseDecimal(t.amount);
    const common = compact({
      transaction_id: String(t.transaction_id),
      transaction_date: this.date(t.posted_on, `${at}.transaction_date`, 'transactions.posted_on'),
      amount: amount?.replace(/^-/, ''),
      note: clean(t.description),
    });
    switch (clean(t.txn_type)?.toUpperCase()) {
      case 'PAY':
        return compact({ ...common, type: 'PAYMENT', reason: 'ACCOUNT_CHARGE_PAYMENT', payment_type: method?.payment_type }) as Transaction;
      case 'CHG':
        return { ...common, type: 'CHARGE', reason: 'IMPORTED_CHARGE' } as Transaction;
      case 'CRD':
        return { ...common, type: 'CREDIT', reason: 'IMPORTED_CREDIT' } as Transaction;
      case 'RFD':
        return compact({ ...common, type: 'REPAYMENT', reason: 'PARTIAL_CREDIT_REFUND', payment_type: method?.repayment_type }) as Transaction;
      default:
        this.fail(TRANSFORM_CODES.unmappedCode, `${at}.type`, 'transactions.txn_type', `Legacy transaction type "${t.txn_type ?? ''}" is unknown.`);
        return undefined;
    }
  }

  /**
   * One ledger, as the spec's example builds it: transactions up to the last billed date form the
   * closed (historical) statement, later ones are billed by the platform. The legacy balance is
   * the transfer balance; the closed statement's balance is the sum of its transactions.
   */
  private money(lastBilled: string | undefined): Partial<Payload> {
    const txns = [...this.src.transactions].sort((x, y) => x.transaction_id - y.transaction_id);
    const historicalRows: TransactionRow[] = [];
    const currentRows: TransactionRow[] = [];
    for (const t of txns) {
      const d = normaliseDate(t.posted_on);
      (lastBilled && d.ok && d.value && d.value <= lastBilled ? historicalRows : currentRows).push(t);
    }
    const at = 'ledgers.0';
    const historical = historicalRows.map((t, i) => this.transaction(t, `${at}.historical_statement_transactions.${i}`)).filter((t): t is Transaction => !!t);
    const current = currentRows.map((t, i) => this.transaction(t, `${at}.current_statement_transactions.${i}`)).filter((t): t is Transaction => !!t);
    const balance = normaliseDecimal(this.src.balance?.balance);
    let lastStatementPence = 0n;
    for (const t of historicalRows) lastStatementPence += toPence(normaliseDecimal(t.amount)) ?? 0n;
    if (!balance && txns.length === 0) return {};
    const ledger = compact({
      ledger_balance: balance,
      last_statement_balance: historical.length ? fromPence(lastStatementPence) : undefined,
      last_statement_closing_date: historical.length ? lastBilled : undefined,
      historical_statement_transactions: historical.length ? historical : undefined,
      current_statement_transactions: current.length ? current : undefined,
    });
    return compact({ transfer_balance: balance, ledgers: [ledger] });
  }

  private paymentSchedules() {
    const m = this.ctx.mapping;
    return [...this.src.payment_schedules]
      .sort((x, y) => x.schedule_id - y.schedule_id)
      .map((s, i) => {
        const at = `payment_schedules.${i}`;
        return compact({
          means: this.mapped(m.paymentMethods, s.method, `${at}.means`, 'payment_schedules.method', 'payment method')?.means,
          amount: normaliseDecimal(s.amount),
          frequency: this.mapped(m.paymentFrequencies, s.frequency, `${at}.frequency`, 'payment_schedules.frequency', 'payment frequency'),
          day_of_month: s.day_of_month ?? undefined,
          start_date: this.date(s.start_date, `${at}.start_date`, 'payment_schedules.start_date'),
          end_date: this.date(s.end_date, `${at}.end_date`, 'payment_schedules.end_date'),
        });
      });
  }

  private document(documentId: number | null, folder: 'bills' | 'notes', attr: string): string | undefined {
    if (documentId === null) return undefined;
    const doc = this.src.documents.find((d) => d.document_id === documentId);
    if (!doc) {
      this.fail(
        'document_not_found',
        attr,
        `${folder === 'bills' ? 'bills' : 'notes'}.document_id`,
        `Document ${documentId} is not in the legacy documents table.`,
      );
      return undefined;
    }
    const payloadPath = `/${folder}/${this.accountSegment}/${pathSegment(doc.file_name)}`;
    this.documents.push({ payloadPath, sourcePath: doc.storage_path.trim(), contentType: clean(doc.mime_type) ?? PDF, attr });
    return payloadPath;
  }

  private notes() {
    return [...this.src.notes]
      .sort((x, y) => x.note_id - y.note_id)
      .map((n, i) => {
        const at = `notes.${i}`;
        const created = normaliseDateTime(n.created_at);
        if (!created.ok)
          this.fail(TRANSFORM_CODES.invalidDate, `${at}.created_at`, 'notes.created_at', `"${created.raw}" is not a real date and time (DD/MM/YYYY HH:MM).`);
        const path = this.document(n.document_id, 'notes', `${at}.document_paths.0.document_path`);
        return compact({
          external_id: String(n.note_id),
          created_at: created.ok ? created.value : undefined,
          body: n.body?.trim() || undefined, // line breaks in a note are content
          document_paths: path ? [{ document_path: path }] : undefined,
        });
      });
  }

  private statements() {
    return [...this.src.bills]
      .sort((x, y) => x.bill_id - y.bill_id)
      .map((b, i) => {
        const at = `statements.${i}`;
        return compact({
          statement_id: String(b.bill_id),
          bill_period_from_date: this.date(b.period_from, `${at}.bill_period_from_date`, 'bills.period_from'),
          bill_period_to_date: this.date(b.period_to, `${at}.bill_period_to_date`, 'bills.period_to'),
          issued_date: this.date(b.issued_on, `${at}.issued_date`, 'bills.issued_on'),
          statement_path: this.document(b.document_id, 'bills', `${at}.statement_path`),
        });
      });
  }
}

export function transformAccount(src: SourceAccount, ctx: TransformContext): TransformResult {
  const t = new Transformer(src, ctx);
  const payload = t.run();
  if (t.errors.length > 0) return { ok: false, errors: t.errors };
  return { ok: true, payload, documents: t.documents };
}
