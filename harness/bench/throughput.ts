/**
 * How close the tool keeps the platform to its capacity (docs/throughput.md): the sandbox with the
 * tenant's concurrency limit (accounts in processing at once, 429 past it; capacity = limit ÷
 * processing time, the client not told either), one run per limit and pace, side by side:
 * `fixed` (--concurrency 50, the default) and `adaptive` (PLATFORM_PACE=adaptive: the shared window
 * of permits, --concurrency 200 as a ceiling). Figures from the sandbox's own record: accepted
 * schedules per second from the first to the last (the platform's intake, its processing tail left
 * out) ÷ capacity; the share of schedule calls refused by the limit; schedule calls per account;
 * accounts not completed. Then (`fair`) two runs of two suppliers at once, weights 3:1, adaptive, on
 * one limited tenant: how many each has completed when the weight-3 run completes its `--fair-first`-th
 * (the ratio from the start), `--fair-lead-ms` giving the last run (weight 1) a head start. Activity
 * attempts per account (the schedule activity's, and all of the account workflow's) from Temporal
 * history, for every run.
 *
 *   nice npx tsx harness/bench/throughput.ts [--scenarios limits,fair] [--accounts 200] [--limits 20,80] [--processing-ms 8000,32000] [--paces fixed,adaptive] [--retry-after S]
 *     [--fair-accounts 260] [--fair-first 200] [--fair-weights 3,1] [--fair-limit 20] [--fair-processing-ms 8000] [--fair-lead-ms 0] [--out harness/bench/throughput.json]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { createPool, type Pool } from '../../clients/db';
import { createLedger } from '../../ledger';
import { connectClient } from '../../clients/temporal';
import { capacityPerSecond } from '../sandbox/concurrency-limit';
import { sandboxAdmin } from '../sandbox/admin-client';
import { startStack } from '../stack/stack';
import { runPipeline, seedSet } from './pipeline';
import { runActivityAttempts, type RunActivityAttempts } from './history-cost';
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
  /** Mean accounts in processing at the tenant ÷ its limit, from the first to the last accepted schedule. */
  utilization: number;
  /** The same from the moment the limit was first reached (the start-up left out); null when it never was. */
  usedOnceReached: number | null;
  retryAfterSeconds: number | null;
  scheduleCalls: number;
  refused: number;
  refusedShare: number;
  callsPerAccount: number;
  /** Temporal activity attempts per account: the schedule activity's (mean, most) and every activity's. */
  scheduleAttemptsPerAccount: number;
  scheduleAttemptsMax: number;
  activityAttemptsPerAccount: number;
  wallSeconds: number;
  load1: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      accounts: { type: 'string', default: '200' },
      limits: { type: 'string', default: '20,80' },
      'processing-ms': { type: 'string', default: '8000,32000' },
      out: { type: 'string', default: 'harness/bench/throughput.json' },
      paces: { type: 'string', default: 'fixed,adaptive' },
      scenarios: { type: 'string', default: 'limits,fair' },
      /** The limit's 429 carries Retry-After (seconds); without it, none (the tenant documents none). */
      'retry-after': { type: 'string' },
      'fair-accounts': { type: 'string', default: '260' },
      'fair-first': { type: 'string', default: '200' },
      'fair-weights': { type: 'string', default: '3,1' },
      'fair-limit': { type: 'string', default: '20' },
      'fair-processing-ms': { type: 'string', default: '8000' },
      /** The last run of --fair-weights (weight 1 by default) starts this long before the others. */
      'fair-lead-ms': { type: 'string', default: '0' },
    },
  });
  const scenarios = values.scenarios.split(',');
  const retryAfter = values['retry-after'] === undefined ? null : Number(values['retry-after']);
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
  let fair: FairResult | undefined;
  try {
    await routeEvents(stack, 'webhook');
    client = await connectClient(stack.config);
    pool = createPool(stack.config.DATABASE_URL!, 5);
    let offset = 1_000_000;
    for (const [i, limit] of (scenarios.includes('limits') ? limits : []).entries()) {
      for (const pace of values.paces.split(',') as Array<'fixed' | 'adaptive'>) {
        const processingMs = processing[i];
        await sandboxAdmin(stack.info.sandboxUrl, 'PUT', '/admin/faults', {
          concurrencyLimit: limit,
          processingDelayMs: processingMs,
          concurrencyRetryAfterSeconds: retryAfter,
        });
        // A tenant the adaptive window has not met: each adaptive run finds the capacity from scratch.
        await resetWindow(pool);
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
        const attempts = await runActivityAttempts(client, run.runId!);
        const intake = await pool.query<{ n: number; first: Date; last: Date }>(
          `select count(*)::int as n, min(created_at) as first, max(created_at) as last from sandbox.import_processes where external_identifier = any($1)`,
          [set.accounts],
        );
        const { n, first, last } = intake.rows[0];
        // The tenant's use of its limit between the first and the last accepted schedule: accounts in
        // processing at each moment (from the sandbox's own record), averaged, ÷ the limit.
        const busy = await pool.query<{ s: number }>(
          `select coalesce(sum(extract(epoch from (least(case when status in ('PENDING', 'IN_PROGRESS') then now() else modified_at end, $2) - greatest(created_at, $3)))), 0)::float8 as s
             from sandbox.import_processes where external_identifier = any($1) and created_at < $2`,
          [set.accounts, last, first],
        );
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
          utilization: spanS > 0 ? round(busy.rows[0].s / (limit * spanS)) : 0,
          usedOnceReached: await usedOnceReached(pool, set.accounts, limit, last),
          retryAfterSeconds: retryAfter,
          scheduleCalls: n + refused,
          refused,
          refusedShare: round(refused / (n + refused)),
          callsPerAccount: round((n + refused) / accounts),
          scheduleAttemptsPerAccount: attempts.schedulePerAccount,
          scheduleAttemptsMax: attempts.scheduleMax,
          activityAttemptsPerAccount: attempts.perAccount,
          wallSeconds: run.wallSeconds,
          load1: round(os.loadavg()[0], 1),
        };
        say(JSON.stringify(row));
        rows.push(row);
      }
    }
    if (scenarios.includes('fair')) {
      const weights = values['fair-weights'].split(',').map(Number);
      fair = await fairShares({
        stack,
        client,
        pool,
        accounts: Number(values['fair-accounts']),
        first: Number(values['fair-first']),
        weights,
        limit: Number(values['fair-limit']),
        processingMs: Number(values['fair-processing-ms']),
        leadMs: Number(values['fair-lead-ms']),
        offset,
      });
      say(JSON.stringify(fair));
    }
  } finally {
    await client?.connection.close().catch(() => {});
    await pool?.end().catch(() => {});
    say('stopping the stack');
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  fs.writeFileSync(path.resolve(ROOT, values.out), `${JSON.stringify({ at: new Date().toISOString(), cores: os.cpus().length, rows, fair }, null, 2)}\n`);
  say(
    'limit | processing | capacity/s | pace | concurrency | accepted/s | of capacity | limit used | used once reached | refused share | calls/account | schedule attempts/account (max) | activity attempts/account | completed | wall s | load',
  );
  for (const r of rows)
    say(
      `${r.limit} | ${r.processingMs} ms | ${r.capacityPerSecond} | ${r.pace} | ${r.concurrency} | ${r.intakePerSecond} | ${r.ofCapacity} | ${r.utilization} | ${r.usedOnceReached ?? '-'} | ${r.refusedShare} | ${r.callsPerAccount} | ${r.scheduleAttemptsPerAccount} (${r.scheduleAttemptsMax}) | ${r.activityAttemptsPerAccount} | ${r.completed}/${r.accounts} | ${r.wallSeconds} | ${r.load1}`,
    );
  if (fair)
    say(
      `fair (limit ${fair.limit}, ${fair.processingMs} ms; first at the window ${fair.firstAtWindow.supplier} by ${fair.firstAtWindow.byMs} ms): ` +
        `${fair.runs.map((r) => `${r.supplier} weight ${r.weight}: ${r.completedAtFirst} completed`).join(', ')} when the heaviest completed its ${fair.first}th: ` +
        `ratio from the start ${fair.ratioFromStart} (weights ${fair.weightRatio}; within 20%: ${fair.withinTwentyPercent}; ${fair.ratioWhileCompeting} after both had completed one); ` +
        `permits held ${fair.heldRatioWhileBothWait}:1 over ${fair.secondsBothWaiting} s both waiting; refused ${fair.refusedShare}; ` +
        `schedule attempts/account ${fair.runs.map((r) => `${r.attempts.schedulePerAccount} (max ${r.attempts.scheduleMax})`).join(', ')}, activity attempts/account ${fair.runs.map((r) => r.attempts.perAccount).join(', ')}`,
    );
}

