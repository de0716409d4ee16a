import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActivityContext } from '../../../activities/deps';
import { createPayloadSourcePool } from '../../../activities/payload-sources';
import { ApplicationFailure } from '@temporalio/common';
import { createPayloadSource } from '../../../source/adapter';
import { makers } from '../../../harness/synthetic/hostile-inputs';
import { realisticAccount } from '../../../schemas/fixtures';
import type { PayloadRead, PayloadSource, PayloadSourceSpec } from '../../../source/adapter';

/**
 * A worker keeps a payload file's index (about 100 MB per 200,000 lines) only while someone needs it:
 * unused for the idle time, or every run that read it ended, it closes; a read after that opens it
 * again, and a read in flight is never cut short.
 */

/** A source that records its life and can hold a read until the test lets it finish. */
function fakeSources() {
  const opened: Array<{ spec: PayloadSourceSpec; closed: boolean }> = [];
  let hold: Promise<void> | undefined;
  const open = (spec: PayloadSourceSpec): PayloadSource => {
    const me = { spec, closed: false };
    opened.push(me);
    return {
      async listAccountNumbers() {
        return ['A-1'];
      },
      async getPayload(ext): Promise<PayloadRead> {
        if (hold) await hold;
        if (me.closed) throw new Error('read from a closed source');
        return { ok: true, payload: { ext }, where: `${spec.kind}` };
      },
      async close() {
        me.closed = true;
      },
    };
  };
  return {
    open,
    opened,
    holdReads() {
      let release!: () => void;
      hold = new Promise((r) => (release = r));
      return () => {
        hold = undefined;
        release();
      };
    },
  };
}

const fileA: PayloadSourceSpec = { kind: 'payloads', path: '/data/a.jsonl' };
const fileB: PayloadSourceSpec = { kind: 'payloads', path: '/data/b.jsonl' };

describe('the payload source pool', () => {
  let t = 0;
  const clock = () => t;
  beforeEach(() => {
    t = 1_000_000;
  });

  it('opens a source once for all its reads while it is in use', async () => {
    const f = fakeSources();
    const pool = createPayloadSourcePool(f.open, { idleMs: 60_000, now: clock, sweep: false });
    for (let i = 0; i < 5; i++) {
      expect(await pool.get(fileA, 'run-1').getPayload(`A-${i}`)).toMatchObject({ ok: true, payload: { ext: `A-${i}` } });
      t += 30_000; // each read within the idle time of the last
      await pool.closeIdle();
    }
    expect(f.opened).toHaveLength(1);
    expect(pool.openCount()).toBe(1);
  });

  it('closes a source unused for the idle time, and opens it again on the next read', async () => {
    const f = fakeSources();
    const pool = createPayloadSourcePool(f.open, { idleMs: 60_000, now: clock, sweep: false });
    await pool.get(fileA).getPayload('A-1');
    t += 59_999;
    await pool.closeIdle();
    expect(f.opened[0].closed).toBe(false);
    t += 1;
    await pool.closeIdle();
    expect(f.opened[0].closed).toBe(true);
    expect(pool.openCount()).toBe(0);
    expect(await pool.get(fileA).getPayload('A-2')).toMatchObject({ ok: true, payload: { ext: 'A-2' } });
    expect(f.opened.map((o) => o.closed)).toEqual([true, false]);
  });

  it('never closes a source while a read is in flight, however long it takes', async () => {
    const f = fakeSources();
    const pool = createPayloadSourcePool(f.open, { idleMs: 60_000, now: clock, sweep: false });
    await pool.get(fileA, 'run-1').getPayload('A-0');
    const release = f.holdReads();
    const slow = pool.get(fileA, 'run-1').getPayload('A-1');
    t += 10 * 60_000;
    await pool.closeIdle();
    await pool.runEnded('run-1');
    expect(f.opened[0].closed).toBe(false);
    release();
    expect(await slow).toMatchObject({ ok: true, payload: { ext: 'A-1' } });
    // Idle from the end of that read on.
    await pool.closeIdle();
    expect(f.opened[0].closed).toBe(false);
    t += 60_000;
    await pool.closeIdle();
    expect(f.opened[0].closed).toBe(true);
  });

  it("closes a source when every run that read it has ended, and not before; one caller's close() closes nothing", async () => {
    const f = fakeSources();
    const pool = createPayloadSourcePool(f.open, { idleMs: 60_000, now: clock, sweep: false });
    await pool.get(fileA, 'run-1').getPayload('A-1');
    await pool.get(fileA, 'run-2').getPayload('A-2');
    await pool.get(fileB, 'run-1').listAccountNumbers({ limit: 10 });
    await pool.get(fileA, 'run-1').close();
    expect(f.opened.map((o) => o.closed)).toEqual([false, false]);
    await pool.runEnded('run-1');
    expect(f.opened.map((o) => [o.spec, o.closed])).toEqual([
      [fileA, false], // run-2 still reads it
      [fileB, true],
    ]);
    await pool.runEnded('run-2');
    expect(f.opened.map((o) => o.closed)).toEqual([true, true]);
    expect(pool.openCount()).toBe(0);
  });

  it('sweeps idle sources on its own timer', async () => {
    const f = fakeSources();
    const pool = createPayloadSourcePool(f.open, { idleMs: 1000 });
    await pool.get(fileA).getPayload('A-1');
    await new Promise((r) => setTimeout(r, 2_300));
    expect(f.opened[0].closed).toBe(true);
    await pool.closeAll();
  });
});

