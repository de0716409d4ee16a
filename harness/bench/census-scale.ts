/**
 * The supplier census at scale (docs/throughput.md, "The supplier census at a million"): an
 * embedded stack of its own (free ports, a temporary data directory), a ledger seeded with
 * `--accounts` attempts of one run (`db seed-ledger`'s mix: most completed, some failed, some in
 * flight), the same numbers planted at the sandbox as imported (so every account the run did not
 * complete is "imported elsewhere"), plus `--extra` planted pending; then `supplier census --json`
 * as an operator runs it, under /usr/bin/time: its peak RSS, its time, and its counts.
 *
 *   npx tsx harness/bench/census-scale.ts [--accounts 1000000] [--extra 1000]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadEnv } from '../../config';
import { createPool } from '../../clients/db';
import { sandboxAdmin } from '../sandbox/admin-client';
import { seedRun } from '../seed/seed-ledger';
import { startStack } from '../stack/stack';

const ROOT = path.resolve(__dirname, '../..');
const PLANT_CHUNK = 20_000;

async function plant(sandboxUrl: string, body: { supplier: string; state: 'imported' | 'pending'; prefix: string; count: number; digits?: number }) {
  let planted = 0;
  for (let start = 1; start <= body.count; start += PLANT_CHUNK) {
    const count = Math.min(PLANT_CHUNK, body.count - start + 1);
    planted += (await sandboxAdmin<{ planted: number }>(sandboxUrl, 'POST', '/admin/import-processes/plant', { ...body, start, count })).planted;
  }
  return planted;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { accounts: { type: 'string', default: '1000000' }, extra: { type: 'string', default: '1000' } } });
  const accounts = Number(values.accounts);
  const extra = Number(values.extra);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'census-scale-'));
  const log = (line: string) => process.stderr.write(`[census-scale] ${line}\n`);
  const stack = await startStack({ env: { ...loadEnv(ROOT), DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, freePorts: true, workers: 0, log });
  try {
    const supplier = 'CENSUS-SCALE';
    const pool = createPool(stack.env.DATABASE_URL, 2);
    let t = Date.now();
    const seeded = await seedRun(pool, { runId: `census-scale-${Date.now().toString(36)}`, supplierCode: supplier, accounts });
    await pool.end();
    log(`seeded ${accounts} attempts in ${((Date.now() - t) / 1000).toFixed(0)} s: ${JSON.stringify(seeded.byOutcome)}`);
    t = Date.now();
    const imported = await plant(stack.info.sandboxUrl, { supplier, state: 'imported', prefix: `${seeded.prefix}-`, count: accounts, digits: 8 });
    const pending = extra > 0 ? await plant(stack.info.sandboxUrl, { supplier, state: 'pending', prefix: `${supplier}-ELSEWHERE-`, count: extra }) : 0;
    log(`planted ${imported} imported and ${pending} pending at the sandbox in ${((Date.now() - t) / 1000).toFixed(0)} s`);

    // Twice: as an operator runs it, then with V8's heap capped (`--max-old-space-size`): a census
    // that held the list would fail there with "heap out of memory"; its peak RSS is the floor.
    const results = [];
    for (const heapMiB of [undefined, 64]) {
      const out = path.join(dataDir, 'census.json');
      const fd = fs.openSync(out, 'w');
      const node = heapMiB ? [`--max-old-space-size=${heapMiB}`] : [];
      const r = spawnSync(
        '/usr/bin/time',
        ['-f', '%M %e', process.execPath, ...node, '--import', 'tsx', path.join(ROOT, 'cli/main.ts'), 'supplier', 'census', supplier, '--json'],
        {
          cwd: ROOT,
          env: { ...process.env, ...stack.env },
          stdio: ['ignore', fd, 'pipe'],
          encoding: 'utf8',
        },
      );
      fs.closeSync(fd);
      const [maxRssKb, seconds] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
      const census = JSON.parse(fs.readFileSync(out, 'utf8')) as { counts: Record<string, number> };
      results.push({
        command: `${heapMiB ? `node --max-old-space-size=${heapMiB} … ` : ''}kraken-migrate supplier census ${supplier} --json`,
        exit: r.status,
        peakRssMiB: Math.round(maxRssKb / 1024),
        seconds,
        outputMiB: +(fs.statSync(out).size / 2 ** 20).toFixed(1),
        counts: census.counts,
      });
    }
    const result = { accounts, extraPending: extra, runs: results, cores: os.cpus().length, load: os.loadavg().map((l) => +l.toFixed(1)) };
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } finally {
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
