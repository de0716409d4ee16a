import { z } from 'zod';

/**
 * The losing supplier's data as its CRM and billing system export it: one row type per legacy
 * table (schema `legacy`, see source/migrations). Values are kept exactly as the legacy system
 * holds them (text dates `DD/MM/YYYY`, untrimmed strings, nulls, legacy codes): cleaning is the
 * transform's job, so both adapters must yield these rows untouched.
 */

const text = z.string().nullable();
const id = z.number().int();

export const accountRowSchema = z.object({
  account_id: id,
  account_number: z.string(),
  brand: text,
  account_type: text, // legacy code: DOM | SME
  opened_on: text,
  billing_name: text,
  billing_line1: text,
  billing_line2: text,
  billing_town: text,
  billing_county: text,
  billing_postcode: text,
  billing_email: text,
  payment_method: text, // legacy code, mapped through CodeMapping.paymentMethods
  comms_pref: text, // E (email) | P (post)
  last_billed_to: text,
});

export const contactRowSchema = z.object({
  contact_id: id,
  account_id: id,
  is_primary: z.boolean(),
  title: text,
  first_name: text,
  surname: text,
  date_of_birth: text,
  email: text,
  mobile_phone: text,
  home_phone: text,
});

export const registerRowSchema = z.object({
  register_row_id: id,
  meter_id: id,
  register_code: text,
  tpr: text,
  digits: z.number().int().nullable(),
});

export const readingRowSchema = z.object({
  reading_id: id,
  meter_id: id,
  register_code: text,
  read_date: text,
  read_value: text,
  read_type: text, // legacy code, mapped through CodeMapping.readingTypes
  is_transfer: z.boolean(),
  billed: z.boolean(),
});

export const meterRowSchema = z.object({
  meter_id: id,
  meter_point_id: id,
  serial_number: text,
  meter_type: text, // CREDIT | PREPAY | SMETS1 | SMETS2
  installed_on: text,
  removed_on: text,
  dial_digits: z.number().int().nullable(),
});
export const meterSchema = meterRowSchema.extend({
  registers: z.array(registerRowSchema),
  readings: z.array(readingRowSchema),
});

export const agreementRowSchema = z.object({
  agreement_id: id,
  meter_point_id: id,
  tariff_code: text, // legacy tariff code (legacy.tariffs), mapped through CodeMapping.tariffs
  start_date: text,
  end_date: text,
});

export const meterPointRowSchema = z.object({
  meter_point_id: id,
  supply_address_id: id,
  fuel: text, // E | G
  mpxn: text, // MPAN core (electricity) or MPRN (gas)
  gsp_group: text, // `_A` … `_P`: the region letter of the platform's tariff codes
  supplier_mpid: text,
  shipper_mpid: text,
  profile_class: z.number().int().nullable(),
  ssc: text,
  annual_consumption: text, // EAC (kWh) or AQ (kWh)
  supply_start: text,
  supply_end: text,
});
export const meterPointSchema = meterPointRowSchema.extend({
  agreements: z.array(agreementRowSchema),
  meters: z.array(meterSchema),
});

export const supplyAddressRowSchema = z.object({
  supply_address_id: id,
  account_id: id,
  line1: text,
  line2: text,
  town: text,
  county: text,
  postcode: text,
  occupied_from: text,
  occupied_to: text,
});
export const supplyAddressSchema = supplyAddressRowSchema.extend({
  meter_points: z.array(meterPointSchema),
});

export const balanceRowSchema = z.object({
  account_id: id,
  balance: text, // credit positive, as the legacy ledger prints it
  as_of: text,
});

export const transactionRowSchema = z.object({
  transaction_id: id,
  account_id: id,
  posted_on: text,
  amount: text, // signed from the customer's view: payments/credits positive, charges/refunds negative
  txn_type: text, // PAY | CHG | CRD | RFD
  method: text, // legacy payment method code
  description: text,
});

