import path from 'node:path';
import pg from 'pg';
import { runner } from 'node-pg-migrate';
import { COMPONENTS } from './components';

/**
 * Applies one component's migrations (SQL files, node-pg-migrate format) with its own
 * migrations table, so the ledger, legacy source, inbox and sandbox evolve independently.
 */
export async function migrate(databaseUrl: string, component: { dir: string; table: string; schema?: string }): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: path.resolve(component.dir),
    migrationsTable: component.table,
    migrationsSchema: component.schema,
    createMigrationsSchema: true,
    schema: component.schema ?? 'public',
    createSchema: true,
    direction: 'up',
    count: Infinity,
    checkOrder: true,
    log: () => {},
    noLock: false,
  });
  return applied.map((m) => m.name);
}

export { COMPONENTS };

export async function migrateAll(databaseUrl: string, root = process.cwd()): Promise<void> {
  for (const c of Object.values(COMPONENTS)) {
    await migrate(databaseUrl, { ...c, dir: path.join(root, c.dir) });
  }
}

/** The least-privilege role the pipeline connects as (db/migrations/1797200000002_app_role.sql). */
export const APP_ROLE = 'kraken_migrate_app';

/** Lets the app role log in with `password` (run as the owner, after the migrations). */
export async function setAppRolePassword(databaseUrl: string, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // ALTER ROLE takes no parameters: the literal is escaped by the driver.
    await client.query(`alter role ${APP_ROLE} with login password ${client.escapeLiteral(password)}`);
  } finally {
    await client.end();
  }
}
