import { type Contract, loadContract } from '../contract';
import { energyAccountSchema } from './account';

/**
 * What the contract declares on `EnergyAccount` (and what it nests) that `account.ts` and its `account-*.ts` parts do not model,
 * as index-free dot paths (`supply_addresses.meter_points.agents`): read from the contract itself,
 * so the list cannot drift from it. A payload carrying one is refused with its own code (validate.ts)
 * rather than reported as undocumented: the field is documented, this client cannot pass it on yet.
 */

type Json = Record<string, unknown> & { $ref?: string; allOf?: Json[]; oneOf?: Json[]; anyOf?: Json[]; items?: Json; properties?: Record<string, Json> };
type ZodDef = { type: string; innerType?: ZodNode; element?: ZodNode; shape?: Record<string, ZodNode>; options?: ZodNode[] };
type ZodNode = { _zod: { def: ZodDef } };

/** The object schema under optional / nullable / array wrappers; union options stay a union. */
function unwrap(z: ZodNode | undefined): ZodNode | undefined {
  let node = z;
  for (;;) {
    const d = node?._zod.def;
    if (!d) return undefined;
    if (d.type === 'optional' || d.type === 'nullable') node = d.innerType;
    else if (d.type === 'array') node = d.element;
    else return node;
  }
}

/** The object shapes a zod node can be: one, or each option of a union. */
function shapesOf(z: ZodNode | undefined): Array<Record<string, ZodNode>> {
  const node = unwrap(z);
  const d = node?._zod.def;
  if (d?.type === 'object' && d.shape) return [d.shape];
  if (d?.type === 'union') return (d.options ?? []).flatMap((o) => shapesOf(o));
  return [];
}

export function unmodelledPaths(contract: Contract = loadContract(), root: ZodNode = energyAccountSchema as unknown as ZodNode): string[] {
  const schemas = (contract as unknown as { components: { schemas: Record<string, Json> } }).components.schemas;
  const deref = (s: Json | undefined): Json | undefined => (s?.$ref ? deref(schemas[s.$ref.split('/').pop()!]) : s);
  const out = new Set<string>();

  // `zs`: every zod node that may hold this value (each member of a union): a key counts as modelled
  // when any of them models it.
  const walk = (raw: Json | undefined, zs: ZodNode[], at: string, seen: Set<Json>) => {
    const js = deref(raw);
    if (!js || seen.has(js)) return;
    const inner = new Set(seen).add(js);
    for (const part of [...(js.allOf ?? []), ...(js.oneOf ?? []), ...(js.anyOf ?? [])]) walk(part, zs, at, inner);
    if (js.items) walk(js.items, zs, at, inner);
    if (!js.properties) return;
    const shapes = zs.flatMap((z) => shapesOf(z));
    for (const [k, v] of Object.entries(js.properties)) {
      const path = at === '' ? k : `${at}.${k}`;
      const children = shapes.filter((shape) => k in shape).map((shape) => shape[k]);
      if (children.length === 0) out.add(path);
      else walk(v, children, path, inner);
    }
  };
  walk(schemas.EnergyAccount, [root], '', new Set());
  return [...out].sort();
}

let cached: Set<string> | undefined;
/** Computed once per process, on the first payload that carries a key the schema does not know. */
export function unmodelledPathSet(): Set<string> {
  cached ??= new Set(unmodelledPaths());
  return cached;
}

/** `customers.0.details` → `customers.details`. */
export const genericPath = (attr: string) =>
  attr
    .split('.')
    .filter((s) => !/^\d+$/.test(s))
    .join('.');
