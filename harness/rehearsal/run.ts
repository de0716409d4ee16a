import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { createPool } from '../../clients/db';
import { connectClient } from '../../clients/temporal';
import { formatRetrying, listRetryingAccounts } from '../../clients/retrying-accounts';
import { migrationRunInputSchema } from '../../domain/inputs';
import { runWorkflowId } from '../../domain/workflow-ids';
import { attemptFinishes, attemptOutcomes } from '../../ledger';
import { finishedCount, storeSizes } from '../../ledger/run-queries';
import { sandboxAdmin } from '../sandbox/admin-client';
import { startStack, type RunningStack } from '../stack/stack';
import type { ManagedProcess } from '../stack/child-process';
import { TEMPORAL_DATABASES } from '../stack/temporal-full-server';
import { writeDatasetToPostgres } from '../synthetic/dataset-postgres';
import { generateDataset, type GroundTruth } from '../synthetic/generator';
import { judge, type LedgerOutcome, type PlatformTruth } from '../chaos/verdict';
import { runExpiredWindowsPhase, type ExpiredWindowsSummary } from './expired-windows';
import { replayCheck, type ReplayCheckSummary } from './replay-check';
import { stallWorker, type Stall } from './stall-worker';
import { timeOperatorCommands, type OperatorTiming } from './operator-timings';
import type { RehearsalOptions } from './options';
import { recovery, type Recovery } from './recovery';
import { StackSampler } from './sampler';
import { goals, tenthRows, type Goals, type Sample, type TenthRow } from './tenths';

export interface RehearsalResult {
  options: RehearsalOptions;
  startedAt: string;
  seconds: number;
  machine: { cores: number; loadAvgAtEnd: number[] };
  accounts: number;
  outcomes: Record<string, number>;
  verdict: { lost: number; duplicated: number; reopened: number; wrong: number; examples: Record<string, unknown[]> };
  faults: {
    workerKills: number;
    serverRestarts: number;
    stalls: number;
    outage: { seconds: number; retryingSeenMax: number; statusLines: string[]; recovery: Recovery | null };
  };
  tenths: TenthRow[];
  goals: Goals;
  /** Every reading of the stack, so the table can be recomputed or plotted. */
  samples: Sample[];
  /** Bytes per 1,000 accounts of the run. */
  storage: { temporalPer1000: number; ledgerPer1000: number; inboxPer1000: number; sandboxPer1000: number; raw: Record<string, number> };
  /** Every history of the run read back (`--replay-check`), beside the stalls that forced task timeouts. */
  replay?: ReplayCheckSummary & { stalls: Stall[] };
  /** Expired windows and never-answered outcomes, after the main run (rehearsal/expired-windows.ts). */
  windows?: ExpiredWindowsSummary;
  operatorCommands?: { rows: number; timings: OperatorTiming[] };
  passed: boolean;
  problems: string[];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const ROOT = path.resolve(__dirname, '../..');

/** The stack's environment: the platform as slow as a tenant, events on one route, no request faults. */
export function rehearsalEnv(base: Record<string, string | undefined>, dataDir: string, o: RehearsalOptions): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base };
  for (const k of ['DATABASE_URL', 'S3_ENDPOINT', 'SQS_ENDPOINT', 'EVENTS_QUEUE_URL', 'TEMPORAL_ADDRESS']) delete env[k];
  const p = o.platform;
  return {
    ...env,
    KRAKEN_TEMPORAL_ENGINE: o.engine,
    DATA_DIR: dataDir,
    SOURCE_DOCUMENTS_DIR: path.join(dataDir, 'source-documents'),
    LOG_LEVEL: base.LOG_LEVEL ?? 'warn',
    SANDBOX_SEED: String(o.seed),
    SANDBOX_LATENCY_MS: String(p.latencyMs),
    SANDBOX_LATENCY_JITTER_MS: String(p.latencyJitterMs),
    SANDBOX_PROCESSING_DELAY_MS: String(p.processingDelayMs),
    SANDBOX_PROCESSING_DELAY_JITTER_MS: String(p.processingDelayJitterMs),
    SANDBOX_FAULT_5XX_RATE: '0',
    SANDBOX_FAULT_429_RATE: '0',
    SANDBOX_FAULT_RESPONSE_LOST_RATE: '0',
    SANDBOX_EVENT_DROP_RATE: String(p.eventDropRate),
    SANDBOX_EVENT_DUPLICATE_RATE: '0',
    SANDBOX_EVENT_LATE_RATE: '0',
    SANDBOX_EVENT_REORDER: 'false',
    PLATFORM_RATE_LIMIT_PER_SECOND: String(p.rateLimitPerSecond),
    OUTCOME_EVENT_WAIT_SECONDS: String(o.eventWaitSeconds),
    OUTCOME_POLL_MAX_SECONDS: String(o.pollMaxSeconds),
    ...(o.maxCachedWorkflows !== undefined ? { WORKER_MAX_CACHED_WORKFLOWS: String(o.maxCachedWorkflows) } : {}),
  };
}

