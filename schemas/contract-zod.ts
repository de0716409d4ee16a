import { z } from 'zod';
import { loadContract } from '../contract';
import { dateString, decimalString, deliveryPointIdentifier, emailString, integer, phoneString, requiredString, utcDateTimeString } from './fields';
import { type CountryCode, isMpanCore, isMprn, isUkPostcode } from './formats';
import { isObj } from './rule-kit';

/**
 * Strict zod schemas read from the contract (`contract/data-import.contract.json`) for the parts of
 * `EnergyAccount` that `account.ts` and its `account-*.ts` parts do not write out by hand. Each property is checked by what the
 * contract states (type, `required`, `nullable`, `enum`, `format`, decimal `pattern`, `maxLength`,
 * `minLength`, `minimum`/`maximum`, `minItems`) plus the field-level `x-validators` that need nothing
 * but the value (phone numbers, MPAN/MPRN, delivery point identifiers, postcodes), and passed on as
 * it came: no `default` is applied, nothing is transformed, objects are strict. Deprecated
 * properties are modelled like the others: the contract still declares them.
 *
 * Property schemas the contract leaves untyped (dynamic choices such as `segment_name`, deprecated
 * `details`, `additional_data`) accept any JSON value; an untyped `object` accepts any JSON object.
 */

type Json = {
  $ref?: string;
  type?: string;
  format?: string;
  pattern?: string;
  enum?: Array<string | null>;
  nullable?: boolean;
  required?: string[];
  properties?: Record<string, Json>;
  items?: Json;
  allOf?: Json[];
  oneOf?: Json[];
  discriminator?: { propertyName: string };
  maxLength?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  'x-validators'?: Array<{ possible_errors?: string[] }>;
};

const coded = (code: string, message: string) => ({ message, params: { code } });
const components = (): Record<string, Json> => (loadContract() as unknown as { components: { schemas: Record<string, Json> } }).components.schemas;
const refName = (ref: string) => ref.split('/').pop() as string;

/** The component a name or `$ref` names; throws on a name the contract lacks (a typo here, not in a payload). */
export function contractComponent(name: string): Json {
  const schema = components()[name];
  if (!schema) throw new Error(`contract-zod: the contract has no component "${name}"`);
  return schema;
}

const validatorCodes = (js: Json) => new Set((js['x-validators'] ?? []).flatMap((v) => v.possible_errors ?? []));

/** `^-?\d{0,I}(?:\.\d{0,F})?$`, the contract's decimal pattern → (I, F). */
function decimalDigits(pattern: string | undefined): [number, number] {
  const m = /^\^-\?\\d\{0,(\d+)\}\(\?:\\\.\\d\{0,(\d+)\}\)\?\$$/.exec(pattern ?? '');
  if (!m) throw new Error(`contract-zod: unrecognised decimal pattern ${pattern}`);
  return [Number(m[1]), Number(m[2])];
}

const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$/;

/** A JSON value that must be given (an untyped required property); `undefined` is "missing". */
const anyValue = (required: boolean) => (required ? z.unknown().refine((v) => v !== undefined, coded('required', 'This field is required.')) : z.unknown());

export interface DeriveOptions {
  /** Region for phone number checks. */
  region: CountryCode;
  /** Components written by hand elsewhere, reused by name so one definition holds (e.g. `Note`). */
  reuse?: Record<string, z.ZodType>;
}

function stringSchema(js: Json, required: boolean, opts: DeriveOptions): z.ZodType {
  const codes = validatorCodes(js);
  if (js.format === 'date') return dateString;
  if (js.format === 'date-time') return utcDateTimeString;
  if (js.format === 'decimal') return decimalString(...decimalDigits(js.pattern));
  if (js.format === 'time') return z.string().refine((v) => TIME.test(v), coded('invalid', 'Time must be HH:MM[:SS[.ffffff]].'));
  if (js.format === 'email') return js.maxLength !== undefined && js.maxLength < 254 ? emailString.max(js.maxLength) : emailString;
  if (codes.has('invalid_phone_number')) return phoneString(opts.region);
  if (codes.has('invalid_delivery_point_identifier')) return deliveryPointIdentifier;
  let s: z.ZodType = required ? requiredString(js.maxLength) : js.maxLength === undefined ? z.string() : z.string().max(js.maxLength);
  if (js.minLength !== undefined) s = (s as z.ZodString).min(js.minLength);
  if (codes.has('invalid_supply_point_identifier')) {
    s = s.refine(
      (v) => typeof v === 'string' && (v.trim() === '' || isMpanCore(v) || isMprn(v)),
      coded('invalid_supply_point_identifier', 'Not a valid MPAN core (13 digits, valid check digit) or MPRN (6 to 10 digits).'),
    );
  }
  if (codes.has('invalid_postcode')) {
    s = s.refine((v) => typeof v === 'string' && (v.trim() === '' || isUkPostcode(v)), coded('invalid_postcode', 'Enter a valid UK postcode.'));
  }
  return s;
}

