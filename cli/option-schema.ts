// A command's options as commander hands them over (strings, flags, lists), parsed by the command's
// zod schema when its action runs (zod is not loaded to declare the commands: cli/program.ts).
import { z } from 'zod';
import { usageError } from './errors';

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
