import { Command } from 'commander';
import { declareOptions } from '../option-table';
import { MIGRATE_OPTIONS, PURGE_OPTIONS } from '../options/commands';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const dbActions = (): typeof import('../actions/db') => require('../actions/db');

export function dbCommand(): Command {
  const db = new Command('db').description('the ledger database');
  declareOptions(db.command('migrate'), MIGRATE_OPTIONS)
    .description('apply the database migrations (idempotent): run once before any worker starts')
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
  declareOptions(db.command('purge'), PURGE_OPTIONS)
    .description("remove finished runs' personal data from the ledger (payloads, error details, differences' values, event deliveries)")
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
