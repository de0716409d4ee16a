/**
 * How close the tool keeps the platform to its capacity (docs/throughput.md): the sandbox with the
 * tenant's concurrency limit (accounts in processing at once, 429 past it; capacity = limit ÷
 * processing time, the client not told either), one run per limit and pace, side by side:
 * `fixed` (the default: --concurrency 50, the queue's rate) and `adaptive` (PLATFORM_PACE=adaptive,
 * --concurrency as a ceiling). Figures from the sandbox's own record: accepted schedules per second
 * from the first to the last (the platform's intake, its processing tail left out) ÷ capacity; the
 * share of schedule calls refused by the limit; schedule calls per account; accounts not completed.
 *
 *   nice npx tsx harness/bench/throughput.ts [--accounts 200] [--limits 20,80] [--processing-ms 4000,16000] [--paces fixed,adaptive] [--out harness/bench/throughput.json]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { createPool, type Pool } from '../../clients/db';
import { connectClient } from '../../clients/temporal';
import { capacityPerSecond } from '../sandbox/concurrency-limit';
import { sandboxAdmin } from '../sandbox/admin-client';
import { startStack } from '../stack/stack';
import { runPipeline, seedSet } from './pipeline';
import { benchEnv, routeEvents, WORKER_ENV } from './stack-env';

const ROOT = path.resolve(__dirname, '../..');
const say = (l: string) => process.stdout.write(`[throughput ${new Date().toISOString().slice(11, 19)}] ${l}\n`);

interface Row {
  limit: number;
  processingMs: number;
  capacityPerSecond: number;
  pace: 'fixed' | 'adaptive';
  concurrency: number;
  accounts: number;
  completed: number;
  intakePerSecond: number;
  ofCapacity: number;
  scheduleCalls: number;
  refused: number;
  refusedShare: number;
  callsPerAccount: number;
  wallSeconds: number;
  load1: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      accounts: { type: 'string', default: '200' },
      limits: { type: 'string', default: '20,80' },
      'processing-ms': { type: 'string', default: '4000,16000' },
      out: { type: 'string', default: 'harness/bench/throughput.json' },
      paces: { type: 'string', default: 'fixed,adaptive' },
    },
  });
  const accounts = Number(values.accounts);
  const limits = values.limits.split(',').map(Number);
  const processing = values['processing-ms'].split(',').map(Number);
  if (limits.length !== processing.length) throw new Error('--limits and --processing-ms: one processing time per limit');
  const dataDir = path.join(ROOT, '.data', `bench-throughput-${process.pid}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  say(`starting the stack (load ${os.loadavg()[0].toFixed(2)})`);
  const stack = await startStack({
    env: { ...benchEnv(dataDir, 30, 'dev'), PLATFORM_RATE_LIMIT_PER_SECOND: '50' },
    freePorts: true,
    workers: 0,
    log: (l) => say(`stack: ${l}`),
  });
  let client: Client | undefined;
  let pool: Pool | undefined;
  const rows: Row[] = [];
  try {
    await routeEvents(stack, 'webhook');
    client = await connectClient(stack.config);
    pool = createPool(stack.config.DATABASE_URL!, 5);
    let offset = 1_000_000;
    for (const [i, limit] of limits.entries()) {
      for (const pace of values.paces.split(',') as Array<'fixed' | 'adaptive'>) {
        const processingMs = processing[i];
        await sandboxAdmin(stack.info.sandboxUrl, 'PUT', '/admin/faults', {
          concurrencyLimit: limit,
          processingDelayMs: processingMs,
          concurrencyRetryAfterSeconds: null,
        });
        // A tenant the adaptive pace has not met: each adaptive run finds the capacity from scratch.
        await pool.query('delete from migrate.platform_pace');
        const set = await seedSet({ pool, config: stack.config, name: `l${limit}${pace}`, accounts, seed: 41 + i, accountIdOffset: offset });
        offset += accounts + 10;
        const worker = await stack.startWorker({ ...WORKER_ENV, PLATFORM_PACE: pace });
        const concurrency = pace === 'fixed' ? 50 : 200;
        const before = await sandboxAdmin<{ concurrencyLimited: number }>(stack.info.sandboxUrl, 'GET', '/admin/requests');
        say(
          `limit ${limit}, ${processingMs} ms each (capacity ${capacityPerSecond(limit, processingMs)}/s): ${pace}, --concurrency ${concurrency}, ${accounts} accounts`,
        );
        const run = await runPipeline({ config: stack.config, client, pool, set, concurrency, workerPids: [worker.pid] });
        const after = await sandboxAdmin<{ concurrencyLimited: number }>(stack.info.sandboxUrl, 'GET', '/admin/requests');
        await worker.stop();
        const intake = await pool.query<{ n: number; first: Date; last: Date }>(
          `select count(*)::int as n, min(created_at) as first, max(created_at) as last from sandbox.import_processes where external_identifier = any($1)`,
          [set.accounts],
        );
        const { n, first, last } = intake.rows[0];
        const spanS = (last.getTime() - first.getTime()) / 1000;
        const capacity = capacityPerSecond(limit, processingMs);
        const intakePerSecond = spanS > 0 ? (n - 1) / spanS : 0;
        const refused = after.concurrencyLimited - before.concurrencyLimited;
        const row: Row = {
          limit,
          processingMs,
          capacityPerSecond: capacity,
          pace,
          concurrency,
          accounts,
          completed: run.completed,
          intakePerSecond: round(intakePerSecond),
          ofCapacity: round(intakePerSecond / capacity),
          scheduleCalls: n + refused,
          refused,
          refusedShare: round(refused / (n + refused)),
          callsPerAccount: round((n + refused) / accounts),
          wallSeconds: run.wallSeconds,
          load1: round(os.loadavg()[0], 1),
        };
        say(JSON.stringify(row));
        rows.push(row);
      }
    }
  } finally {
    await client?.connection.close().catch(() => {});
    await pool?.end().catch(() => {});
    say('stopping the stack');
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  fs.writeFileSync(path.resolve(ROOT, values.out), `${JSON.stringify({ at: new Date().toISOString(), cores: os.cpus().length, rows }, null, 2)}\n`);
  say('limit | processing | capacity/s | pace | concurrency | accepted/s | of capacity | refused share | calls/account | completed | wall s | load');
  for (const r of rows)
    say(
      `${r.limit} | ${r.processingMs} ms | ${r.capacityPerSecond} | ${r.pace} | ${r.concurrency} | ${r.intakePerSecond} | ${r.ofCapacity} | ${r.refusedShare} | ${r.callsPerAccount} | ${r.completed}/${r.accounts} | ${r.wallSeconds} | ${r.load1}`,
    );
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

main().catch((e: Error) => {
  process.stderr.write(`${e.stack ?? e.message}\n`);
  process.exit(1);
});