/**
 * Accounts in processing at the tenant ÷ its limit, averaged from the first moment it held `limit`
 * of them to the last accepted schedule (how well the limit is held once found, start-up aside).
 */
async function usedOnceReached(pool: Pool, accounts: string[], limit: number, last: Date): Promise<number | null> {
  const r = await pool.query<{ t: Date; d: number }>(
    `select created_at as t, 1 as d from sandbox.import_processes where external_identifier = any($1)
     union all select modified_at, -1 from sandbox.import_processes where external_identifier = any($1) and status not in ('PENDING', 'IN_PROGRESS')
     order by t, d`,
    [accounts],
  );
  const end = last.getTime();
  let live = 0;
  let from: number | null = null;
  let prev = 0;
  let area = 0;
  for (const { t, d } of r.rows) {
    const at = Math.min(t.getTime(), end);
    if (from !== null) area += live * (at - prev);
    prev = at;
    if (at >= end) break;
    live += d;
    if (from === null && live >= limit) {
      from = at;
      prev = at;
    }
  }
  if (from === null || end <= from) return null;
  return round(area / (limit * (end - from)));
}

async function resetWindow(pool: Pool): Promise<void> {
  await pool.query(
    'delete from migrate.platform_permit_waiters; delete from migrate.platform_permits; delete from migrate.platform_fair_shares; delete from migrate.platform_permit_holds; delete from migrate.platform_pace',
  );
}

