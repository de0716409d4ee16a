// The options of `plan …` (cli/commands/plan.ts declares them, cli/actions/plan.ts parses them).
import { jsonOption, optionTable, type OptionSpec } from '../option-table';

export const VALIDATE_PLAN_OPTIONS = optionTable({ json: jsonOption('print the parsed plan with every window as instants') });

export const START_PLAN_OPTIONS = optionTable({
  planId: {
    flags: '--plan-id <id>',
    description: 'plan id (default: NAME-YYYYMMDD-HHMMSS-xxxx); wave W runs as run <id>.W',
    schema: (k) => k.runId.optional(),
  },
  pollSeconds: {
    flags: '--poll-seconds <n>',
    description: "how often the plan looks at its wave's run between window events",
    default: '30',
    schema: (k) => k.positiveInt,
  },
  json: jsonOption('print {planId, workflowId, uiUrl, runs}'),
});

export const PLAN_STATUS_OPTIONS = optionTable({ json: jsonOption() });

const wave = { flags: '--wave <name>', description: 'the wave', required: true, schema: (k) => k.text("a wave's name") } satisfies OptionSpec;

export const APPROVE_PLAN_OPTIONS = optionTable({
  wave,
  gate: {
    flags: '--gate <gate>',
    description: 'entry or exit',
    required: true,
    schema: (k) => k.z.enum(['entry', 'exit'], { error: (i) => `entry or exit, got ${JSON.stringify(i.input)}` }),
  },
  by: { flags: '--by <name>', description: 'who signs off (kept in the ledger with the time)', required: true, schema: (k) => k.text('who signs off') },
  note: { flags: '--note <text>', description: 'why, kept with the sign-off', schema: (k) => k.z.string().optional() },
  json: jsonOption('print the wave as plan status --json does'),
});

/** `plan resume|skip|trial` name the wave; `plan cancel` ends the whole plan. */
export const WAVE_CONTROL_OPTIONS = optionTable({ json: jsonOption('print the plan status as JSON'), wave });
export const CANCEL_PLAN_OPTIONS = optionTable({
  json: jsonOption('print the plan status as JSON'),
  wave: { flags: '--wave <name>', description: 'ignored: cancel ends the whole plan', schema: (k) => k.z.string().optional() },
});
