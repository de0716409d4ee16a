// Apart from db/migrate.ts so the CLI's `db migrate --component` choices (cli/commands/db.ts) need no node-pg-migrate.
/** The product's migrations, in dependency order (the platform sandbox's own are harness/sandbox/migrations.ts). */
export const COMPONENTS = {
  ledger: { dir: 'db/migrations', table: 'pgmigrations', schema: 'migrate' },
  legacy: { dir: 'source/migrations', table: 'pgmigrations', schema: 'legacy' },
} as const;
