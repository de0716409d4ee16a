import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActivityContext } from '../../../activities/deps';
import { realisticAccount } from '../../../schemas/fixtures';
import { PayloadFileSource } from '../../../source/payload-file';
import { validatePayloadFile } from '../../../source/payload-validate';

/**
 * A `.jsonl.gz` payload file is decompressed into a temporary folder (it must be read by offset);
 * the copy holds every payload in clear, so it must not outlive the source that made it.
 */

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'payload-gz-'));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const accounts = ['A-1', 'B-2'].map((n) => realisticAccount({ external_account_number: n }));
const text = accounts.map((a) => JSON.stringify(a)).join('\n');
const gz = path.join(home, 'team.jsonl.gz');
fs.writeFileSync(gz, gzipSync(text));

// os.tmpdir() reads TMPDIR on every call: each test gets an empty temporary folder of its own.
let tmp: string;
const savedTmpdir = process.env.TMPDIR;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(home, 'tmp-'));
  process.env.TMPDIR = tmp;
});
afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
});

/** Every payload copy folder or file under the temporary folder (tsx keeps a cache of its own there). */
const leftovers = () =>
  fs
    .readdirSync(tmp, { recursive: true })
    .map(String)
    .filter((f) => f.startsWith('kraken-migrate-payloads'));

describe('the decompressed copy of a .jsonl.gz payload file', () => {
  it('exists while the source is open (the payloads in clear, private to the user) and is gone once it is closed', async () => {
    const source = new PayloadFileSource(gz);
    expect(await source.listAccountNumbers({ limit: 10 })).toEqual(['A-1', 'B-2']);
    const copies = leftovers().filter((f) => f.endsWith('.jsonl'));
    expect(copies).toHaveLength(1);
    const copy = path.join(tmp, copies[0]);
    expect(fs.readFileSync(copy, 'utf8')).toBe(text);
    expect(fs.statSync(copy).mode & 0o077).toBe(0);
    expect(fs.statSync(path.dirname(copy)).mode & 0o077).toBe(0);
    expect(await source.getPayload('B-2')).toMatchObject({ ok: true, payload: accounts[1] });
    await source.close();
    expect(leftovers()).toEqual([]);
  });

  it('is gone after `kraken-migrate validate` has read the file', async () => {
    const seen: string[] = [];
    for await (const r of validatePayloadFile(gz)) {
      seen.push(r.externalAccountNumber ?? '');
      expect(leftovers().length).toBeGreaterThan(0); // read from the copy while validating
    }
    expect(seen).toEqual(['A-1', 'B-2']);
    expect(leftovers()).toEqual([]);
  });

  it("is gone when a worker's activities close their sources (worker shutdown)", async () => {
    const ctx = createActivityContext({ config: {}, mapping: {} } as never);
    const source = ctx.payloadsFor({ kind: 'payloads', path: gz });
    expect(await source.getPayload('A-1')).toMatchObject({ ok: true });
    expect(leftovers().length).toBeGreaterThan(0);
    await ctx.closeSources();
    expect(leftovers()).toEqual([]);
  });

  it('is gone when the process exits without closing the source', () => {
    const script = `
      import { PayloadFileSource } from ${JSON.stringify(path.resolve(__dirname, '../../../source/payload-file.ts'))};
      const s = new PayloadFileSource(${JSON.stringify(gz)});
      const keys = await s.listAccountNumbers({ limit: 10 });
      console.log(JSON.stringify(keys));
      process.exit(0);
    `;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, TMPDIR: tmp },
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual(['A-1', 'B-2']); // the copy was made (the index was read from it)
    expect(leftovers()).toEqual([]);
  });

  it("a copy left by a process killed outright (SIGKILL: no exit hook runs) is removed by the next source that decompresses; a live process's copy is not", async () => {
    const script = `
      import { PayloadFileSource } from ${JSON.stringify(path.resolve(__dirname, '../../../source/payload-file.ts'))};
      const s = new PayloadFileSource(${JSON.stringify(gz)});
      await s.listAccountNumbers({ limit: 10 });
      console.log('indexed');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => child.stdout.on('data', (d) => String(d).includes('indexed') && resolve()));
    // While it lives, its copy is its own: another source leaves it alone.
    const meanwhile = new PayloadFileSource(gz);
    await meanwhile.listAccountNumbers({ limit: 10 });
    expect(leftovers().filter((f) => !f.includes(path.sep))).toHaveLength(2);
    await meanwhile.close();
    const gone = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await gone;
    const orphaned = leftovers().filter((f) => !f.includes(path.sep));
    expect(orphaned).toEqual([expect.stringMatching(new RegExp(`^kraken-migrate-payloads-${child.pid}-`))]);
    const source = new PayloadFileSource(gz);
    await source.listAccountNumbers({ limit: 10 });
    const now = leftovers().filter((f) => !f.includes(path.sep));
    expect(now).toHaveLength(1); // this source's own copy, the orphan gone
    expect(now[0]).toMatch(new RegExp(`^kraken-migrate-payloads-${process.pid}-`));
    await source.close();
    expect(leftovers()).toEqual([]);
  });
});
