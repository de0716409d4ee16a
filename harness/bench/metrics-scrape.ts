/**
 * What one Prometheus scrape of a worker costs at a ledger of `--rows` attempts: seeds a run of that
 * size (`db seed-ledger`'s loader) in an embedded Postgres of its own (or DATABASE_URL's), then
 * times the migration metrics' whole scrape (the ledger's part; Temporal is left out: no stack)
 * `--times` times and prints each and the median (docs/observability.md).
 *
 *   npx tsx harness/bench/metrics-scrape.ts --rows 1000000 [--times 7]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import { createPool } from '../../clients/db';
import { migrateAll } from '../../db/migrate';
import { registerMigrationMetrics } from '../../workers/migration-metrics';
import { seedRun } from '../seed/seed-ledger';
import { freePort } from '../stack/child-process';
import { startPostgres } from '../stack/postgres';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, times: { type: 'string', default: '7' } } });
  const rows = Number(values.rows);
  const times = Number(values.times);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'metrics-scrape-'));
  const pg = await startPostgres({ databaseUrl: process.env.DATABASE_URL, dataDir, port: await freePort() });
  const pool = createPool(pg.url, 4);
  try {
    await migrateAll(pg.url, path.join(__dirname, '../..'));
    const seeded = Date.now();
    await seedRun(pool, { runId: `scrape-${process.pid}`, supplierCode: 'BENCH-SUPPLIER', accounts: rows });
    await pool.query('analyze');
    process.stdout.write(`seeded ${rows} attempts in ${((Date.now() - seeded) / 1000).toFixed(1)} s\n`);
    const registry = new Registry();
    registerMigrationMetrics(registry, {
      pool,
      temporal: () => Promise.reject(new Error('no Temporal here')),
      config: { METRICS_RATE_WINDOW_MINUTES: 10 },
    });
    const ms: number[] = [];
    let bytes = 0;
    for (let i = 0; i < times; i++) {
      const t = process.hrtime.bigint();
      bytes = (await registry.metrics()).length;
      ms.push(Number(process.hrtime.bigint() - t) / 1e6);
      await new Promise((r) => setTimeout(r, 300));
    }
    const median = [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)];
    process.stdout.write(
      `load ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}; scrape at ${rows} attempts: ${ms.map((x) => x.toFixed(1)).join(', ')} ms; median ${median.toFixed(1)} ms (${bytes} bytes)\n`,
    );
  } finally {
    await pool.end();
    await pg.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  process.stderr.write(`${e.stack ?? e.message}\n`);
  process.exit(1);
});
