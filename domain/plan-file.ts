import { z } from 'zod';
import { STOP_LINE_DEFAULTS } from './stop-line-defaults';
import { isValidZone, localToInstant } from './plan-windows';
import { afterProblems } from './plan-waves';

/**
 * The plan file (docs/plan.md): a cutover programme of waves, each with its cohort, windows, daily
 * cap and gates. Parsed with zod; every rule names its field, so a bad file is refused with the
 * field and the rule. Paths stay as written: the CLI resolves them against the file's folder.
 */

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const absoluteWindowSchema = z
  .object({
    start: z.string().min(1, 'a local date-time, e.g. 2026-10-24T22:00'),
    end: z.string().min(1, 'a local date-time, e.g. 2026-10-25T05:00'),
  })
  .strict();

const nightlyWindowSchema = z
  .object({
    from: z.string().regex(HHMM, 'a local time HH:MM, e.g. 22:00'),
    to: z.string().regex(HHMM, 'a local time HH:MM, e.g. 05:00'),
    first: z.string().regex(DATE, 'a local date YYYY-MM-DD (the first night the window opens)'),
    last: z.string().regex(DATE, 'a local date YYYY-MM-DD (the last night the window opens)'),
  })
  .strict();

const windowSchema = z.union([absoluteWindowSchema, nightlyWindowSchema], {
  error: 'a window is {start, end} (local date-times) or {from, to, first, last} (nightly)',
});

const rate = (what: string) => z.number().min(0, `${what}: a share between 0 and 1`).max(1, `${what}: a share between 0 and 1`);
/** `true`: anyone named with --by may sign; a string: who must (shown as what the gate waits on). */
const signOffSchema = z.union([z.boolean(), z.string().min(1)]).default(false);

const waveSchema = z
  .object({
    name: z.string().regex(NAME, "letters, digits, '.', '_' and '-', starting with a letter or digit"),
    supplier: z.string().min(1, 'the import supplier code'),
    /** Absent: the wave waits for the one before it in the file; `[]`: for none. */
    after: z.array(z.string()).optional(),
    payloads: z.string().min(1).optional(),
    payloads_table: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$/, 'schema.table')
      .optional(),
    source: z.string().min(1).optional(),
    accounts: z.string().min(1).optional(),
    limit: z.number().int().positive().optional(),
    documents: z.string().min(1).optional(),
    concurrency: z.number().int().min(1).max(500).default(50),
    windows: z.array(windowSchema).min(1, 'at least one window'),
    daily_cap: z.number().int().positive('accounts started per local day: a positive integer').optional(),
    dry_run_first: z.boolean().default(false),
    /** The wave is an on-market switch (the tenant's flag, as `run start --send-registration-flows`). */
    send_registration_flows: z.boolean().default(false),
    gates: z
      .object({
        entry: z
          .object({ min_dry_run_pass_rate: rate('min_dry_run_pass_rate').optional(), sign_off: signOffSchema })
          .strict()
          .default({ sign_off: false }),
        stop_line: z
          .object({
            max_failure_rate: rate('max_failure_rate').default(STOP_LINE_DEFAULTS.maxFailureRate),
            over_last: z.number().int().min(1).max(1000).default(STOP_LINE_DEFAULTS.overLast),
            max_same_code: z.number().int().min(1).default(STOP_LINE_DEFAULTS.maxSameCode),
          })
          .strict()
          .default({
            max_failure_rate: STOP_LINE_DEFAULTS.maxFailureRate,
            over_last: STOP_LINE_DEFAULTS.overLast,
            max_same_code: STOP_LINE_DEFAULTS.maxSameCode,
          }),
        exit: z
          .object({
            min_reconciled_rate: rate('min_reconciled_rate').optional(),
            // The supplier census (domain/census.ts) taken at the gate: accounts the tenant holds that no run
            // created, and completed ones it no longer holds, each at most this many.
            max_platform_only: z.number().int().min(0).optional(),
            max_ledger_only: z.number().int().min(0).optional(),
            // The switch (send_registration_flows): the share of the wave's meter points on supply, and how many
            // days a point may be followed without a final state (domain/plan-gates.ts supplyGate).
            min_on_supply_rate: rate('min_on_supply_rate').optional(),
            max_days_to_supply: z.number().positive('days a meter point may wait for a final state: a positive number').optional(),
            sign_off: signOffSchema,
          })
          .strict()
          .default({ sign_off: false }),
      })
      .strict()
      .default({
        entry: { sign_off: false },
        stop_line: {
          max_failure_rate: STOP_LINE_DEFAULTS.maxFailureRate,
          over_last: STOP_LINE_DEFAULTS.overLast,
          max_same_code: STOP_LINE_DEFAULTS.maxSameCode,
        },
        exit: { sign_off: false },
      }),
  })
  .strict()
  .superRefine((w, ctx) => {
    const sources = (['payloads', 'payloads_table', 'source'] as const).filter((k) => w[k] !== undefined);
    if (sources.length > 1)
      ctx.addIssue({ code: 'custom', path: [sources[1]], message: `one cohort source a wave: ${sources.join(' and ')} cannot be used together` });
    if (sources.length === 0 && w.accounts === undefined)
      ctx.addIssue({ code: 'custom', path: ['payloads'], message: 'a wave needs its cohort: payloads, payloads_table, or source and accounts' });
    if (w.documents !== undefined && w.payloads === undefined && w.payloads_table === undefined)
      ctx.addIssue({ code: 'custom', path: ['documents'], message: 'documents goes with payloads or payloads_table' });
    if (w.accounts !== undefined && w.limit !== undefined)
      ctx.addIssue({ code: 'custom', path: ['limit'], message: 'limit and accounts cannot be used together' });
    if (w.gates.entry.min_dry_run_pass_rate !== undefined && !w.dry_run_first)
      ctx.addIssue({
        code: 'custom',
        path: ['gates', 'entry', 'min_dry_run_pass_rate'],
        message: 'needs dry_run_first: true (the pass rate is the trial load’s)',
      });
    for (const k of ['min_on_supply_rate', 'max_days_to_supply'] as const)
      if (w.gates.exit[k] !== undefined && !w.send_registration_flows)
        ctx.addIssue({
          code: 'custom',
          path: ['gates', 'exit', k],
          message: 'needs send_registration_flows: true (meter points are followed only on a switch)',
        });
  });

