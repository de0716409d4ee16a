import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { isValidPhoneNumber, type CountryCode } from 'libphonenumber-js/max';
import { convertComponents, DEFINITIONS_ID } from './to-json-schema';
import type { JsonSchemaObject, OpenApiDocument } from './spec';

/** One item of the platform's `errors[]`: `attr` is a dot path, zero-based indexes. */
export interface FieldError {
  detail: string;
  code: string;
  attr: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// The platform parses with Python's fromisoformat, which also takes a bare date (midnight).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;
const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?$/;
// GB postcodes, outward + inward code; the space is optional as the platform normalises it.
const GB_POSTCODE = /^(?:GIR ?0AA|[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]? ?\d[ABD-HJLNP-UW-Z]{2})$/i;

export function isCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[m - 1];
}

export function isIsoDate(s: string): boolean {
  const m = DATE.exec(s);
  return !!m && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

export function isIsoDateTime(s: string): boolean {
  const m = DATE_TIME.exec(s);
  if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  if (m[4] === undefined) return true;
  return Number(m[4]) < 24 && Number(m[5]) < 60 && (m[6] === undefined || Number(m[6]) < 60);
}

const FORMAT_DETAIL: Record<string, string> = {
  date: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
  'date-time': 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
  decimal: 'A valid number is required.',
  email: 'Enter a valid email address.',
  time: 'Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]].',
};

export interface SpecValidator {
  /** Converted definitions (for `collectMarkedValues`). */
  definitions: Record<string, JsonSchemaObject>;
  /** Validates `data` against a component schema; [] when valid. */
  validate(schemaName: string, data: unknown): FieldError[];
}

export function createSpecValidator(doc: OpenApiDocument, opts: { phoneRegion?: string; compile?: string[] } = {}): SpecValidator {
  const region = (opts.phoneRegion ?? 'GB') as CountryCode;
  const definitions = convertComponents(doc.components.schemas);
  // strict:false: the document is full of x-* keywords, descriptions on $ref siblings, etc.
  const ajv = new Ajv({ strict: false, allErrors: true, verbose: true, validateFormats: true });
  addFormats(ajv, ['email']);
  ajv.addFormat('date', { type: 'string', validate: isIsoDate });
  ajv.addFormat('date-time', { type: 'string', validate: isIsoDateTime });
  ajv.addFormat('decimal', { type: 'string', validate: (s: string) => DECIMAL.test(s) });
  ajv.addFormat('time', { type: 'string', validate: (s: string) => TIME.test(s) });
  ajv.addKeyword({
    keyword: 'krakenPhone',
    type: 'string',
    schemaType: 'boolean',
    // Blank means "not provided" to the platform; its own blank rule is separate.
    validate: (on: boolean, value: string) => !on || value === '' || isValidPhoneNumber(value, region),
  });
  ajv.addKeyword({
    keyword: 'krakenPostcode',
    type: 'string',
    schemaType: 'boolean',
    validate: (on: boolean, value: string) => !on || value === '' || GB_POSTCODE.test(value.trim()),
  });
  ajv.addSchema({ $id: DEFINITIONS_ID, definitions });

  const compiled = new Map<string, ValidateFunction>();
  const get = (name: string) => {
    let fn = compiled.get(name);
    if (!fn) {
      if (!definitions[name]) throw new Error(`no component schema ${name} in the OpenAPI document`);
      fn = ajv.compile({ $ref: `${DEFINITIONS_ID}#/definitions/${name}` });
      compiled.set(name, fn);
    }
    return fn;
  };
  for (const name of opts.compile ?? []) get(name);

  return {
    definitions,
    validate(schemaName, data) {
      const fn = get(schemaName);
      if (fn(data)) return [];
      return toFieldErrors(fn.errors ?? []);
    },
  };
}

function attrOf(instancePath: string, extra?: string): string {
  const parts =
    instancePath === ''
      ? []
      : instancePath
          .slice(1)
          .split('/')
          .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.join('.') || 'non_field_errors';
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'list';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'dict' : typeof v;
}

function mapError(e: ErrorObject): FieldError | undefined {
  const data = e.data;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { attr: attrOf(e.instancePath, String(p.missingProperty)), code: 'required', detail: 'This field is required.' };
    case 'type': {
      const attr = attrOf(e.instancePath);
      if (data === null) return { attr, code: 'null', detail: 'This field may not be null.' };
      const expected = String(p.type);
      if (expected.startsWith('array')) return { attr, code: 'not_a_list', detail: `Expected a list of items but got type "${describe(data)}".` };
      if (expected.startsWith('object')) return { attr, code: 'invalid', detail: `Invalid data. Expected a dictionary, but got ${describe(data)}.` };
      if (expected.startsWith('integer') || expected.startsWith('number')) return { attr, code: 'invalid', detail: 'A valid integer is required.' };
      if (expected.startsWith('boolean')) return { attr, code: 'invalid', detail: 'Must be a valid boolean.' };
      return { attr, code: 'invalid', detail: 'Not a valid string.' };
    }
    case 'enum':
      if (data === null) return { attr: attrOf(e.instancePath), code: 'null', detail: 'This field may not be null.' };
      return { attr: attrOf(e.instancePath), code: 'invalid_choice', detail: `"${String(data)}" is not a valid choice.` };
    case 'maxLength':
      return { attr: attrOf(e.instancePath), code: 'max_length', detail: `Ensure this field has no more than ${String(p.limit)} characters.` };
    case 'minLength':
      if (data === '') return { attr: attrOf(e.instancePath), code: 'blank', detail: 'This field may not be blank.' };
      return { attr: attrOf(e.instancePath), code: 'min_length', detail: `Ensure this field has at least ${String(p.limit)} characters.` };
    case 'minItems':
      return { attr: attrOf(e.instancePath), code: 'min_length', detail: `Ensure this field has at least ${String(p.limit)} elements.` };
    case 'maxItems':
      return { attr: attrOf(e.instancePath), code: 'max_length', detail: `Ensure this field has no more than ${String(p.limit)} elements.` };
    case 'minimum':
      return { attr: attrOf(e.instancePath), code: 'min_value', detail: `Ensure this value is greater than or equal to ${String(p.limit)}.` };
    case 'maximum':
      return { attr: attrOf(e.instancePath), code: 'max_value', detail: `Ensure this value is less than or equal to ${String(p.limit)}.` };
    case 'format':
      return { attr: attrOf(e.instancePath), code: 'invalid', detail: FORMAT_DETAIL[String(p.format)] ?? 'Enter a valid value.' };
    case 'pattern':
      return { attr: attrOf(e.instancePath), code: 'invalid', detail: 'Enter a valid value.' };
    case 'krakenPhone':
      return { attr: attrOf(e.instancePath), code: 'invalid_phone_number', detail: `${String(data)} is not a valid phone number` };
    case 'krakenPostcode':
      return { attr: attrOf(e.instancePath), code: 'invalid_postcode', detail: `${String(data)} is not a valid postcode.` };
    case 'if':
    case 'anyOf':
    case 'oneOf':
    case 'allOf':
    case 'not':
      return undefined; // wrappers: their branches report the real problem
    default:
      return { attr: attrOf(e.instancePath), code: 'invalid', detail: e.message ?? 'Invalid value.' };
  }
}

/** ajv errors → the platform's `{detail, code, attr}` items, one problem per field as DRF reports. */
export function toFieldErrors(errors: ErrorObject[]): FieldError[] {
  // A wrong type (or null) makes every other rule on that field noise.
  const typeBroken = new Set(errors.filter((e) => e.keyword === 'type' || (e.keyword === 'enum' && e.data === null)).map((e) => e.instancePath));
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors) {
    if (typeBroken.has(e.instancePath) && e.keyword !== 'type' && e.keyword !== 'enum' && e.keyword !== 'required') continue;
    const mapped = mapError(e);
    if (!mapped) continue;
    const key = `${mapped.attr}\u0000${mapped.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(mapped);
  }
  return out;
}
