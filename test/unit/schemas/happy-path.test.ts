import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { accountSchemasFor } from '../../../schemas/account';
import { exampleScheduleRequest, realisticAccount } from '../../../schemas/fixtures';
import { HappyPathUnsupported, happyPathOf, happyPathOrZod } from '../../../schemas/happy-path';
import { validateAccount } from '../../../schemas/validate';
import { exampleOf } from './spec';

/**
 * The happy path may only say yes where zod says yes with an output equal to the input: then the
 * payload itself is the parse result. These tests hold it to zod on valid payloads and on thousands
 * of broken ones, built by breaking every field of two rich payloads in turn.
 */

type Json = unknown;
type Path = Array<string | number>;

/** What zod answers, in the happy path's terms: a success whose output is the input itself. */
function zodVouches(schema: z.ZodType, value: unknown): boolean {
  const r = schema.safeParse(value);
  return r.success && isDeepStrictEqual(r.data, value);
}

function paths(value: Json, at: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push([...at, i], ...paths(v, [...at, i])));
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) out.push([...at, k], ...paths(v, [...at, k]));
  return out;
}

function objectPaths(value: Json, at: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...objectPaths(v, [...at, i])));
  else if (typeof value === 'object' && value !== null) {
    out.push(at);
    for (const [k, v] of Object.entries(value)) out.push(...objectPaths(v, [...at, k]));
  }
  return out;
}

function parentOf(root: Json, path: Path): Record<string | number, unknown> {
  let cur = root as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) cur = cur[step] as Record<string | number, unknown>;
  return cur;
}

/** `root` with the value at `path` replaced (or removed when `remove`), as a fresh copy. */
function withValueAt(root: Json, path: Path, value: unknown, remove = false): Json {
  const copy = structuredClone(root);
  const parent = parentOf(copy, path);
  const key = path[path.length - 1];
  if (remove && Array.isArray(parent)) parent.splice(key as number, 1);
  else if (remove) delete parent[key];
  else parent[key] = value;
  return copy;
}

const BREAKERS: Array<(v: unknown) => unknown> = [
  () => null,
  () => '',
  () => ' ',
  () => 'x',
  () => 0,
  () => 1.5,
  () => -1,
  () => 2 ** 60,
  () => true,
  () => [],
  () => ({}),
  (v) => (typeof v === 'string' ? `${v}Z` : v),
  (v) => (typeof v === 'string' ? v.slice(1) : v),
  (v) => (typeof v === 'string' ? v.toLowerCase() : v),
  (v) => (typeof v === 'string' ? '2019-02-30' : v),
  (v) => (typeof v === 'string' ? '2019-02-28T10:00:00+01:00' : v),
  (v) => (typeof v === 'string' ? 'y'.repeat(600) : v),
  (v) => (Array.isArray(v) ? [...v, ...v] : v),
  (v) => (Array.isArray(v) && v.length > 0 ? [v[0], 'x'] : v),
];

/** Every field removed, and replaced by each breaker; an unknown key added to every object. */
function mutationsOf(seed: Json): Json[] {
  const out: Json[] = [];
  for (const p of paths(seed)) {
    out.push(withValueAt(seed, p, undefined, true));
    const current = parentOf(seed, p)[p[p.length - 1]];
    for (const breaker of BREAKERS) out.push(withValueAt(seed, p, breaker(current)));
  }
  for (const p of objectPaths(seed)) out.push(withValueAt(seed, [...p, 'not_in_spec'], 1));
  return out;
}

const gb = accountSchemasFor('GB');
const specExamples = (): Json[] => [exampleOf('/v2/data-import/accounts/'), exampleOf('/v2/data-import/accounts/validate/')];

