// A command's options as commander hands them over (strings, flags, lists), parsed by the command's
// zod schema when its action runs (zod is not loaded to declare the commands: cli/program.ts).
import { z } from 'zod';
import { usageError } from './errors';
import { RUN_ID_PATTERN } from './run-id';

/** `olderThanDays` → `--older-than-days`: the option as the operator typed it. */
export const flagOf = (key: PropertyKey): string => `--${String(key).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** A command's options through its schema; what fails is a usage error (exit 2) naming each option and its rule. */
export function parseOptions<S extends z.ZodType>(schema: S, opts: unknown): z.output<S> {
  const r = schema.safeParse(opts);
  if (r.success) return r.data;
  throw usageError('invalid_option', r.error.issues.map((i) => `${i.path.length ? flagOf(i.path[0]) : 'options'}: ${i.message}`).join('; '));
}

/** A whole number above zero, as typed (`--limit 20`) or as a default. */
export const positiveIntOption = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const n = Number(v);
  if (String(v).trim() === '' || !Number.isInteger(n) || n <= 0) {
    ctx.addIssue({ code: 'custom', message: `must be a positive integer, got ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return n;
});

/** A flag commander sets to true, or leaves out. */
export const flagOption = z.boolean().optional();

/** A number as typed, checked by `ok`; the rule and what was typed go in the message. */
const numberOption = (ok: (n: number) => boolean, rule: string, read: (v: string) => number = Number) =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    const n = typeof v === 'number' ? v : read(v.trim());
    if (String(v).trim() === '' || !Number.isFinite(n) || !ok(n)) {
      ctx.addIssue({ code: 'custom', message: `${rule}, got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    return n;
  });

/** A share: `0.5` or `50%`. */
export const shareOption = numberOption(
  (n) => n >= 0 && n <= 1,
  'must be a share between 0 and 1 or a percentage',
  (v) => (v.endsWith('%') ? (v.length > 1 ? Number(v.slice(0, -1)) / 100 : NaN) : Number(v)),
);

/** A fairness weight (Temporal's fairnessWeight: 0.001 to 1000). */
export const weightOption = numberOption((n) => n >= 0.001 && n <= 1000, 'must be a number from 0.001 to 1000');

/** A date-time the platform and Temporal read back: ISO 8601. */
export const dateTimeOption = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), { error: (i) => `must be an ISO 8601 date-time, got ${JSON.stringify(i.input)}` });

/** A run or plan id: it ends up in workflow ids, search attributes and file names (cli/run-id.ts). */
export const runIdOption = z
  .string()
  .regex(RUN_ID_PATTERN, { error: (i) => `letters, digits, '.', '_' and '-' only (at most 100), got ${JSON.stringify(i.input)}` });

/** What an option's rule is built from when its action runs (cli/option-table.ts): zod and the rules above. */
export const OPTION_KIT = {
  z,
  flag: flagOption,
  positiveInt: positiveIntOption,
  share: shareOption,
  weight: weightOption,
  dateTime: dateTimeOption,
  runId: runIdOption,
  /** A text that may not be empty; `rule` says what it is (`a folder`). */
  text: (rule: string) => z.string().min(1, rule),
};
export type OptionKit = typeof OPTION_KIT;

/** A command's options schema, from its option table (cli/option-table.ts): each option's rule, under its name. */
export function optionsSchema<T extends Record<string, { schema: (k: OptionKit) => z.ZodType }>>(
  table: T,
): z.ZodObject<{ [K in keyof T]: ReturnType<T[K]['schema']> }> {
  const shape = Object.fromEntries(Object.entries(table).map(([key, option]) => [key, option.schema(OPTION_KIT)]));
  return z.object(shape as { [K in keyof T]: ReturnType<T[K]['schema']> });
}
