import { Command, Option } from 'commander';
import { COMPONENTS } from '../../db/components';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const dbActions = (): typeof import('../actions/db') => require('../actions/db');

export function dbCommand(): Command {
  const db = new Command('db').description('the ledger database');
  db.command('migrate')
    .description('apply the database migrations (idempotent): run once before any worker starts')
    .addOption(
      new Option('--component <name...>', 'what to migrate: the ledger, and the legacy source tables when the team loads its rows into this database')
        .choices(Object.keys(COMPONENTS))
        .default(['ledger']),
    )
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      `
Needs DATABASE_URL. docker-compose.yml runs it as the one-shot ledger-migrations service; the
embedded stack applies every component itself.

Examples:
  $ kraken-migrate db migrate
  $ kraken-migrate db migrate --component ledger legacy --json`,
    )
    .action(async (opts: unknown) => dbActions().migrateAction(opts));
  db.command('purge')
    .description("remove finished runs' personal data from the ledger (payloads, error details, differences' values, event deliveries)")
    .option('--run <runId...>', 'purge these runs (finished: completed, cancelled or failed)')
    .option('--older-than-days <days>', 'purge every finished run that finished more than this many days ago (default: LEDGER_RETENTION_DAYS)')
    .option('--dry-run', 'list what would be purged, change nothing')
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      `
What stays: the runs, attempts, outcomes, error codes and attrs, reconciliation paths and counts,
so reports and counts still add up. What goes: each account's payload, error details (they may
quote values), reconciliation differences' expected and found values, the events' deliveries,
and carried-over items once completed. A run still running or paused is refused (its workflows
read their payloads). With neither --run nor --older-than-days, LEDGER_RETENTION_DAYS decides; unset,
nothing is purged (exit 2). Purging after the migration team's sign-off is --run on the signed-off runs.

Examples:
  $ kraken-migrate db purge --run run-2026-11-01-a
  $ kraken-migrate db purge --older-than-days 90 --dry-run
  $ LEDGER_RETENTION_DAYS=30 kraken-migrate db purge --json`,
    )
    .action(async (opts: unknown) => dbActions().purgeAction(opts));
  return db;
}
