import type { JsonSchemaObject } from './spec';

/**
 * OpenAPI 3.0 component schemas → JSON Schema (draft-07 style `definitions`) that ajv compiles.
 * Pure: takes the components, returns new objects. What it does beyond renaming `$ref`s:
 * - `nullable: true` becomes a `null` type (or an `if null / else` wrapper around `allOf`/`$ref`);
 * - `discriminator` + `oneOf` becomes one `if tag = v then $ref` per mapping entry, so errors come
 *   from the chosen branch only (DRF's polymorphic serializers behave that way);
 * - fields whose `x-validators` list `invalid_phone_number` / `invalid_postcode` get the custom
 *   keywords `krakenPhone` / `krakenPostcode`;
 * - enums that are the tenant's own data (see `TENANT_ENUMS`) are dropped: the sandbox checks
 *   those against its own tables instead.
 */

export const DEFINITIONS_ID = 'kraken-openapi';

/** Enums listing one tenant's configuration rather than API rules (README "Caveats found in the spec"). */
export const TENANT_ENUMS: readonly string[] = [
  'EnergyAccount.import_supplier',
  'AccountCampaign.slug',
  // The v1 post-import bodies repeat the same tenant list of import suppliers.
  'AccountNote.import_supplier',
  'Transactions.import_supplier',
  'HistoricalStatements.import_supplier',
  'LegacyPaymentInstruction.import_supplier',
];

/** Validator codes the sandbox checks with a custom ajv keyword, by the keyword's name. */
const CODE_KEYWORDS: Record<string, string> = {
  invalid_phone_number: 'krakenPhone',
  invalid_postcode: 'krakenPostcode',
};

const REF_PREFIX = '#/components/schemas/';

export interface DiscriminatorInfo {
  propertyName: string;
  /** Tag value (as JSON) → definition name. */
  mapping: Array<{ value: string | boolean | null; definition: string }>;
}

export function possibleErrors(schema: JsonSchemaObject): string[] {
  const validators = schema['x-validators'];
  if (!Array.isArray(validators)) return [];
  return validators.flatMap((v) =>
    Array.isArray((v as { possible_errors?: unknown }).possible_errors) ? (v as { possible_errors: string[] }).possible_errors : [],
  );
}

export function refName(ref: string): string {
  if (ref.startsWith(REF_PREFIX)) return ref.slice(REF_PREFIX.length);
  if (ref.startsWith('#/definitions/')) return ref.slice('#/definitions/'.length);
  throw new Error(`unsupported $ref ${ref}`);
}

function isObject(v: unknown): v is JsonSchemaObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function tagValue(key: string): string | boolean | null {
  if (key === 'null') return null;
  if (key === 'true') return true;
  if (key === 'false') return false;
  return key;
}

