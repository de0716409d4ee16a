import fs from 'node:fs';
import readline from 'node:readline';
import { type ValidationError, LOCAL_CODES, validationError } from './errors';
import { type ValidateOptions, validateAccount, validateScheduleRequest } from './validate';
import { boundedDetail, capValue, personalValues } from './bounded-output';

/**
 * Validates a file of payloads: JSON (one payload or an array) or JSONL (one per line, streamed).
 * Each record may be a bare EnergyAccount or a `{payload, task_params}` request. One result per
 * record, valid or not, in file order.
 */

export interface FileValidationResult {
  /** Zero-based record index (JSONL: counting non-blank lines). */
  index: number;
  externalAccountNumber?: string;
  errors: ValidationError[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isScheduleRequest(record: unknown): boolean {
  return isObj(record) && 'payload' in record && 'task_params' in record;
}

function externalAccountNumberOf(record: unknown): string | undefined {
  const payload = isScheduleRequest(record) ? (record as Record<string, unknown>).payload : record;
  const ext = isObj(payload) ? payload.external_account_number : undefined;
  return typeof ext === 'string' && ext !== '' ? ext : undefined;
}

export function validateRecord(record: unknown, index: number, opts: ValidateOptions = {}): FileValidationResult {
  const result = isScheduleRequest(record) ? validateScheduleRequest(record, opts) : validateAccount(record, opts);
  // What is echoed back is bounded: the account number capped, personal values never quoted.
  const ext = externalAccountNumberOf(record);
  const externalAccountNumber = ext === undefined ? undefined : capValue(ext);
  const personal = result.ok ? [] : personalValues(record);
  const errors = result.ok ? [] : result.errors.map((e) => ({ ...e, attr: capValue(e.attr, 200), detail: boundedDetail(e.detail, personal) }));
  return { index, ...(externalAccountNumber ? { externalAccountNumber } : {}), errors };
}

function invalidJson(index: number, message: string): FileValidationResult {
  // JSON.parse quotes the input around the error: cap it.
  return { index, errors: [validationError(LOCAL_CODES.invalidJson, '', `Not valid JSON: ${capValue(message, 120)}`)] };
}

async function firstNonBlankChar(filePath: string): Promise<string | undefined> {
  const handle = await fs.promises.open(filePath, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart()[0];
  } finally {
    await handle.close();
  }
}

/** `.jsonl`/`.ndjson` are JSONL; `.json` is JSON; otherwise JSON if it parses whole, else JSONL. */
async function* readJsonl(filePath: string, opts: ValidateOptions): AsyncGenerator<FileValidationResult> {
  const lines = readline.createInterface({ input: fs.createReadStream(filePath, 'utf8'), crlfDelay: Infinity });
  let index = 0;
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (err) {
      yield invalidJson(index++, (err as Error).message);
      continue;
    }
    yield validateRecord(record, index++, opts);
  }
}

export async function* validateFile(filePath: string, opts: ValidateOptions = {}): AsyncGenerator<FileValidationResult> {
  const lower = filePath.toLowerCase();
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) {
    yield* readJsonl(filePath, opts);
    return;
  }
  const first = await firstNonBlankChar(filePath);
  if (first === undefined) return; // empty file: no records
  const text = (await fs.promises.readFile(filePath, 'utf8')).replace(/^\uFEFF/, '');
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch (err) {
    // A multi-line file that is not one JSON document is read as JSONL unless it claims to be JSON.
    if (!lower.endsWith('.json') && first === '{' && text.trim().includes('\n')) {
      yield* readJsonl(filePath, opts);
      return;
    }
    yield invalidJson(0, (err as Error).message);
    return;
  }
  const records = Array.isArray(whole) ? whole : [whole];
  for (let i = 0; i < records.length; i++) yield validateRecord(records[i], i, opts);
}

/** `EXT-123 customers.0.mobile invalid_phone_number: <detail>`; records without a number show `#<index>`. */
export function formatValidationLine(result: Pick<FileValidationResult, 'index' | 'externalAccountNumber'>, error: ValidationError): string {
  const who = result.externalAccountNumber ?? `#${result.index}`;
  const attr = error.attr === '' ? '-' : error.attr;
  return `${who} ${attr} ${error.code}: ${error.detail}`;
}

export function formatValidationLines(result: FileValidationResult): string[] {
  return result.errors.map((e) => formatValidationLine(result, e));
}
