import { Command, Option } from 'commander';
import { COMPONENTS } from '../../db/components';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const dbActions = (): typeof import('../actions/db') => require('../actions/db');

type DbComponent = keyof typeof COMPONENTS;

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
    .action(async (opts: { component: DbComponent[]; json?: boolean }) => dbActions().migrateAction(opts));
  return db;
}