interface FairResult {
  limit: number;
  processingMs: number;
  accounts: number;
  first: number;
  /** The last run started this long before the others. */
  leadMs: number;
  runs: Array<{ supplier: string; weight: number; completedAtFirst: number; completed: number; wallSeconds: number; attempts: RunActivityAttempts }>;
  /** The run whose first account the tenant accepted first, and by how long before the other's first. */
  firstAtWindow: { supplier: string; byMs: number };
  /**
   * The issue's figure: completed by the heaviest run ÷ by the lightest one at the moment the
   * heaviest completed its `first`-th account, counted from the start; the weights' ratio beside it.
   */
  ratioFromStart: number;
  weightRatio: number;
  /** ratioFromStart within 20% of weightRatio (the issue's done-when). */
  withinTwentyPercent: boolean;
  /** Completed by each after both had completed one, until the first reached `first`, and their ratio. */
  competing: number[];
  ratioWhileCompeting: number;
  /** Permits held and accounts waiting per supplier, each of the first 20 seconds. */
  firstSeconds: Array<Record<string, { held: number; waiting: number }>>;
  /** Mean of permits held by the first ÷ by the second, sampled each second while both had accounts waiting. */
  heldRatioWhileBothWait: number | null;
  secondsBothWaiting: number;
  refusedShare: number;
  load1: number;
}

/**
 * Two suppliers' runs started together on one limited tenant, adaptive, with fairness weights:
 * each has more accounts than the workers' slots and the tenant's window; the ledger's finish times
 * say how many each had completed when the first reached `first`.
 */
