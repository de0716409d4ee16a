import type { z } from 'zod';
import { isObj } from './rule-kit';

/**
 * A happy-path checker compiled from a zod schema: `(value) => boolean`, true only when
 * `schema.safeParse(value)` would succeed with an output deep-equal to `value` itself. Almost every
 * payload of a migration is valid, and zod builds a copy and a result object per field to say so;
 * this says it without allocating. Anything it cannot vouch for answers false, and the caller then
 * runs zod, which stays the one definition of the rules and the only author of error reports:
 * - an object key the schema does not know (a strict object refuses it) or holding `undefined`;
 * - a schema kind or check that could change the value (transforms, defaults, overwrites): those
 *   refuse to compile. Validation then leaves every payload to zod (`happyPathOrZod`), and
 *   test/unit/schemas/happy-path.test.ts, which compiles every account schema, fails loudly.
 * The same test holds its answers to zod's on valid and broken payloads.
 */
export type HappyPath = (value: unknown) => boolean;

type Internals = {
  _zod: {
    def: {
      type: string;
      checks?: CheckInternals[];
      coerce?: boolean;
      shape?: Record<string, Internals>;
      catchall?: Internals;
      innerType?: Internals;
      element?: Internals;
      options?: Internals[];
    };
    values?: Set<unknown>;
    optin?: string;
    optout?: string;
  };
};
type ScratchPayload = { value: unknown; issues: unknown[] };
type CheckInternals = {
  _zod: {
    def: { check: string; fn?: (v: unknown) => unknown; when?: (p: ScratchPayload) => boolean };
    check: (p: ScratchPayload) => unknown;
  };
};

/** Checks that only read the value; anything else (e.g. `overwrite`, which trims or cases) refuses. */
const READ_ONLY_CHECKS = new Set([
  'describe',
  'meta',
  'custom',
  'max_length',
  'min_length',
  'length_equals',
  'string_format',
  'greater_than',
  'less_than',
  'number_format',
  'multiple_of',
]);

export class HappyPathUnsupported extends Error {
  readonly code = 'happy_path_unsupported';
}

function compileCheck(check: CheckInternals, at: string): HappyPath {
  const def = check._zod.def;
  if (!READ_ONLY_CHECKS.has(def.check)) throw new HappyPathUnsupported(`${at}: check "${def.check}" may change the value`);
  if (def.check === 'custom' && def.fn && !def.when) {
    const fn = def.fn;
    // An async refinement answers a Promise: not vouched for here.
    return (v) => {
      const r = fn(v);
      return Boolean(r) && !(r instanceof Promise);
    };
  }
  const d = def as typeof def & { maximum?: number; minimum?: number; format?: string; value?: unknown; inclusive?: boolean };
  // The common kinds inline; their default `when` (a non-nullish value with a length) always holds
  // after the type test.
  if (d.check === 'max_length' && typeof d.maximum === 'number') {
    const max = d.maximum;
    return (v) => (v as string).length <= max;
  }
  if (d.check === 'min_length' && typeof d.minimum === 'number') {
    const min = d.minimum;
    return (v) => (v as string).length >= min;
  }
  if (d.check === 'number_format' && d.format === 'safeint') return (v) => Number.isSafeInteger(v);
  if ((d.check === 'greater_than' || d.check === 'less_than') && typeof d.value === 'number' && !d.when) {
    const bound = d.value;
    const inclusive = d.inclusive === true;
    if (d.check === 'greater_than') return inclusive ? (v) => (v as number) >= bound : (v) => (v as number) > bound;
    return inclusive ? (v) => (v as number) <= bound : (v) => (v as number) < bound;
  }
  // zod's own check on a scratch payload: exact semantics for the rarer kinds.
  const when = def.when;
  return (v) => {
    const p: ScratchPayload = { value: v, issues: [] };
    if (when && !when(p)) return true;
    return check._zod.check(p) === undefined && p.issues.length === 0;
  };
}

function withChecks(base: HappyPath, schema: Internals, at: string): HappyPath {
  const checks = (schema._zod.def.checks ?? []).map((c) => compileCheck(c, at));
  if (checks.length === 0) return base;
  if (checks.length === 1) {
    const [c] = checks;
    return (v) => base(v) && c(v);
  }
  return (v) => {
    if (!base(v)) return false;
    for (const c of checks) if (!c(v)) return false;
    return true;
  };
}

