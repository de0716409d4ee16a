import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileSourceAdapter } from '../../source/file-adapter';
import { validatePayloadFile } from '../../source/payload-validate';
import { validateFile } from '../../schemas/validate-file';
import { legacyExport, makers } from '../synthetic/hostile-inputs';

/**
 * Peak memory and disk of the hostile-input battery at the issue's own sizes (issue 39), with the
 * product's default limits: `npx tsx harness/bench/hostile-input.ts [case…]`. Each case runs in a
 * child process of its own (its peak RSS is its own); the parent samples the child's decompressed
 * copy in $TMPDIR every 50 ms for the disk peak. The files are generated here, never committed.
 */

const CASES = {
  /** 2 GiB of `{}` lines in about 2 MB of gzip: stopped at 100 × its compressed size. */
  'gzip-bomb-2GiB': (dir: string) => makers.gzipBomb(dir, 2 * 1024 ** 3),
  /** 2,000,000 `{}` lines (5.9 KB gzipped): each its own `#line-<n>` account in the index. */
  'lines-2M': (dir: string) => makers.manyEmptyLines(dir, 2_000_000),
  /** A tenth of it: the peak memory of the two should be the same (the index is on disk, source/line-index.ts). */
  'lines-200k': (dir: string) => makers.manyEmptyLines(dir, 200_000),
  fifo: async (dir: string) => makers.fifo(dir),
  /** A 300 MB `.json` array: streamed record by record (schemas/json-array-stream.ts). */
  'json-300MB': async (dir: string) => makers.bigJson(dir, 300 * 1024 ** 2),
  /** A legacy export of 1,000,000 records (2.3 GB, one in 100 repeating the number before it): source/file-adapter.ts's index. */
  'legacy-1M': (dir: string) => legacyExport(dir, 1_000_000),
  /** A tenth of it: on disk, the peak should not follow the records. */
  'legacy-100k': (dir: string) => legacyExport(dir, 100_000),
} as const;
type CaseName = keyof typeof CASES;

/** What a run and `source check` do with a legacy export: every number by page, one account in 1,000 read, then the whole file streamed. */
async function legacyChild(name: CaseName, file: string): Promise<void> {
  const started = Date.now();
  const source = new FileSourceAdapter(file);
  let numbers = 0;
  for (
    let page = await source.listAccountNumbers({ limit: 1000 });
    page.length > 0;
    page = await source.listAccountNumbers({ after: page.at(-1), limit: 1000 })
  ) {
    numbers += page.length;
    await source.getAccount(page[0]);
  }
  const listedSeconds = (Date.now() - started) / 1000;
  const listedMaxRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  let records = 0;
  for await (const _ of source.stream()) records += 1;
  await source.close();
  const maxRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(
    `${JSON.stringify({ case: name, numbers, records, listedSeconds, listedMaxRssMiB, seconds: (Date.now() - started) / 1000, maxRssMiB })}\n`,
  );
}

async function child(name: CaseName, file: string): Promise<void> {
  if (name.startsWith('legacy-')) return legacyChild(name, file);
  const started = Date.now();
  let outcome = 'ok';
  let records = 0;
  try {
    const results = file.endsWith('.json') ? validateFile(file) : validatePayloadFile(file);
    for await (const r of results) {
      records += 1;
      if (r.errors.length > 0 && outcome === 'ok') outcome = r.errors[0].code;
    }
  } catch (e) {
    outcome = (e as { code?: string }).code ?? 'error';
  }
  const maxRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(`${JSON.stringify({ case: name, outcome, records, seconds: (Date.now() - started) / 1000, maxRssMiB })}\n`);
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    try {
      total += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

async function parent(names: CaseName[]): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-hostile-'));
  try {
    for (const name of names) {
      const file = await CASES[name](work);
      const inputBytes = fs.statSync(file).isFile() ? fs.statSync(file).size : 0;
      const proc = spawn(process.execPath, ['--import', 'tsx', __filename, '--child', name, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      let diskPeak = 0;
      const prefix = `kraken-migrate-payloads-${proc.pid}-`;
      const sampler = setInterval(() => {
        for (const n of fs.readdirSync(os.tmpdir())) if (n.startsWith(prefix)) diskPeak = Math.max(diskPeak, dirBytes(path.join(os.tmpdir(), n)));
      }, 50);
      await new Promise((resolve) => proc.on('close', resolve));
      clearInterval(sampler);
      const r = JSON.parse(out.trim().split('\n').at(-1) ?? '{}');
      console.log(JSON.stringify({ ...r, inputBytes, diskPeakMiB: Math.round(diskPeak / 1024 ** 2) }));
      fs.rmSync(file, { force: true, recursive: true });
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') void child(args[1] as CaseName, args[2]);
else void parent((args.length ? args : Object.keys(CASES)) as CaseName[]);
