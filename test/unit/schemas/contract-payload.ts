import { loadContract } from '../../../contract';

/**
 * Builds, from the contract alone, a value for a component that holds every property the contract
 * declares on it and on everything it nests (one item per list; for a list of a `oneOf`, one item
 * per option, so every option's properties appear). Values are the plainest ones each property's
 * declaration allows (type, enum, format, decimal pattern, maxLength, minimum, minItems, and the
 * field-level validators: phone numbers, MPAN/MPRN, postcodes). Nothing here is written per field:
 * a property the contract adds tomorrow appears in the payload without a change.
 */

type Json = Record<string, any>;
const schemas = (): Record<string, Json> => (loadContract() as any).components.schemas;
const deref = (js: Json): Json => (js?.$ref ? deref(schemas()[js.$ref.split('/').pop()]) : js);
const codesOf = (js: Json) => new Set<string>((js['x-validators'] ?? []).flatMap((v: Json) => v.possible_errors ?? []));

function stringValue(js: Json, key: string): string {
  const codes = codesOf(js);
  if (js.format === 'date') return '2024-01-15';
  if (js.format === 'date-time') return '2024-01-15T09:30:00Z';
  if (js.format === 'time') return '07:30:00';
  if (js.format === 'email') return `${key.replace(/_/g, '.')}@example.org`;
  if (js.format === 'decimal') return '1.5';
  if (codes.has('invalid_phone_number')) return '+447123456789';
  if (codes.has('invalid_supply_point_identifier')) return '1234567890';
  if (codes.has('invalid_postcode')) return 'SW1A 1AA';
  if (codes.has('invalid_delivery_point_identifier')) return 'AB12';
  const text = `${key}-value`;
  const max = js.maxLength ?? Infinity;
  const min = js.minLength ?? 0;
  return text.length > max ? text.slice(0, max) : text.padEnd(min, 'x');
}

/** One value for a contract schema node; `stack` guards against cycles (none today). */
export function valueFor(raw: Json, key = 'value', stack: string[] = []): unknown {
  const name = raw?.$ref?.split('/').pop();
  if (name && stack.includes(name)) throw new Error(`cycle through ${name}`);
  const inner = name ? [...stack, name] : stack;
  const js = deref(raw);
  if (js.allOf) return valueFor(js.allOf[0], key, inner);
  // A single value of a oneOf (Business): every option's properties on one object.
  if (js.oneOf) return Object.assign({}, ...options(js).map((o) => valueFor(o, key, inner)));
  if (js.enum) return js.enum.find((v: unknown) => v !== null && v !== '') ?? js.enum[0];
  switch (js.type) {
    case 'string':
      return stringValue(js, key);
    case 'integer':
      return js.minimum ?? 1;
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array': {
      const items = deref(js.items ?? {});
      if (items.oneOf) return options(items).map((o) => valueFor(o, key, inner));
      return Array.from({ length: Math.max(1, js.minItems ?? 1) }, () => valueFor(js.items, key, inner));
    }
    default:
      if (js.properties) return objectFor(js, inner);
      if (js.type === 'object') return { free_form: 'kept as sent' };
      return `${key} (untyped in the contract)`;
  }
}

/** A oneOf's options, each with its discriminator value pinned to the one the mapping names for it. */
function options(js: Json): Json[] {
  const prop: string | undefined = js.discriminator?.propertyName;
  const mapping: Record<string, string> = js.discriminator?.mapping ?? {};
  return js.oneOf.map((o: Json) => {
    const tag = Object.keys(mapping).find((k) => mapping[k] === o.$ref && k !== '');
    if (!prop || tag === undefined || !(prop in (deref(o).properties ?? {}))) return o;
    const d = deref(o);
    return { ...d, properties: { ...d.properties, [prop]: { type: 'string', enum: [tag] } } };
  });
}

function objectFor(js: Json, stack: string[]): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries<Json>(js.properties ?? {})) out[k] = valueFor(v, k, stack);
  // A supply point identifier is an MPRN above; an electricity meter point's is an MPAN core.
  if (out.supply_type === 'ELECTRICITY' && typeof out.identifier === 'string') out.identifier = '2000024512368';
  return out;
}

/** Every property of a component and what it nests, for a component of the contract. */
export function everyField(component: string): Json {
  return valueFor({ $ref: `#/components/schemas/${component}` }) as Json;
}

/** Index-free dot paths of every property a value holds (`supply_addresses.meter_points.agents`). */
export function pathsOf(value: unknown, at = ''): Set<string> {
  const out = new Set<string>();
  const visit = (v: unknown, p: string) => {
    if (Array.isArray(v)) v.forEach((x) => visit(x, p));
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const q = p === '' ? k : `${p}.${k}`;
        out.add(q);
        visit(x, q);
      }
    }
  };
  visit(value, at);
  return out;
}
