import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { actualDataDir, reachableBy, removeOrphanedData, runtimeLayout, startPostgres } from '../../stack/postgres';
import { freePort } from '../../stack/child-process';

const isRoot = process.getuid?.() === 0;
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-layout-')); // mode 700, as root's home is
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const nobody = () => ({ uid: Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' })), gid: 65534 });

describe('embedded Postgres from any checkout location', () => {
  it('knows a private directory is out of reach for another user, and an open one is not', () => {
    const open = path.join(base, 'open');
    fs.mkdirSync(open, { mode: 0o755 });
    expect(reachableBy(nobody(), path.join(base, 'x', 'y'))).toBe(false);
    expect(reachableBy(nobody(), os.tmpdir())).toBe(true);
    expect(reachableBy({ uid: process.getuid!(), gid: process.getgid!() }, path.join(base, 'x'))).toBe(true);
  });

  it('moves binaries and data out of a private checkout, keeps them across starts, and forgets them with the data dir', () => {
    const shared = path.join(base, 'shared-root');
    fs.chmodSync(base, 0o755); // the shared root itself must be reachable
    try {
      const privateDir = path.join(base, 'private');
      fs.mkdirSync(privateDir, { mode: 0o700 });
      const dataDir = path.join(privateDir, '.data', 'postgres');
      const first = runtimeLayout(dataDir, nobody(), shared);
      expect(first.relocated).toBe(true);
      expect(first.dataDir.startsWith(shared)).toBe(true);
      expect(fs.existsSync(path.join(first.binDir, 'postgres'))).toBe(true);
      expect(fs.readFileSync(path.join(dataDir, 'RELOCATED'), 'utf8').trim()).toBe(first.dataDir);
      fs.writeFileSync(path.join(first.dataDir, 'PG_VERSION'), '17\n');

      expect(runtimeLayout(dataDir, nobody(), shared).dataDir).toBe(first.dataDir);
      expect(fs.existsSync(path.join(first.dataDir, 'PG_VERSION'))).toBe(true);

      fs.rmSync(dataDir, { recursive: true }); // e.g. the demo's fresh start
      runtimeLayout(dataDir, nobody(), shared);
      expect(fs.existsSync(path.join(first.dataDir, 'PG_VERSION'))).toBe(false);
    } finally {
      fs.chmodSync(base, 0o700);
    }
  });

  it('removes relocated data whose checkout data dir is gone, and keeps data that is in use', () => {
    const shared = path.join(base, 'shared-orphans');
    fs.chmodSync(base, 0o755);
    try {
      const privateDir = fs.mkdtempSync(path.join(base, 'clone-'));
      const gone = runtimeLayout(path.join(privateDir, 'a', 'postgres'), nobody(), shared);
      const kept = runtimeLayout(path.join(privateDir, 'b', 'postgres'), nobody(), shared);
      const running = runtimeLayout(path.join(privateDir, 'c', 'postgres'), nobody(), shared);
      expect(actualDataDir(path.join(privateDir, 'b', 'postgres'))).toBe(kept.dataDir);
      // A server still runs on c's data (this process stands in for its postmaster).
      fs.writeFileSync(path.join(running.dataDir, 'postmaster.pid'), `${process.pid}\n`);
      fs.rmSync(path.join(privateDir, 'a'), { recursive: true });
      fs.rmSync(path.join(privateDir, 'c'), { recursive: true });

      expect(removeOrphanedData(shared)).toEqual([gone.dataDir]);
      expect(fs.existsSync(gone.dataDir)).toBe(false);
      expect(fs.existsSync(kept.dataDir)).toBe(true);
      expect(fs.existsSync(running.dataDir)).toBe(true);
      // Any relocating start sweeps: the next checkout's start removes a's data without being asked.
      fs.rmSync(path.join(privateDir, 'b'), { recursive: true });
      runtimeLayout(path.join(privateDir, 'd', 'postgres'), nobody(), shared);
      expect(fs.existsSync(kept.dataDir)).toBe(false);
      expect(fs.readdirSync(shared).filter((n) => n.startsWith('data-') && !n.endsWith('.owner'))).toHaveLength(2);
    } finally {
      fs.chmodSync(base, 0o700);
    }
  });

  it.runIf(isRoot)(
    'as root, starts a real server for a data dir inside a mode-700 directory',
    async () => {
      const privateDir = fs.mkdtempSync(path.join(base, 'clone-'));
      fs.chmodSync(privateDir, 0o700);
      const dataDir = path.join(privateDir, '.data', 'postgres');
      const server = await startPostgres({ dataDir, port: await freePort() });
      try {
        expect(fs.existsSync(path.join(dataDir, 'RELOCATED'))).toBe(true);
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        const r = await client.query<{ user: string }>('select current_user as user');
        await client.end();
        expect(r.rows[0].user).toBe('postgres');
      } finally {
        await server.stop();
        fs.rmSync(actualDataDir(dataDir), { recursive: true, force: true });
        fs.rmSync(`${actualDataDir(dataDir)}.owner`, { force: true });
      }
    },
    120_000,
  );
});