function compileObject(schema: Internals, at: string): HappyPath {
  const def = schema._zod.def;
  // A strict object's catchall is `never`: an unknown key fails zod, and answers false below.
  if (def.catchall && def.catchall._zod.def.type !== 'never') throw new HappyPathUnsupported(`${at}: objects with a catchall are not supported`);
  const shape = def.shape ?? {};
  const fields = new Map<string, HappyPath>();
  const required: string[] = [];
  for (const [k, field] of Object.entries(shape)) {
    fields.set(k, compile(field, at === '' ? k : `${at}.${k}`));
    // zod passes over an absent key only when its schema is optional both ways; any other absent
    // key is zod's to judge.
    if (!(field._zod.optin === 'optional' && field._zod.optout === 'optional')) required.push(k);
  }
  // Only the keys a payload holds are visited: most of the schema's keys are optional and absent.
  return (v) => {
    if (!isObj(v)) return false;
    for (const k in v) {
      const field = fields.get(k);
      const x = v[k];
      // An unknown key is refused (strict objects) and an explicit undefined kept or dropped by
      // rules of its own: zod decides, and reports.
      if (field === undefined || x === undefined || !field(x)) return false;
    }
    for (let i = 0; i < required.length; i++) if (v[required[i]] === undefined) return false;
    return true;
  };
}

function compile(schema: Internals, at: string): HappyPath {
  const def = schema._zod.def;
  if (def.coerce) throw new HappyPathUnsupported(`${at}: coercion changes the value`);
  switch (def.type) {
    case 'string':
      return withChecks((v) => typeof v === 'string', schema, at);
    case 'number':
      return withChecks((v) => typeof v === 'number' && Number.isFinite(v), schema, at);
    case 'boolean':
      return withChecks((v) => typeof v === 'boolean', schema, at);
    case 'unknown':
      return withChecks(() => true, schema, at);
    case 'enum':
    case 'literal': {
      const values = schema._zod.values;
      if (!values) throw new HappyPathUnsupported(`${at}: ${def.type} without values`);
      return withChecks((v) => values.has(v), schema, at);
    }
    case 'optional': {
      const inner = compile(def.innerType as Internals, at);
      return withChecks((v) => v === undefined || inner(v), schema, at);
    }
    case 'nullable': {
      const inner = compile(def.innerType as Internals, at);
      return withChecks((v) => v === null || inner(v), schema, at);
    }
    case 'array': {
      const element = compile(def.element as Internals, `${at}.*`);
      return withChecks((v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      }, schema, at);
    }
    case 'union': {
      // Plain and discriminated alike: a discriminated union's options differ on their
      // discriminator, so at most one can accept a value, the one zod would pick.
      const options = (def.options ?? []).map((o) => compile(o, at));
      return withChecks((v) => {
        for (const o of options) if (o(v)) return true;
        return false;
      }, schema, at);
    }
    case 'object':
      return withChecks(compileObject(schema, at), schema, at);
    default:
      throw new HappyPathUnsupported(`${at || '(root)'}: zod type "${def.type}" is not supported`);
  }
}

const compiled = new WeakMap<object, HappyPath>();

/** The schema's happy-path checker, compiled once per schema; throws HappyPathUnsupported. */
export function happyPathOf(schema: z.ZodType): HappyPath {
  let check = compiled.get(schema);
  if (!check) {
    check = compile(schema as unknown as Internals, '');
    compiled.set(schema, check);
  }
  return check;
}

const vouchesForNothing: HappyPath = () => false;
const unsupported = new WeakSet<object>();

/**
 * For validation: a schema the checker cannot compile leaves every payload to zod (slower, never
 * wrong). The happy-path test compiles every account schema, so such a schema fails there, loudly.
 */
export function happyPathOrZod(schema: z.ZodType): HappyPath {
  if (unsupported.has(schema)) return vouchesForNothing;
  try {
    return happyPathOf(schema);
  } catch (e) {
    if (!(e instanceof HappyPathUnsupported)) throw e;
    unsupported.add(schema);
    return vouchesForNothing;
  }
}
