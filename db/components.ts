// Apart from db/migrate.ts so the CLI's `db migrate --component` choices (cli/commands/db.ts) need no node-pg-migrate.
/** Every component's migrations, in dependency order. */
export const COMPONENTS = {
  ledger: { dir: 'db/migrations', table: 'pgmigrations', schema: 'migrate' },
  legacy: { dir: 'source/migrations', table: 'pgmigrations', schema: 'legacy' },
  sandbox: { dir: 'sandbox/migrations', table: 'pgmigrations', schema: 'sandbox' },
} as const;