async function fairShares(o: {
  stack: Awaited<ReturnType<typeof startStack>>;
  client: Client;
  pool: Pool;
  accounts: number;
  first: number;
  weights: number[];
  limit: number;
  processingMs: number;
  leadMs: number;
  offset: number;
}): Promise<FairResult> {
  const { stack, client, pool } = o;
  await sandboxAdmin(stack.info.sandboxUrl, 'PUT', '/admin/faults', {
    concurrencyLimit: o.limit,
    processingDelayMs: o.processingMs,
    concurrencyRetryAfterSeconds: null,
  });
  await resetWindow(pool);
  const suppliers = o.weights.map((_, i) => (i === 0 ? stack.config.IMPORT_SUPPLIER_CODE : `FAIR-${i}`));
  const ledger = createLedger(pool);
  for (const code of suppliers.slice(1)) {
    // A second cohort: the same document root, ongoing at the tenant and in the ledger.
    await sandboxAdmin(stack.info.sandboxUrl, 'PUT', `/admin/suppliers/${code}`, {
      status: 'ONGOING',
      document_root: stack.config.IMPORT_SUPPLIER_DOCUMENT_ROOT,
    });
    await ledger.setSupplier(code, { status: 'ONGOING', documentRoot: stack.config.IMPORT_SUPPLIER_DOCUMENT_ROOT, updatedBy: 'bench' });
  }
  const sets = [];
  for (const [i] of o.weights.entries())
    sets.push(
      await seedSet({ pool, config: stack.config, name: `fair${i}`, accounts: o.accounts, seed: 90 + i, accountIdOffset: o.offset + i * (o.accounts + 10) }),
    );
  const worker = await stack.startWorker({ ...WORKER_ENV, PLATFORM_PACE: 'adaptive' });
  const before = await sandboxAdmin<{ concurrencyLimited: number }>(stack.info.sandboxUrl, 'GET', '/admin/requests');
  say(
    `fair: ${o.weights.length} runs, weights ${o.weights.join(':')}, ${o.accounts} accounts each, limit ${o.limit}, ${o.processingMs} ms each; the last ${o.leadMs} ms first`,
  );
  // Every second: permits held and accounts waiting per supplier (what the window's sharing sees).
  const samples: Array<Record<string, { held: number; waiting: number }>> = [];
  const sampler = setInterval(() => {
    void pool
      .query<{ k: string; held: number; waiting: number }>(
        `select k, sum(held)::int as held, sum(waiting)::int as waiting from (
           select fairness_key as k, 1 as held, 0 as waiting from migrate.platform_permits
           union all select fairness_key, 0, 1 from migrate.platform_permit_waiters where seen_at > clock_timestamp() - interval '1.5 seconds') x group by k`,
      )
      .then((r) => samples.push(Object.fromEntries(r.rows.map((x) => [x.k, { held: x.held, waiting: x.waiting }]))))
      .catch(() => undefined);
  }, 1000);
  let runs;
  try {
    const last = sets.length - 1;
    runs = await Promise.all(
      sets.map(async (set, i) => {
        if (i !== last && o.leadMs > 0) await new Promise((resolve) => setTimeout(resolve, o.leadMs));
        return runPipeline({
          config: stack.config,
          client,
          pool,
          set,
          concurrency: 200,
          workerPids: [worker.pid],
          supplierCode: suppliers[i],
          weight: o.weights[i],
        });
      }),
    );
  } finally {
    clearInterval(sampler);
    await worker.stop();
  }
  const after = await sandboxAdmin<{ concurrencyLimited: number }>(stack.info.sandboxUrl, 'GET', '/admin/requests');
  // Permits held per supplier while both had accounts waiting (the window's own sharing, start-up left out).
  const both = samples.filter((x) => suppliers.every((k) => (x[k]?.waiting ?? 0) > 0 && (x[k]?.held ?? 0) > 0));
  const heldRatio = both.length > 0 ? both.reduce((a, x) => a + x[suppliers[0]].held / x[suppliers[1]].held, 0) / both.length : null;
  const finishes = await Promise.all(
    runs.map(async (r) => {
      const q = await pool.query<{ t: Date }>(
        `select finished_at as t from migrate.account_attempts where run_id = $1 and outcome = 'completed' order by finished_at`,
        [r.runId],
      );
      return q.rows.map((x) => x.t.getTime());
    }),
  );
  const heavy = o.weights.indexOf(Math.max(...o.weights));
  const light = o.weights.indexOf(Math.min(...o.weights));
  // The moment the heaviest run completed its `first`-th account (its last, if it completed fewer).
  const at = finishes[heavy][Math.min(o.first, finishes[heavy].length) - 1] ?? Infinity;
  const counts = finishes.map((f) => f.filter((t) => t <= at).length);
  const ratioFromStart = round(counts[heavy] / Math.max(1, counts[light]));
  const weightRatio = o.weights[heavy] / o.weights[light];
  // Which run the tenant took an account of first (the sandbox's own record).
  const firsts = await Promise.all(
    sets.map(async (set) => {
      const q = await pool.query<{ t: Date | null }>(`select min(created_at) as t from sandbox.import_processes where external_identifier = any($1)`, [
        set.accounts,
      ]);
      return q.rows[0].t?.getTime() ?? Infinity;
    }),
  );
  const firstIdx = firsts.indexOf(Math.min(...firsts));
  const attempts: RunActivityAttempts[] = [];
  for (const r of runs) attempts.push(await runActivityAttempts(client, r.runId!));
  // The same from the moment both had completed an account (both competing), start-up left out.
  const from = Math.max(...finishes.map((f) => f[0] ?? Infinity));
  const competing = finishes.map((f) => f.filter((t) => t > from && t <= at).length);
  const accepted = await pool.query<{ n: number }>(`select count(*)::int as n from sandbox.import_processes where external_identifier = any($1)`, [
    sets.flatMap((x) => x.accounts),
  ]);
  const refused = after.concurrencyLimited - before.concurrencyLimited;
  return {
    limit: o.limit,
    processingMs: o.processingMs,
    accounts: o.accounts,
    first: o.first,
    leadMs: o.leadMs,
    runs: runs.map((r, i) => ({
      supplier: suppliers[i],
      weight: o.weights[i],
      completedAtFirst: counts[i],
      completed: r.completed,
      wallSeconds: r.wallSeconds,
      attempts: attempts[i],
    })),
    firstAtWindow: { supplier: suppliers[firstIdx], byMs: Math.round(Math.min(...firsts.filter((_, i) => i !== firstIdx)) - firsts[firstIdx]) },
    ratioFromStart,
    weightRatio,
    withinTwentyPercent: Math.abs(ratioFromStart / weightRatio - 1) <= 0.2,
    competing,
    ratioWhileCompeting: round(competing[heavy] / Math.max(1, competing[light])),
    firstSeconds: samples.slice(0, 20),
    heldRatioWhileBothWait: heldRatio === null ? null : round(heldRatio),
    secondsBothWaiting: both.length,
    refusedShare: round(refused / (accepted.rows[0].n + refused)),
    load1: round(os.loadavg()[0], 1),
  };
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

main().catch((e: Error) => {
  process.stderr.write(`${e.stack ?? e.message}\n`);
  process.exit(1);
});