describe('happy path: compiled from the account schemas', () => {
  it('compiles every schema a payload is validated against, for more than one region', () => {
    for (const region of ['GB', 'IE', 'US'] as const) {
      const s = accountSchemasFor(region);
      expect(typeof happyPathOf(s.energyAccountSchema)).toBe('function');
      expect(typeof happyPathOf(s.scheduleAccountCreationSchema)).toBe('function');
    }
  });

  it('refuses, with its code, schemas that could change the value', () => {
    for (const schema of [z.string().trim(), z.string().default('x'), z.string().transform((s) => s.length), z.object({ a: z.string() }).catchall(z.number()), z.coerce.number()]) {
      expect(() => happyPathOf(schema)).toThrow(HappyPathUnsupported);
      // Validation leaves such a schema to zod: it vouches for nothing, and still refuses to compile.
      expect(happyPathOrZod(schema)('x')).toBe(false);
      expect(() => happyPathOf(schema)).toThrow(HappyPathUnsupported);
    }
  });

  it('compiles descriptions and metadata, which neither change nor judge a value', () => {
    const check = happyPathOf(z.object({ a: z.string().max(3).describe('three at most').meta({ x: 1 }) }));
    expect(check({ a: 'abc' })).toBe(true);
    expect(check({ a: 'abcd' })).toBe(false);
  });

  it('runs superRefine checks, which carry no function of their own to call', () => {
    const schema = z.object({ a: z.string() }).superRefine((v, ctx) => {
      if (v.a === 'no') ctx.addIssue({ code: 'custom', message: 'no' });
    });
    expect(happyPathOf(schema)({ a: 'yes' })).toBe(true);
    expect(happyPathOf(schema)({ a: 'no' })).toBe(false);
    expect(schema.safeParse({ a: 'no' }).success).toBe(false);
  });
});

describe('happy path: agrees with zod', () => {
  it('vouches for the valid payloads: the realistic fixture, the spec examples, a schedule request', () => {
    const payloads = [realisticAccount(), ...specExamples()];
    for (const p of payloads) {
      expect(zodVouches(gb.energyAccountSchema, p)).toBe(true);
      expect(happyPathOf(gb.energyAccountSchema)(p)).toBe(true);
    }
    const request = exampleScheduleRequest();
    expect(happyPathOf(gb.scheduleAccountCreationSchema)(request)).toBe(zodVouches(gb.scheduleAccountCreationSchema, request));
    expect(happyPathOf(gb.scheduleAccountCreationSchema)(request)).toBe(true);
  });

  it('answers as zod does for every field of two rich payloads removed or broken, and every object given an unknown key', () => {
    const check = happyPathOf(gb.energyAccountSchema);
    let vouched = 0;
    let refused = 0;
    for (const seed of [realisticAccount(), exampleOf('/v2/data-import/accounts/')]) {
      for (const m of mutationsOf(seed)) {
        const zod = zodVouches(gb.energyAccountSchema, m);
        if (check(m) !== zod) throw new Error(`happy path says ${!zod}, zod says ${zod}, for ${JSON.stringify(m).slice(0, 2000)}`);
        if (zod) vouched++;
        else refused++;
      }
    }
    // Both answers occur many times: the comparison is not one-sided.
    expect(vouched).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(1000);
  });

  it('answers as zod does for random values put at random places (property)', () => {
    const check = happyPathOf(gb.energyAccountSchema);
    const seed = realisticAccount();
    const all = paths(seed);
    fc.assert(
      fc.property(fc.nat({ max: all.length - 1 }), fc.jsonValue({ maxDepth: 2 }), (i, value) => {
        const m = withValueAt(seed, all[i], value);
        expect(check(m)).toBe(zodVouches(gb.energyAccountSchema, m));
      }),
      { numRuns: 500, seed: 16 },
    );
  });

  it('leaves a payload holding an explicit undefined, or an unknown key, to zod (which strips the key)', () => {
    const check = happyPathOf(gb.energyAccountSchema);
    const withUndefined = realisticAccount({ billing_name: undefined });
    expect(check(withUndefined)).toBe(false);
    const extra = { ...realisticAccount(), not_in_spec: 1 };
    expect(check(extra)).toBe(false);
    const r = validateAccount(extra);
    expect(r.ok && 'not_in_spec' in r.value).toBe(false);
  });
});