describe("a worker's payload files", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'payload-pool-'));
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));
  const gz = path.join(home, 'team.jsonl.gz');
  const accounts = ['A-1', 'B-2'].map((n) => realisticAccount({ external_account_number: n }));
  fs.writeFileSync(gz, gzipSync(accounts.map((a) => JSON.stringify(a)).join('\n')));
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
  const copies = () =>
    fs
      .readdirSync(tmp)
      .map(String)
      .filter((f) => f.startsWith('kraken-migrate-payloads'));

  it('are closed when their run ends (the decompressed copy goes) and read again from a fresh index after', async () => {
    const ctx = createActivityContext({ config: {}, mapping: {} } as never);
    const spec = { kind: 'payloads' as const, path: gz };
    expect(await ctx.payloadsFor(spec, 'run-1').getPayload('B-2')).toMatchObject({ ok: true, payload: accounts[1] });
    expect(copies()).toHaveLength(1);
    await ctx.runEnded('run-1');
    expect(copies()).toEqual([]);
    expect(await ctx.listerFor(spec, 'run-2').listAccountNumbers({ limit: 10 })).toEqual(['A-1', 'B-2']);
    expect(copies()).toHaveLength(1);
    await ctx.closeSources();
    expect(copies()).toEqual([]);
  });
});

describe('a hostile payload file read by an activity', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-activity-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('fails non-retryable with the file error’s code (a FIFO, not gzip, a gzip bomb, too many lines, a missing file), not a retried error', async () => {
    const pool = createPayloadSourcePool((spec) => createPayloadSource(spec, {}), { sweep: false });
    const bomb = await makers.gzipBomb(dir, 80 * 1024 * 1024); // over the 64 MiB floor of the limit
    const cases: Array<[string, string]> = [
      [makers.fifo(dir), 'not_a_regular_file'],
      [makers.notGzip(dir), 'invalid_gzip'],
      [bomb, 'decompressed_too_large'],
      [path.join(dir, 'absent.jsonl'), 'file_not_found'],
    ];
    try {
      for (const [file, code] of cases) {
        const source = pool.get({ kind: 'payloads', path: file }, 'run-1');
        const failure = await source.listAccountNumbers({ limit: 10 }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(failure, code).toBeInstanceOf(ApplicationFailure);
        expect(failure, code).toMatchObject({ nonRetryable: true, type: code });
        await expect(source.getPayload('X'), code).rejects.toMatchObject({ nonRetryable: true, type: code });
      }
    } finally {
      await pool.closeAll();
    }
  });

  it('leaves a sound file’s reads as they were', async () => {
    const pool = createPayloadSourcePool((spec) => createPayloadSource(spec, {}), { sweep: false });
    const file = path.join(dir, 'ok.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(realisticAccount({ external_account_number: 'OK-1' }))}\n`);
    try {
      expect(await pool.get({ kind: 'payloads', path: file }).listAccountNumbers({ limit: 10 })).toEqual(['OK-1']);
    } finally {
      await pool.closeAll();
    }
  });
});