export const paymentScheduleRowSchema = z.object({
  schedule_id: id,
  account_id: id,
  method: text,
  amount: text,
  frequency: text, // M | Q
  day_of_month: z.number().int().nullable(),
  start_date: text,
  end_date: text,
});

export const noteRowSchema = z.object({
  note_id: id,
  account_id: id,
  created_at: text, // `DD/MM/YYYY HH:MM`, UK local time
  body: text,
  document_id: z.number().int().nullable(),
});

export const billRowSchema = z.object({
  bill_id: id,
  account_id: id,
  period_from: text,
  period_to: text,
  issued_on: text,
  amount: text,
  document_id: z.number().int().nullable(),
});

export const documentRowSchema = z.object({
  document_id: id,
  account_id: id,
  kind: z.string(), // BILL | NOTE
  file_name: z.string(),
  storage_path: z.string(), // relative to SOURCE_DOCUMENTS_DIR
  mime_type: text,
});

/** One legacy account record as an export holds it: the account row and its rows, nested. */
export const sourceRecordSchema = z.object({
  account: accountRowSchema,
  contacts: z.array(contactRowSchema),
  balance: balanceRowSchema.nullable(),
  supply_addresses: z.array(supplyAddressSchema),
  transactions: z.array(transactionRowSchema),
  payment_schedules: z.array(paymentScheduleRowSchema),
  notes: z.array(noteRowSchema),
  bills: z.array(billRowSchema),
  documents: z.array(documentRowSchema),
});

/**
 * What an adapter yields per external account number: the first legacy record holding that number
 * (lowest account_id / first in the file), plus the ids of any other legacy records that claim the
 * same number. Those conflicts are not resolved by guessing: the transform rejects the account.
 */
export const sourceAccountSchema = sourceRecordSchema.extend({
  conflicting_account_ids: z.array(id),
});

export type AccountRow = z.infer<typeof accountRowSchema>;
export type ContactRow = z.infer<typeof contactRowSchema>;
export type RegisterRow = z.infer<typeof registerRowSchema>;
export type ReadingRow = z.infer<typeof readingRowSchema>;
export type MeterRow = z.infer<typeof meterRowSchema>;
export type SourceMeter = z.infer<typeof meterSchema>;
export type AgreementRow = z.infer<typeof agreementRowSchema>;
export type MeterPointRow = z.infer<typeof meterPointRowSchema>;
export type SourceMeterPoint = z.infer<typeof meterPointSchema>;
export type SupplyAddressRow = z.infer<typeof supplyAddressRowSchema>;
export type SourceSupplyAddress = z.infer<typeof supplyAddressSchema>;
export type BalanceRow = z.infer<typeof balanceRowSchema>;
export type TransactionRow = z.infer<typeof transactionRowSchema>;
export type PaymentScheduleRow = z.infer<typeof paymentScheduleRowSchema>;
export type NoteRow = z.infer<typeof noteRowSchema>;
export type BillRow = z.infer<typeof billRowSchema>;
export type DocumentRow = z.infer<typeof documentRowSchema>;
export type SourceRecord = z.infer<typeof sourceRecordSchema>;
export type SourceAccount = z.infer<typeof sourceAccountSchema>;

/** A document the transform found for an account, before its file has been read. */
export const documentRefSchema = z.object({
  /** Path in the payload, relative to the import supplier's document root: `/bills/<acct>/<file>`. */
  payloadPath: z.string().startsWith('/'),
  /** Path under `sourceRoot` (default SOURCE_DOCUMENTS_DIR). */
  sourcePath: z.string(),
  /** Where the file is read from: a folder or `s3://bucket/prefix` (a payload run's `--documents`). */
  sourceRoot: z.string().optional(),
  contentType: z.string(),
  /** Payload attr that carries payloadPath (e.g. `statements.0.statement_path`), for error reports. */
  attr: z.string(),
});
export type DocumentRef = z.infer<typeof documentRefSchema>;

/** A document ready to stage: its file was found and measured. */
export const sourceDocumentSchema = documentRefSchema.extend({
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type SourceDocument = z.infer<typeof sourceDocumentSchema>;