function objectSchema(js: Json, opts: DeriveOptions): z.ZodType {
  if (!js.properties) {
    return z.unknown().refine((v) => v === undefined || isObj(v), coded('invalid', 'A JSON object is required.'));
  }
  return z.strictObject(propertyShape(js, opts));
}

/** A zod schema for one contract schema node, wrappers (`nullable`) included, optionality not. */
function node(js: Json, required: boolean, opts: DeriveOptions): z.ZodType {
  if (js.$ref) return node(contractComponent(refName(js.$ref)), required, opts);
  let base: z.ZodType;
  if (js.allOf) {
    if (js.allOf.length !== 1) throw new Error('contract-zod: allOf with more than one part is not supported');
    const inner = js.allOf[0];
    const name = inner.$ref ? refName(inner.$ref) : undefined;
    base = name && opts.reuse?.[name] ? opts.reuse[name] : node(inner, required, opts);
  } else if (js.oneOf) {
    const prop = js.discriminator?.propertyName;
    const options = js.oneOf.map((o) => node(o, required, opts)) as [z.ZodObject, ...z.ZodObject[]];
    base = prop ? z.discriminatedUnion(prop, options) : z.union(options);
  } else if (js.enum) {
    const values = js.enum.filter((v): v is string => v !== null);
    base = z.enum(values as [string, ...string[]]);
    if (js.enum.includes(null)) base = base.nullable();
  } else if (js.type === 'string') {
    base = stringSchema(js, required, opts);
  } else if (js.type === 'integer') {
    let n = integer;
    if (js.minimum !== undefined) n = n.min(js.minimum);
    if (js.maximum !== undefined) n = n.max(js.maximum);
    base = n;
  } else if (js.type === 'number') {
    base = z.number();
  } else if (js.type === 'boolean') {
    base = z.boolean();
  } else if (js.type === 'array') {
    const itemName = js.items?.$ref ? refName(js.items.$ref) : undefined;
    const item = itemName && opts.reuse?.[itemName] ? opts.reuse[itemName] : node(js.items ?? {}, true, opts);
    base = js.minItems !== undefined ? z.array(item).min(js.minItems) : z.array(item);
  } else if (js.type === 'object' || js.properties) {
    base = objectSchema(js, opts);
  } else {
    return anyValue(required); // untyped: any JSON value, passed on as it is
  }
  return js.nullable && !(base instanceof z.ZodNullable) ? base.nullable() : base;
}

/** The zod shape of a contract object: every property, optional unless `required`. */
export function propertyShape(js: Json, opts: DeriveOptions, only?: ReadonlySet<string>): Record<string, z.ZodType> {
  const required = new Set(js.required ?? []);
  const shape: Record<string, z.ZodType> = {};
  for (const [key, prop] of Object.entries(js.properties ?? {})) {
    if (only && !only.has(key)) continue;
    const schema = node(prop, required.has(key), opts);
    shape[key] = required.has(key) ? schema : schema.optional();
  }
  return shape;
}

/**
 * `handWritten` completed with every property the named components declare that it lacks, read
 * from the contract. Where several components are named (a `oneOf` whose options share an object,
 * e.g. `BaseBusiness` and `BusinessWithExistingContracts`), their properties are joined.
 */
export function withContractFields<S extends Record<string, z.ZodType>>(handWritten: S, componentNames: readonly string[], opts: DeriveOptions): S {
  const added: Record<string, z.ZodType> = {};
  for (const name of componentNames) {
    const js = contractComponent(name);
    const missing = new Set(Object.keys(js.properties ?? {}).filter((k) => !(k in handWritten) && !(k in added)));
    Object.assign(added, propertyShape(js, opts, missing));
  }
  // Typed as the hand-written shape: the added fields are checked at run time and passed on as they
  // came; no code of this project reads them, so they stay out of the static type.
  return { ...handWritten, ...added };
}

/** The contract's keys of a component that `withContractFields` would add to `handWritten`. */
export function contractOnlyKeys(handWritten: Record<string, unknown>, componentNames: readonly string[]): string[] {
  return [...new Set(componentNames.flatMap((n) => Object.keys(contractComponent(n).properties ?? {})))].filter((k) => !(k in handWritten)).sort();
}
