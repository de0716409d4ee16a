import { fileFormat, type FileFormat } from '../domain/source-spec';
import type { ValidateOptions } from '../schemas/validate';
import { type FileValidationResult, validateFile } from '../schemas/validate-file';
import { checkCsvHeader, csvFieldsToRecord, csvRecordKey, parseCsvRecord } from './csv';
import { validatePayloadFile } from './payload-validate';
import { type SourceRecord, sourceRecordSchema } from './types';

/**
 * The readers of each file format, by the `read` of its row in domain/source-spec.ts: a new
 * format is a row there and its readers here. Nothing else asks which format a file is.
 */

/** A legacy export's records (`run start --source FILE`), one record's text at a time (source/file-adapter.ts). */
export interface LegacyRecords {
  /** A record may span lines inside quotes (CSV). */
  quoted: boolean;
  /** Checks the header line, for a format that starts with one. */
  header?: (line: string) => void;
  key(text: string, file: string): { accountId: number; accountNumber: string };
  parse(text: string): SourceRecord;
}

export interface FormatReaders {
  /** `kraken-migrate validate`: every account of the file, checked. */
  validate?: (file: string, opts: ValidateOptions) => AsyncIterable<FileValidationResult>;
  /** The records of a legacy export, for a format that can hold one. */
  legacy?: LegacyRecords;
}

const JSONL_RECORDS: LegacyRecords = {
  quoted: false,
  key(text, file) {
    const account = (JSON.parse(text) as { account?: { account_id?: unknown; account_number?: unknown } }).account;
    if (typeof account?.account_id !== 'number' || typeof account.account_number !== 'string') {
      throw new Error(`${file}: a record without account.account_id/account_number`);
    }
    return { accountId: account.account_id, accountNumber: account.account_number };
  },
  parse: (text) => sourceRecordSchema.parse(JSON.parse(text)),
};

const CSV_RECORDS: LegacyRecords = {
  quoted: true,
  header: checkCsvHeader,
  key: (text) => csvRecordKey(parseCsvRecord(text)),
  parse: (text) => csvFieldsToRecord(parseCsvRecord(text)),
};

export const FORMAT_READERS: { readonly [K in FileFormat['read']]: FormatReaders } = {
  // Read as `run start --payloads` reads it, account by account, so the two agree on every account.
  lines: { validate: validatePayloadFile, legacy: JSONL_RECORDS },
  csv: { legacy: CSV_RECORDS },
  json: { validate: validateFile },
};

/**
 * A file's readers, by its extension. What its format has no reader for (or a file of no known
 * format) is validated as JSON (validateFile tells a document, an array and lines apart) and read,
 * as a legacy export, as JSONL.
 */
export function readersOf(file: string): Required<FormatReaders> {
  const format = fileFormat(file);
  const row: FormatReaders = format ? FORMAT_READERS[format.read] : {};
  return { validate: row.validate ?? validateFile, legacy: row.legacy ?? JSONL_RECORDS };
}
