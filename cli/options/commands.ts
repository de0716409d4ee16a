// The options of the smaller commands (validate, supplier, platform, workers, config, db), each stated once.
import { COMPONENTS } from '../../db/components';
import type { CountryCode } from '../../schemas/formats';
import { jsonOption, optionTable } from '../option-table';

/** Commands whose only option is `--json`, with what it prints. */
export const jsonOnly = (description?: string) => optionTable({ json: jsonOption(description) });

export const VALIDATE_OPTIONS = optionTable({
  json: jsonOption('print {records, failed, errors:[…]} as JSON'),
  region: {
    flags: '--region <cc>',
    description: 'default phone region for numbers without +',
    default: 'GB',
    schema: (k) =>
      k.z
        .string()
        .regex(/^[A-Za-z]{2}$/, 'expected a two-letter country code')
        .transform((r) => r.toUpperCase() as CountryCode),
  },
  supplier: {
    flags: '--supplier <code>',
    description: 'the import supplier the payloads must name (as run start --supplier)',
    schema: (k) => k.z.string().optional(),
  },
  sendRegistrationFlows: {
    flags: '--send-registration-flows',
    description: 'the payloads are for a switch (as run start --send-registration-flows): agents to appoint are allowed',
    schema: (k) => k.flag,
  },
});

export const SET_SUPPLIER_STATUS_OPTIONS = optionTable({
  reason: { flags: '--reason <text>', description: 'why (shown by supplier show)', schema: (k) => k.z.string().optional() },
  sandbox: { flags: '--sandbox', description: 'rehearsal: also set it on the platform sandbox of the running dev stack', schema: (k) => k.flag },
  json: jsonOption(),
});

type Component = keyof typeof COMPONENTS;
const components = Object.keys(COMPONENTS) as [Component, ...Component[]];

export const MIGRATE_OPTIONS = optionTable({
  component: {
    flags: '--component <name...>',
    description: 'what to migrate: the ledger, and the legacy source tables when the team loads its rows into this database',
    choices: components,
    default: ['ledger'],
    schema: (k) => k.z.array(k.z.enum(components, { error: `one of ${components.join(', ')}` })),
  },
  json: jsonOption(),
});

export const PURGE_OPTIONS = optionTable({
  run: {
    flags: '--run <runId...>',
    description: 'purge these runs (finished: completed, cancelled or failed)',
    schema: (k) => k.z.array(k.z.string()).optional(),
  },
  olderThanDays: {
    flags: '--older-than-days <days>',
    description: 'purge every finished run that finished more than this many days ago (default: LEDGER_RETENTION_DAYS)',
    schema: (k) => k.positiveInt.optional(),
  },
  dryRun: { flags: '--dry-run', description: 'list what would be purged, change nothing', schema: (k) => k.flag },
  json: jsonOption(),
});
