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
  if (js.format === 'date') return '2019-01-15';
  if (js.format === 'date-time') return '2019-01-15T09:30:00Z';
  if (js.format === 'time') return '07:30:00';
  if (js.format === 'email') return `${key.replace(/_/g, '.')}@example.org`;
  if (js.format === 'decimal') return '0.00'; // zero: sums the rules check (balances, line items) stay as they were
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
export function valueFor(raw: Json, key = 'value', stack: string[] = [], minimal = false): unknown {
  const name = raw?.$ref?.split('/').pop();
  if (name && stack.includes(name)) throw new Error(`cycle through ${name}`);
  const inner = name ? [...stack, name] : stack;
  const js = deref(raw);
  if (js.allOf) return valueFor(js.allOf[0], key, inner, minimal);
  // A single value of a oneOf (Business): the option with the most properties.
  if (js.oneOf) {
    const size = (o: Json) => Object.keys(deref(o).properties ?? {}).length;
    return valueFor(
      options(js).reduce((a, b) => (size(b) > size(a) ? b : a)),
      key,
      inner,
      minimal,
    );
  }
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
      if (items.oneOf) return (minimal ? options(items).slice(0, 1) : options(items)).map((o) => valueFor(o, key, inner, minimal));
      return Array.from({ length: Math.max(1, js.minItems ?? 1) }, () => valueFor(js.items, key, inner, minimal));
    }
    default:
      if (js.properties) return objectFor(js, inner, minimal);
      if (js.type === 'object') return { free_form: 'kept as sent' };
      return `${key} (untyped in the contract)`;
  }
}

/** A mapping key as the value it stands for (OpenAPI writes every key as a string). */
const tagValue = (k: string): unknown => (k === 'true' ? true : k === 'false' ? false : k === 'null' ? null : k);

/**
 * A oneOf's options, each with its discriminator property pinned (and required) to the value the
 * mapping names for it, whether or not the option declares that property (`Business` does not).
 */
function options(js: Json): Json[] {
  const prop: string | undefined = js.discriminator?.propertyName;
  const mapping: Record<string, string> = js.discriminator?.mapping ?? {};
  return js.oneOf.map((o: Json) => {
    const keys = Object.keys(mapping).filter((k) => mapping[k] === o.$ref);
    const tag = keys.find((k) => k !== '') ?? keys[0];
    if (!prop || tag === undefined) return o;
    const d = deref(o);
    return { ...d, properties: { ...d.properties, [prop]: { enum: [tagValue(tag)] } }, required: [...new Set([...(d.required ?? []), prop])] };
  });
}

function objectFor(js: Json, stack: string[], minimal = false): Json {
  const out: Json = {};
  const required = new Set<string>(js.required ?? []);
  for (const [k, v] of Object.entries<Json>(js.properties ?? {})) if (!minimal || required.has(k)) out[k] = valueFor(v, k, stack, minimal);
  // A supply point identifier is an MPRN above; an electricity meter point's is an MPAN core.
  if (out.supply_type === 'ELECTRICITY' && typeof out.identifier === 'string') out.identifier = '2000024512368';
  return out;
}

/** Every property of a component and what it nests, for a component of the contract. */
export function everyField(component: string): Json {
  return valueFor({ $ref: `#/components/schemas/${component}` }) as Json;
}

/**
 * Index-free dot paths of every property a value holds (`supply_addresses.meter_points.agents`); a
 * ledger's statement lists count as the account-level lists they stand for (`ledgers.` dropped).
 */
export function pathsOf(value: unknown, at = ''): Set<string> {
  const out = new Set<string>();
  const visit = (v: unknown, p: string) => {
    if (Array.isArray(v)) v.forEach((x) => visit(x, p));
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const q = p === '' ? k : p === 'ledgers' ? k : `${p}.${k}`;
        out.add(q);
        visit(x, q);
      }
    }
  };
  visit(value, at);
  return out;
}

/** Something the contract declares that a payload lacks: a property of an object, or an option of a list's oneOf. */
interface Gap {
  path: string; // index-free; `…#TAG` for a oneOf option
  /** The values to try, plainest first (computed when first asked). */
  candidates(): unknown[];
  apply(value: unknown): void;
  undo(): void;
}

/**
 * What to try for one missing thing: its plainest value (required properties only), then that value
 * with one more optional property (or list option) filled in, for each such property at any depth:
 * enough for a rule that wants one of several optional fields (a line item's rate band).
 */