function convertNode(node: unknown, where: string, tenantEnums: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => convertNode(n, where, tenantEnums));
  if (!isObject(node)) return node;
  const out: JsonSchemaObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && isObject(value)) {
      const props: JsonSchemaObject = {};
      for (const [name, prop] of Object.entries(value)) {
        const converted = convertNode(prop, `${where}.${name}`, tenantEnums) as JsonSchemaObject;
        if (tenantEnums.has(`${where}.${name}`)) delete converted.enum;
        props[name] = converted;
      }
      out.properties = props;
    } else if (key === '$ref' && typeof value === 'string') {
      out.$ref = `#/definitions/${refName(value)}`;
    } else if (key.startsWith('x-') || key === 'enum' || key === 'default' || key === 'example' || key === 'discriminator') {
      out[key] = value;
    } else if (key === 'nullable') {
      // handled below
    } else {
      out[key] = convertNode(value, where, tenantEnums);
    }
  }

  for (const code of possibleErrors(node)) {
    const keyword = CODE_KEYWORDS[code];
    if (keyword) out[keyword] = true;
  }

  const discriminator = node.discriminator;
  if (isObject(discriminator) && Array.isArray(node.oneOf)) {
    const propertyName = String(discriminator.propertyName);
    const mapping = Object.entries(isObject(discriminator.mapping) ? discriminator.mapping : {}).map(([k, ref]) => ({
      value: tagValue(k),
      definition: refName(String(ref)),
    }));
    delete out.oneOf;
    delete out.discriminator;
    const info: DiscriminatorInfo = { propertyName, mapping };
    out['x-discriminator'] = info;
    out.type = 'object';
    const tagEnum = mapping.map((m) => m.value);
    out.properties = { ...(isObject(out.properties) ? out.properties : {}), [propertyName]: { enum: tagEnum } };
    // An absent tag counts as null where the mapping has a null key, which is how the one optional
    // tag in the spec behaves; else as "" where it has an empty key (a blank default, as in
    // `Business`'s `enforce_business_contracts_exist`: assumption 26 in sandbox/README.md).
    const absentAs = tagEnum.includes(null) ? null : tagEnum.includes('') ? '' : undefined;
    if (absentAs === undefined) out.required = [propertyName];
    const absent = { not: { required: [propertyName] } };
    out.allOf = mapping.map((m) => {
      const given =
        m.value === null
          ? { properties: { [propertyName]: { type: 'null' } } }
          : { properties: { [propertyName]: { const: m.value } }, required: [propertyName] };
      return {
        if: m.value === absentAs && m.value !== null ? { anyOf: [absent, given] } : given,
        then: { $ref: `#/definitions/${m.definition}` },
      };
    });
  }

  if (node.nullable === true) {
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    } else if (Array.isArray(out.enum)) {
      if (!out.enum.includes(null)) out.enum = [...out.enum, null];
    } else {
      const { description, ...rest } = out;
      return { description, if: { type: 'null' }, else: rest };
    }
  }
  return out;
}

export function convertComponents(schemas: Record<string, JsonSchemaObject>, tenantEnums: readonly string[] = TENANT_ENUMS): Record<string, JsonSchemaObject> {
  const set = new Set(tenantEnums);
  const defs: Record<string, JsonSchemaObject> = {};
  for (const [name, schema] of Object.entries(schemas)) defs[name] = convertNode(schema, name, set) as JsonSchemaObject;
  return defs;
}

/**
 * Values of the fields whose `x-validators` name `code`, found by walking `data` along the
 * converted schema (e.g. every `document_path` / `statement_path` for
 * `path_does_not_exist_in_file_store`, every agreement `tariff_code` for `tariff_code_not_found`).
 */
export function collectMarkedValues(defs: Record<string, JsonSchemaObject>, root: string, data: unknown, code: string): Array<{ attr: string; value: string }> {
  const out: Array<{ attr: string; value: string }> = [];
  const seen = new Set<string>();
  const walk = (schema: unknown, value: unknown, path: string[]) => {
    if (!isObject(schema) || value === undefined || value === null) return;
    if (typeof schema.$ref === 'string') walk(defs[refName(schema.$ref)], value, path);
    if (typeof value === 'string' && possibleErrors(schema).includes(code)) {
      const attr = path.join('.');
      if (!seen.has(attr)) {
        seen.add(attr);
        out.push({ attr, value });
      }
    }
    if (isObject(schema.else)) walk(schema.else, value, path);
    const disc = schema['x-discriminator'] as DiscriminatorInfo | undefined;
    if (disc && isObject(value)) {
      const tag = value[disc.propertyName] ?? null;
      const branch = disc.mapping.find((m) => m.value === tag);
      if (branch) walk(defs[branch.definition], value, path);
    }
    if (Array.isArray(schema.allOf)) for (const s of schema.allOf) if (isObject(s) && !('if' in s)) walk(s, value, path);
    if (isObject(schema.properties) && isObject(value)) {
      for (const [name, prop] of Object.entries(schema.properties)) if (name in value) walk(prop, value[name], [...path, name]);
    }
    if (isObject(schema.items) && Array.isArray(value)) value.forEach((item, i) => walk(schema.items, item, [...path, String(i)]));
  };
  walk(defs[root], data, []);
  return out;
}