export const planFileSchema = z
  .object({
    name: z.string().regex(NAME, "letters, digits, '.', '_' and '-', starting with a letter or digit"),
    timezone: z
      .string()
      .default('Europe/London')
      .refine((tz) => isValidZone(tz), 'an IANA timezone, e.g. Europe/London'),
    waves: z.array(waveSchema).min(1, 'at least one wave'),
  })
  .strict()
  .superRefine((p, ctx) => {
    // Local times mean nothing without a zone: the timezone's own issue is enough.
    const zoned = isValidZone(p.timezone);
    const seen = new Set<string>();
    p.waves.forEach((w, i) => {
      if (seen.has(w.name)) ctx.addIssue({ code: 'custom', path: ['waves', i, 'name'], message: `wave names are unique: ${w.name} is used twice` });
      seen.add(w.name);
      if (zoned)
        w.windows.forEach((win, j) => {
          const path = ['waves', i, 'windows', j];
          if ('start' in win) {
            const s = localToInstant(win.start, p.timezone);
            const e = localToInstant(win.end, p.timezone);
            if (Number.isNaN(s)) ctx.addIssue({ code: 'custom', path: [...path, 'start'], message: 'a local date-time, e.g. 2026-10-24T22:00' });
            if (Number.isNaN(e)) ctx.addIssue({ code: 'custom', path: [...path, 'end'], message: 'a local date-time, e.g. 2026-10-25T05:00' });
            if (!Number.isNaN(s) && !Number.isNaN(e) && e <= s) ctx.addIssue({ code: 'custom', path: [...path, 'end'], message: 'must be after start' });
          } else {
            for (const k of ['first', 'last'] as const)
              if (Number.isNaN(localToInstant(win[k], p.timezone))) ctx.addIssue({ code: 'custom', path: [...path, k], message: 'not a calendar date' });
            if (win.last < win.first) ctx.addIssue({ code: 'custom', path: [...path, 'last'], message: 'must not be before first' });
            if (win.from === win.to) ctx.addIssue({ code: 'custom', path: [...path, 'to'], message: 'must differ from from (an empty window)' });
          }
        });
    });
    for (const p2 of afterProblems(p.waves)) ctx.addIssue({ code: 'custom', path: p2.path, message: p2.message });
  });

export type PlanFile = z.infer<typeof planFileSchema>;
export type PlanWave = PlanFile['waves'][number];

/** `waves[1].windows[0].end: must be after start`: one line per problem. */
export function planProblems(error: z.ZodError): string[] {
  return error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
}

function formatPath(path: PropertyKey[]): string {
  if (path.length === 0) return 'plan';
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i === 0 ? '' : '.'}${String(k)}`)).join('');
}