/** Events by SQS only (docker-compose.yml's route 1), as a deployment runs; set again after each sandbox start. */
async function oneEventRoute(stack: RunningStack): Promise<void> {
  await sandboxAdmin(stack.info.sandboxUrl, 'PUT', '/admin/event-targets', { webhookUrl: null });
}

const alive = (w: ManagedProcess) => w.child.exitCode === null && w.child.signalCode === null;

/**
 * One rehearsal (README, "Rehearsing a migration"): a fresh embedded stack, generated accounts with
 * ground truth, one migration run with a worker kill -9, a Temporal restart and a platform outage
 * in the middle, sampled every few seconds; the verdict from the sandbox and the ledger only.
 */
export async function runRehearsal(
  o: RehearsalOptions,
  opts: { env: Record<string, string | undefined>; dataDir: string; log: (line: string) => void; onStack?: (stop: () => Promise<void>) => void },
): Promise<RehearsalResult> {
  const { log, dataDir } = opts;
  fs.rmSync(dataDir, { recursive: true, force: true });
  const startedAt = new Date();
  const t0 = Date.now();
  const elapsed = () => `${Math.round((Date.now() - t0) / 1000)} s`;
  log(`rehearsal: ${o.accounts} accounts on the ${o.engine} engine, concurrency ${o.concurrency}, ${o.workers} workers, data in ${dataDir}`);
  const stack = await startStack({ env: rehearsalEnv(opts.env, dataDir, o), freePorts: true, workers: o.workers, log: (l) => log(`  stack: ${l}`) });
  opts.onStack?.(() => stack.stop());
  const pool = createPool(stack.env.DATABASE_URL, 4);
  let client: Client | undefined;
  const problems: string[] = [];
  try {
    client = await connectClient(stack.config);
    await oneEventRoute(stack);

    log(`[${elapsed()}] generating ${o.accounts} accounts (seed ${o.seed}, ${Math.round(o.defectRate * 100)}% with a planted defect)`);
    const truth: GroundTruth[] = [];
    const listFile = path.join(dataDir, 'lists', 'rehearsal.txt');
    fs.mkdirSync(path.dirname(listFile), { recursive: true });
    const list = fs.createWriteStream(listFile);
    function* items() {
      for (const item of generateDataset({ accounts: o.accounts, seed: o.seed, defectRate: o.defectRate, accountNumberPrefix: 'R-' })) {
        truth.push(item.expected);
        list.write(`${item.expected.external_account_number}\n`);
        yield item;
      }
    }
    await writeDatasetToPostgres(pool, items(), { documentsDir: stack.config.SOURCE_DOCUMENTS_DIR });
    await new Promise<void>((resolve, reject) => list.end((e?: Error | null) => (e ? reject(e) : resolve())));

    const runId = `rehearsal-${o.seed}-${Date.now().toString(36)}`;
    const input = migrationRunInputSchema.parse({
      runId,
      supplierCode: stack.config.IMPORT_SUPPLIER_CODE,
      source: { kind: 'postgres' },
      selection: { kind: 'list', path: listFile },
      concurrency: o.concurrency,
      timings: { eventWaitSeconds: o.eventWaitSeconds, pollMaxSeconds: o.pollMaxSeconds, supplierRecheckSeconds: 10 },
    });

    const steady = stack.workers()[0];
    const sampler = new StackSampler(
      () => ({
        steadyWorker: steady.pid,
        workers: stack
          .workers()
          .filter(alive)
          .map((w) => w.pid),
      }),
      o.sampleSeconds * 1000,
    ).start();
    const runStartMs = Date.now();
    await client.workflow.start('migrationRunWorkflow', {
      taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
      workflowId: runWorkflowId(runId),
      args: [input],
    });
    log(`[${elapsed()}] run ${runId} started; Temporal UI ${stack.info.temporalUiUrl}`);

    const faults = { workerKills: 0, serverRestarts: 0, stalls: 0 };
    const stalls: Stall[] = [];
    const outage = { seconds: 0, retryingSeenMax: 0, statusLines: [] as string[], startMs: 0, endMs: 0 };
    const pending = [
      ...(o.stallSeconds > 0 ? [{ at: 0.2, kind: 'stall' as const }] : []),
      { at: o.workerKillAt, kind: 'kill' as const },
      { at: o.serverRestartAt, kind: 'restart' as const },
      ...(o.outageSeconds > 0 ? [{ at: o.outageAt, kind: 'outage' as const }] : []),
    ].sort((a, b) => a.at - b.at);
    const replacements: Promise<unknown>[] = [];
    const victim = () => stack.workers().find((w) => w !== steady && alive(w));
    // A replacement booting while the Temporal server restarts may exit before it is ready, as a
    // worker does that cannot reach its server: a supervisor starts it again, and so does this.
    const startReplacement = async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await stack.startWorker();
        } catch (e) {
          if (attempt >= 3) return void problems.push(`replacement worker failed ${attempt} times: ${(e as Error).message}`);
          log(`  replacement worker did not start (${(e as Error).message.split('\n')[0]}); starting another`);
        }
      }
    };
    const deadline = t0 + o.timeoutMinutes * 60_000;
    let finished = 0;
    let lastLog = 0;
    let ended = false;
    let lastStatusCheck = 0;
    while (!ended) {
      // The run's status, not its result: a result call cut by the Temporal restart is no ending.
      if (Date.now() - lastStatusCheck > 5_000) {
        lastStatusCheck = Date.now();
        // The workflow id alone: the latest run of it, past any continue-as-new.
        const d = await client.workflow
          .getHandle(runWorkflowId(runId))
          .describe()
          .catch(() => undefined);
        if (d && d.status.name !== 'RUNNING') {
          ended = true;
          if (d.status.name !== 'COMPLETED') problems.push(`the run workflow ended ${d.status.name}`);
          break;
        }
      }
      finished = await finishedCount(pool, runId).catch(() => finished);
      while (pending.length && pending[0].at * o.accounts <= finished) {
        const f = pending.shift()!;
        log(`[${elapsed()}, ${finished}/${o.accounts}] ${f.kind}`);
        if (f.kind === 'kill') {
          const v = victim();
          if (!v) continue;
          await v.stop('SIGKILL', 5_000);
          faults.workerKills++;
          log(`  killed worker pid ${v.pid} (kill -9); starting a replacement`);
          replacements.push(startReplacement());
        } else if (f.kind === 'stall') {
          const v = victim();
          if (!v) continue;
          // Longer than the workflow-task timeout: the tasks it holds time out and go elsewhere.
          stalls.push(await stallWorker(v, o.stallSeconds * 1000));
          faults.stalls++;
          log(`  worker pid ${v.pid} frozen for ${o.stallSeconds} s and continued`);
        } else if (f.kind === 'restart') {
          await Promise.all(replacements);
          await stack.restartTemporal();
          faults.serverRestarts++;
          log('  Temporal server back on the same database');
        } else {
          outage.startMs = Date.now();
          await stack.stopPlatformServices();
          log(`  platform down for ${o.outageSeconds} s`);
          while (Date.now() - outage.startMs < o.outageSeconds * 1000) {
            // What `run status` shows an operator meanwhile: the accounts waiting on the platform.
            const retrying = await listRetryingAccounts(client, runId, { limit: 1000 }).catch(() => undefined);
            if (retrying && retrying.length > outage.retryingSeenMax) {
              outage.retryingSeenMax = retrying.length;
              outage.statusLines = [`Retrying (${retrying.length}):`, ...formatRetrying(retrying, 3)];
            }
            await sleep(Math.min(10_000, o.outageSeconds * 250));
          }
          await stack.startPlatformServices();
          await oneEventRoute(stack);
          outage.endMs = Date.now();
          outage.seconds = Math.round((outage.endMs - outage.startMs) / 1000);
          log(`  platform back after ${outage.seconds} s; ${outage.retryingSeenMax} accounts were seen waiting on it`);
        }
      }
      if (Date.now() > deadline) {
        problems.push(`the run did not end in ${o.timeoutMinutes} min (${finished}/${o.accounts} finished)`);
        break;
      }
      if (Date.now() - lastLog > 30_000) {
        lastLog = Date.now();
        const s = sampler.samples[sampler.samples.length - 1];
        log(`[${elapsed()}] ${finished}/${o.accounts} finished; worker RSS ${Math.round(s?.steadyWorkerRssMb ?? 0)} MB`);
      }
      await sleep(2_000);
    }
    const samples = sampler.stop();
    await Promise.all(replacements);
    const seconds = Math.round((Date.now() - runStartMs) / 1000);
    log(`[${elapsed()}] run ended after ${seconds} s`);
    for (const f of pending) problems.push(`fault ${f.kind} planned at ${f.at} never fired`);

    // The verdict: the ledger and the sandbox's ground truth only.
    const ledgerRows = await attemptOutcomes(pool, runId);
    const ledger = new Map<string, LedgerOutcome>(ledgerRows.map((r) => [r.external_account_number, r]));
    const gt = await sandboxAdmin<{ accounts: Array<PlatformTruth & { external_identifier: string }> }>(
      stack.info.sandboxUrl,
      'GET',
      `/admin/ground-truth?supplier=${encodeURIComponent(stack.config.IMPORT_SUPPLIER_CODE)}`,
    );
    const verdict = judge({ truth, ledger, platform: new Map(gt.accounts.map((a) => [a.external_identifier, a])), early: 0 });
    const outcomes: Record<string, number> = {};
    for (const r of ledgerRows) {
      const k = r.outcome === 'completed' ? 'completed' : `${r.outcome ?? 'none'}:${r.error_code ?? ''}`;
      outcomes[k] = (outcomes[k] ?? 0) + 1;
    }

    const finishes = await attemptFinishes(pool, runId);
    const tenths = tenthRows(runStartMs, finishes, samples);
    const g = goals(tenths);

    const sizes = await storeSizes(pool, o.engine === 'server' ? Object.values(TEMPORAL_DATABASES) : []);
    const temporalBytes = o.engine === 'server' ? Object.values(sizes.databases).reduce((s, b) => s + b, 0) : sqliteBytes(dataDir);
    const per1000 = (b: number) => Math.round((b / o.accounts) * 1000);

    let replay: RehearsalResult['replay'];
    if (o.replayCheck) {
      log(`[${elapsed()}] reading every workflow history of the run (nondeterminism, task timeouts)`);
      // Right after a server restart the visibility store may not answer yet: a few tries.
      let checked: ReplayCheckSummary | undefined;
      for (let attempt = 1; !checked; attempt++) {
        checked = await replayCheck(client, runId).catch((e: Error) => {
          if (attempt >= 5) throw e;
          log(`  replay check failed (${e.message}); again in 15 s`);
          return sleep(15_000).then(() => undefined);
        });
      }
      replay = { ...checked, stalls };
      log(
        `  ${replay.workflowsScanned} histories, ${replay.events} events: nondeterminism ${replay.nondeterminism}, task failures ${replay.workflowTaskFailed}, task timeouts ${replay.workflowTaskTimedOut} in ${replay.workflowsWithTimeouts} workflows (${replay.seconds} s)`,
      );
      if (replay.nondeterminism > 0) problems.push(`${replay.nondeterminism} nondeterminism errors, first: ${replay.failures[0]?.message ?? ''}`);
      if (o.stallSeconds > 0 && replay.workflowTaskTimedOut === 0) problems.push('the stall forced no workflow-task timeout');
    }

    let windows: ExpiredWindowsSummary | undefined;
    if (o.windowAccounts > 0) {
      // Clean accounts of their own (the main run's numbers are `R-…`), a third for each ending.
      const numbers: string[] = [];
      function* windowItems() {
        for (const item of generateDataset({
          accounts: o.windowAccounts,
          seed: o.seed + 1,
          defectRate: 0,
          accountNumberPrefix: 'W-',
          accountIdOffset: o.accounts,
        })) {
          numbers.push(item.expected.external_account_number);
          yield item;
        }
      }
      await writeDatasetToPostgres(pool, windowItems(), { documentsDir: stack.config.SOURCE_DOCUMENTS_DIR });
      const third = Math.max(1, Math.floor(numbers.length / 3));
      log(`[${elapsed()}] expired windows: ${numbers.length} accounts held by the platform (window ${o.windowSeconds} s)`);
      windows = await runExpiredWindowsPhase(
        { stack, client, pool, log: (l) => log(`  ${l}`) },
        {
          accountNumbers: {
            cancelled: numbers.slice(0, third),
            cancelledEventDropped: numbers.slice(third, 2 * third),
            neverAnswered: numbers.slice(2 * third),
          },
          windowSeconds: o.windowSeconds,
          pollMaxSeconds: Math.max(30, Math.round(o.windowSeconds / 2)),
          concurrency: 20,
          runIdPrefix: `${runId}-windows`,
        },
      );
      log(`  ${windows.line}`);
      if (!windows.passed) problems.push(`expired windows: ${windows.line}`);
    }

    let operatorCommands: RehearsalResult['operatorCommands'];
    if (o.ledgerRows > 0) {
      log(`[${elapsed()}] seeding the ledger with ${o.ledgerRows} attempts and timing the operator commands`);
      operatorCommands = {
        rows: o.ledgerRows,
        timings: await timeOperatorCommands(stack, o.ledgerRows, { root: ROOT, dir: path.join(dataDir, 'reports'), log }),
      };
    }

    const v = {
      lost: verdict.lost.length,
      duplicated: verdict.duplicated.length,
      reopened: verdict.reopened.length,
      wrong: verdict.wrong.length,
      examples: { lost: verdict.lost.slice(0, 10), duplicated: verdict.duplicated.slice(0, 10), wrong: verdict.wrong.slice(0, 10) },
    };
    if (faults.workerKills === 0) problems.push('no worker was killed');
    if (faults.serverRestarts === 0) problems.push('the Temporal server was not restarted');
    if (o.outageSeconds > 0 && outage.retryingSeenMax === 0) problems.push('no account was seen waiting on the platform during the outage');
    const rec = outage.endMs ? recovery(finishes, outage.startMs, outage.endMs) : null;
    return {
      options: o,
      startedAt: startedAt.toISOString(),
      seconds,
      machine: { cores: os.cpus().length, loadAvgAtEnd: os.loadavg().map((x) => Math.round(x * 100) / 100) },
      accounts: o.accounts,
      outcomes,
      verdict: v,
      faults: { ...faults, outage: { seconds: outage.seconds, retryingSeenMax: outage.retryingSeenMax, statusLines: outage.statusLines, recovery: rec } },
      tenths,
      goals: g,
      samples,
      storage: {
        temporalPer1000: per1000(temporalBytes),
        ledgerPer1000: per1000(sizes.ledger),
        inboxPer1000: per1000(sizes.inbox),
        sandboxPer1000: per1000(sizes.schemas.sandbox ?? 0),
        raw: {
          temporal: temporalBytes,
          ledger: sizes.ledger,
          inbox: sizes.inbox,
          ...Object.fromEntries(Object.entries(sizes.schemas).map(([k, b]) => [`schema:${k}`, b])),
        },
      },
      replay,
      windows,
      operatorCommands,
      passed: v.lost + v.duplicated + v.reopened + v.wrong === 0 && problems.length === 0,
      problems,
    };
  } finally {
    await client?.connection.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await stack.stop();
  }
}

/** The dev engine's SQLite database with its write-ahead log. */
function sqliteBytes(dataDir: string): number {
  let bytes = 0;
  for (const f of fs.readdirSync(dataDir)) if (f.startsWith('temporal.db')) bytes += fs.statSync(path.join(dataDir, f)).size;
  return bytes;
}