function candidatesFor(raw: Json, key: string, stack: string[]): unknown[] {
  const plain = valueFor(raw, key, stack, true);
  const out = [plain];
  if (plain === null || typeof plain !== 'object') return out;
  const probe = structuredClone(plain);
  for (const g of gaps(probe, raw, '#', [], stack)) {
    g.apply(g.candidates()[0]);
    out.push(structuredClone(probe));
    g.undo();
  }
  return out;
}

function tagOf(o: Json, prop: string): unknown {
  return deref(o).properties?.[prop]?.enum?.[0];
}

/** Every gap of a payload, in the order the contract declares things. */
function gaps(value: unknown, raw: Json, at: string, out: Gap[], stack: string[] = []): Gap[] {
  const name = raw?.$ref?.split('/').pop();
  const inner = name ? [...stack, name] : stack;
  const js = deref(raw);
  if (value === null || value === undefined) return out;
  if (js.allOf) return gaps(value, js.allOf[0], at, out, inner);
  if (js.oneOf) {
    const prop = js.discriminator?.propertyName;
    const opts = options(js);
    const pick = opts.find((o) => tagOf(o, prop) === (value as Json)[prop]);
    return pick ? gaps(value, pick, at, out, inner) : out;
  }
  if (js.type === 'array' && Array.isArray(value)) {
    const list = value;
    for (const v of list) gaps(v, js.items, at, out, inner);
    const items = deref(js.items ?? {});
    const prop = items.discriminator?.propertyName;
    if (items.oneOf && prop) {
      for (const o of options(items)) {
        const tag = tagOf(o, prop);
        if (tag === undefined || list.some((v: Json) => v?.[prop] === tag)) continue;
        let memo: unknown[] | undefined;
        out.push({
          path: `${at}#${String(tag)}`,
          candidates: () => (memo ??= candidatesFor(o, prop, inner)),
          apply: (item) => list.push(structuredClone(item)),
          undo: () => list.pop(),
        });
      }
    }
    return out;
  }
  if (js.properties && typeof value === 'object' && !Array.isArray(value)) {
    const target = value as Json;
    if (at === '' && Array.isArray(target.ledgers)) {
      // `ledgers` is not a property of EnergyAccount, but the account-level statement fields it holds
      // are (deprecated, `x-use-instead: ledgers.*`): a ledger's lists are read with their schemas.
      for (const ledger of target.ledgers as Json[]) {
        for (const k of ['current_statement_transactions', 'historical_statement_transactions']) {
          if (Array.isArray(ledger?.[k])) gaps(ledger[k], js.properties[k], `ledgers.${k}`, out, inner);
        }
      }
    }
    for (const [k, v] of Object.entries<Json>(js.properties)) {
      const path = at === '' ? k : `${at}.${k}`;
      if (k in target) gaps(target[k], v, path, out, inner);
      else {
        let memo: unknown[] | undefined;
        out.push({
          path,
          candidates: () => (memo ??= candidatesFor(v, k, inner)),
          apply: (added) => void (target[k] = structuredClone(added)),
          undo: () => void delete target[k],
        });
      }
    }
  }
  return out;
}

/**
 * Adds, one index-free path at a time, every property (and list option) the contract declares that
 * `base` lacks, keeping an addition only while `isValid` still holds (the client's own validation,
 * rules included): a payload as full as the rules allow next to `base`. `skip`: paths not to try.
 * `base` is not changed.
 */
export function filledWhileValid(base: unknown, component: string, isValid: (payload: Json) => boolean, skip: ReadonlySet<string> = new Set()): Json {
  const payload = structuredClone(base) as Json;
  const root = { $ref: `#/components/schemas/${component}` };
  const refused = new Set<string>(skip);
  for (;;) {
    const open = gaps(payload, root, '', []).filter((g) => !refused.has(g.path));
    if (open.length === 0) return payload;
    const path = open[0].path;
    const batch = open.filter((g) => g.path === path);
    // One generic path may stand for different schemas (an electricity and a gas agreement's
    // bespoke rates): each gap tries its own candidates, the last one repeated when it has fewer.
    const tries = Math.max(...batch.map((g) => g.candidates().length));
    let kept = false;
    for (let i = 0; i < tries && !kept; i++) {
      for (const g of batch) {
        const c = g.candidates();
        g.apply(c[Math.min(i, c.length - 1)]);
      }
      kept = isValid(payload);
      if (!kept) for (const g of [...batch].reverse()) g.undo();
    }
    if (!kept) refused.add(path);
  }
}
