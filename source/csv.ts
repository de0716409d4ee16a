import { type SourceRecord, accountRowSchema, sourceRecordSchema } from './types';

/**
 * The CSV flattening of a legacy export, one account record per CSV record:
 *  - a header row, then one record per legacy account row;
 *  - the account's own columns (accounts table) as plain columns: a string is always quoted
 *    (`""` = empty string), an empty unquoted field is null, account_id is a bare integer;
 *  - each nested part (contacts, balance, supply_addresses, transactions, payment_schedules,
 *    notes, bills, documents) as one quoted JSON column, so the record keeps the exact rows.
 * RFC 4180 quoting (doubled quotes; a quoted field may span lines). UTF-8, `\n` line ends.
 */

export const ACCOUNT_COLUMNS = Object.keys(accountRowSchema.shape) as Array<keyof SourceRecord['account']>;
export const NESTED_COLUMNS = ['contacts', 'balance', 'supply_addresses', 'transactions', 'payment_schedules', 'notes', 'bills', 'documents'] as const;
export const CSV_HEADER = [...ACCOUNT_COLUMNS, ...NESTED_COLUMNS];

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

export function csvHeaderLine(): string {
  return `${CSV_HEADER.join(',')}\n`;
}

export function recordToCsvLine(record: SourceRecord): string {
  const fields: string[] = [];
  for (const col of ACCOUNT_COLUMNS) {
    const v = record.account[col];
    fields.push(v === null ? '' : typeof v === 'number' ? String(v) : quote(v));
  }
  for (const col of NESTED_COLUMNS) fields.push(quote(JSON.stringify(record[col])));
  return `${fields.join(',')}\n`;
}

export interface CsvField {
  value: string;
  quoted: boolean;
}

/** Splits one CSV record (without its line end) into fields. */
export function parseCsvRecord(text: string): CsvField[] {
  const fields: CsvField[] = [];
  let i = 0;
  for (;;) {
    if (text[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new CsvError('unterminated quoted field');
        value += text.slice(i, q);
        if (text[q + 1] === '"') {
          value += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      fields.push({ value, quoted: true });
    } else {
      const end = text.indexOf(',', i);
      const value = text.slice(i, end < 0 ? text.length : end);
      fields.push({ value, quoted: false });
      i = end < 0 ? text.length : end;
    }
    if (i >= text.length) break;
    if (text[i] !== ',') throw new CsvError(`unexpected character after a quoted field at ${i}`);
    i++;
  }
  return fields;
}

export class CsvError extends Error {
  readonly code = 'source_csv_invalid';
}

export function checkCsvHeader(line: string): void {
  const got = parseCsvRecord(line).map((f) => f.value);
  if (got.join(',') !== CSV_HEADER.join(',')) throw new CsvError(`CSV header does not match the legacy export layout: ${got.join(',')}`);
}

/** The account number and id of a CSV record, without parsing its JSON columns. */
export function csvRecordKey(fields: CsvField[]): { accountId: number; accountNumber: string } {
  return { accountId: Number(fields[0].value), accountNumber: fields[1].value };
}

export function csvFieldsToRecord(fields: CsvField[]): SourceRecord {
  if (fields.length !== CSV_HEADER.length) throw new CsvError(`expected ${CSV_HEADER.length} fields, got ${fields.length}`);
  const account: Record<string, unknown> = {};
  ACCOUNT_COLUMNS.forEach((col, i) => {
    const f = fields[i];
    account[col] = col === 'account_id' ? Number(f.value) : f.quoted ? f.value : f.value === '' ? null : f.value;
  });
  const out: Record<string, unknown> = { account };
  NESTED_COLUMNS.forEach((col, k) => {
    out[col] = JSON.parse(fields[ACCOUNT_COLUMNS.length + k].value);
  });
  return sourceRecordSchema.parse(out);
}
