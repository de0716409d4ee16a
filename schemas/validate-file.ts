import fs from 'node:fs';
import { type ValidationError, LOCAL_CODES, validationError } from './errors';
import { type ValidateOptions, validateAccount, validateScheduleRequest } from './validate';
import { boundedDetail, capValue, personalValues } from './bounded-output';
import { HOSTILE_JSON_CODES, decodeUtf8, hostileJsonProblem } from './hostile-json';
import { assertRegularFile, InputFileError } from './input-file';
import { fileFormat } from '../domain/source-spec';
import { openPayloadFile, readPayloadLines } from './json-lines';
import { MAX_JSON_RECORD_BYTES, readJsonArrayRecords } from './json-array-stream';

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

/** A record JSON.parse accepts but that carries a duplicate key or a control character (schemas/hostile-json.ts). */
function hostile(index: number, where: string, problem: { code: string; attr: string; detail: string }): FileValidationResult {
  return { index, errors: [validationError(problem.code, problem.attr, `${where}: ${problem.detail}`)] };
}

/**
 * A JSON document that is not an array (one account, or one request) is read whole: larger than
 * this it is refused. Arrays are streamed element by element, whatever their size
 * (schemas/json-array-stream.ts), each element bounded like a JSONL line.
 */
export const MAX_JSON_DOCUMENT_BYTES = MAX_JSON_RECORD_BYTES;

/** A `.json` array, element by element: each checked as one JSONL line is (strict UTF-8, JSON, duplicate keys, control characters). */
async function* readJsonArray(filePath: string, opts: ValidateOptions & { maxRecordBytes?: number }): AsyncGenerator<FileValidationResult> {
  for await (const r of readJsonArrayRecords(fs.createReadStream(filePath, { highWaterMark: 1 << 20 }), { maxRecordBytes: opts.maxRecordBytes })) {
    const where = `record ${r.index} (line ${r.line})`;
    if ('syntaxError' in r) {
      yield { index: r.index, errors: [validationError(LOCAL_CODES.invalidJson, '', `${where}: ${r.syntaxError}`)] };
      return;
    }
    const text = decodeUtf8(r.bytes);
    if (text === undefined) {
      yield { index: r.index, errors: [validationError(HOSTILE_JSON_CODES.invalidUtf8, '', `${where} is not valid UTF-8`)] };
      continue;
    }
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (err) {
      yield invalidJson(r.index, (err as Error).message);
      continue;
    }
    const problem = hostileJsonProblem(text, record);
    if (problem) {
      yield hostile(r.index, where, problem);
      continue;
    }
    yield validateRecord(record, r.index, opts);
  }
}

/** JSONL, streamed line by line (schemas/json-lines.ts: bounded lines, strict UTF-8, a BOM skipped). */
async function* readJsonl(filePath: string, opts: ValidateOptions): AsyncGenerator<FileValidationResult> {
  let index = 0;
  for await (const l of readPayloadLines(openPayloadFile(filePath))) {
    if ('tooLarge' in l) {
      yield { index: index++, errors: [validationError('payload_too_large', '', `line ${l.line} is ${l.length} bytes, over the limit of one payload`)] };
      continue;
    }
    if ('invalidUtf8' in l) {
      yield { index: index++, errors: [validationError(HOSTILE_JSON_CODES.invalidUtf8, '', `line ${l.line} is not valid UTF-8`)] };
      continue;
    }
    let record: unknown;
    try {
      record = JSON.parse(l.text);
    } catch (err) {
      yield invalidJson(index++, (err as Error).message);
      continue;
    }
    const problem = hostileJsonProblem(l.text, record);
    if (problem) {
      yield hostile(index++, `line ${l.line}`, problem);
      continue;
    }
    yield validateRecord(record, index++, opts);
  }
}

/**
 * The JSON reader of `kraken-migrate validate` (source/file-readers.ts): one document (an account
 * or a schedule request), an array of them streamed, or, in a file that does not claim to be JSON,
 * one a line.
 */
export async function* validateFile(
  filePath: string,
  opts: ValidateOptions & { maxJsonDocumentBytes?: number; maxJsonRecordBytes?: number } = {},
): AsyncGenerator<FileValidationResult> {
  const maxJson = opts.maxJsonDocumentBytes ?? MAX_JSON_DOCUMENT_BYTES;
  const { size } = await assertRegularFile(filePath);
  const format = fileFormat(filePath);
  const first = await firstNonBlankChar(filePath);
  if (first === undefined) return; // empty file: no records
  if (first === '[') {
    yield* readJsonArray(filePath, { ...opts, maxRecordBytes: opts.maxJsonRecordBytes });
    return;
  }
  if (size > maxJson) {
    throw new InputFileError(
      'json_document_too_large',
      `${filePath} is ${size} bytes, over the ${maxJson}-byte limit of one JSON document that is not an array: write an array or JSONL (one account a line)`,
    );
  }
  const decoded = decodeUtf8(await fs.promises.readFile(filePath));
  if (decoded === undefined) {
    yield { index: 0, errors: [validationError(HOSTILE_JSON_CODES.invalidUtf8, '', 'the file is not valid UTF-8')] };
    return;
  }
  const text = decoded.replace(/^\uFEFF/, '');
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch (err) {
    // A multi-line file that is not one JSON document is read as JSONL unless it claims to be JSON.
    if (format?.read !== 'json' && first === '{' && text.trim().includes('\n')) {
      yield* readJsonl(filePath, opts);
      return;
    }
    yield invalidJson(0, (err as Error).message);
    return;
  }
  const problem = hostileJsonProblem(text, whole);
  if (problem) {
    yield hostile(0, 'record 0', problem);
    return;
  }
  yield validateRecord(whole, 0, opts);
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
