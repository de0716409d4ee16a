import { TIMING_DEFAULTS } from '../../domain/timing-defaults';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import type { Pool } from '../../clients/db';
import { attemptTimings, dbNow, finishedCount, inboxMatchCounts } from '../../ledger';
import type { Config } from '../../config';
import { writeDatasetToPostgres } from '../synthetic/dataset-postgres';
import { generateDataset, type DatasetItem } from '../synthetic/generator';
import { runWorkflowId } from '../../domain/workflow-ids';
import { migrationRunInputSchema } from '../../domain/inputs';
import type { migrationRunWorkflow } from '../../workflows/migration-run';
import { runHistoryCost } from './history-cost';
import { RssSampler, treeRssMb } from '../measure/proc-tree';
import type { PipelineRun } from './results';
import { passFigures, round } from './stats';

export interface SeededSet {
  name: string;
  accounts: string[];
  listFile: string;
  seedMs: number;
}

/**
 * Generates defect-free accounts into the legacy schema and writes their list file; streams, so 10k
 * is fine. Sets seeded into one database need disjoint `accountIdOffset`s (legacy primary keys).
 */
export async function seedSet(opts: { pool: Pool; config: Config; name: string; accounts: number; seed: number; accountIdOffset: number }): Promise<SeededSet> {
  const started = performance.now();
  const numbers: string[] = [];
  const prefix = `B${opts.name.toUpperCase().replace(/[^A-Z0-9]/g, '')}-`;
  function* items(): Generator<DatasetItem> {
    for (const item of generateDataset({
      accounts: opts.accounts,
      seed: opts.seed,
      defectRate: 0,
      accountNumberPrefix: prefix,
      accountIdOffset: opts.accountIdOffset,
    })) {
      numbers.push(item.expected.external_account_number);
      yield item;
    }
  }
  await writeDatasetToPostgres(opts.pool, items(), { documentsDir: opts.config.SOURCE_DOCUMENTS_DIR });
  const listFile = path.join(opts.config.DATA_DIR, 'lists', `${opts.name}.txt`);
  fs.mkdirSync(path.dirname(listFile), { recursive: true });
  fs.writeFileSync(listFile, `${numbers.join('\n')}\n`);
  return { name: opts.name, accounts: numbers, listFile, seedMs: Math.round(performance.now() - started) };
}

export interface PipelineTick {
  finished: number;
  workerRssMb: number;
}

/**
 * One migration run over a seeded set, timed from start to result. Worker and Temporal server
 * memory are sampled while it runs; latencies and outcomes come from the ledger afterwards.
 */
export async function runPipeline(opts: {
  config: Config;
  client: Client;
  pool: Pool;
  set: SeededSet;
  concurrency: number;
  workerPids: readonly number[];
  temporalPid?: number;
  /** Called about every `tickMs` with the ledger's finished count (memory growth). */
  onTick?: (t: PipelineTick) => void;
  tickMs?: number;
  /** Read every history of the run for events and actions per account (slow on big runs). */
  cost?: boolean;
  /** Another supplier than IMPORT_SUPPLIER_CODE (two cohorts side by side). */
  supplierCode?: string;
  /** The run's fairness weight (`run start --weight`). */
  weight?: number;
  /** False: created accounts are not read back (`--no-read-back`). */
  readBack?: boolean;
}): Promise<PipelineRun> {
  const { config, client, pool, set } = opts;
  const runId = `bench-${set.name}-${Date.now().toString(36)}`;
  const input = migrationRunInputSchema.parse({
    runId,
    supplierCode: opts.supplierCode ?? config.IMPORT_SUPPLIER_CODE,
    source: { kind: 'postgres' },
    selection: { kind: 'list', path: set.listFile },
    concurrency: opts.concurrency,
    ...(opts.weight !== undefined ? { weight: opts.weight } : {}),
    ...(opts.readBack === false ? { reconcile: false } : {}),
    timings: {
      eventWaitSeconds: config.OUTCOME_EVENT_WAIT_SECONDS,
      pollMaxSeconds: config.OUTCOME_POLL_MAX_SECONDS,
      supplierRecheckSeconds: TIMING_DEFAULTS.supplierRecheckSeconds,
    },
  });
  const sampler = new RssSampler(() => ({ worker: [...opts.workerPids], temporal: opts.temporalPid ? [opts.temporalPid] : [] })).start();
  let ticker: NodeJS.Timeout | undefined;
  if (opts.onTick) {
    const onTick = opts.onTick;
    let busy = false;
    ticker = setInterval(() => {
      if (busy) return;
      busy = true;
      void finishedCount(pool, runId)
        .then((finished) =>
          onTick({
            finished,
            workerRssMb: round(
              opts.workerPids.reduce((s, p) => s + treeRssMb(p), 0),
              1,
            ),
          }),
        )
        .catch(() => {})
        .finally(() => (busy = false));
    }, opts.tickMs ?? 2000);
  }

  const dbStart = await dbNow(pool);
  const started = performance.now();
  let wallMs: number;
  try {
    const handle = await client.workflow.start<typeof migrationRunWorkflow>('migrationRunWorkflow', {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: runWorkflowId(runId),
      args: [input],
    });
    await handle.result();
    wallMs = performance.now() - started;
  } finally {
    if (ticker) clearInterval(ticker);
  }
  const peaks = sampler.stop();
  const dbEnd = await dbNow(pool);
  if (opts.onTick)
    opts.onTick({
      finished: await finishedCount(pool, runId),
      workerRssMb: round(
        opts.workerPids.reduce((s, p) => s + treeRssMb(p), 0),
        1,
      ),
    });

  const rows = await attemptTimings(pool, runId);
  // Completed means the ledger says so, not the run's totals: the ledger is what operators trust.
  const completed = rows.filter((r) => r.outcome === 'completed').length;
  const failedByCode: Record<string, number> = {};
  for (const r of rows)
    if (r.outcome !== 'completed') failedByCode[r.error_code ?? r.outcome ?? 'unfinished'] = (failedByCode[r.error_code ?? r.outcome ?? 'unfinished'] ?? 0) + 1;
  const missing = set.accounts.length - rows.length;
  if (missing > 0) failedByCode.no_ledger_row = missing;
  const latencies = rows.filter((r) => r.ms !== null).map((r) => Number(r.ms));
  const ends = rows.filter((r) => r.outcome === 'completed' && r.finishedMs !== null).map((r) => Number(r.finishedMs));
  // Events on: how outcomes arrived, and what became of the platform's events for these accounts.
  const outcomeSources = countBy(rows.map((r) => r.outcome_source ?? 'none'));
  const inbox = await inboxMatchCounts(pool, set.accounts, dbStart, dbEnd);
  const history: number[] = [];
  for await (const wf of client.workflow.list({ query: `KmRunId = '${runId}' AND KmKind = 'account'` })) history.push(wf.historyLength);

  const cost = opts.cost ? await runHistoryCost(client, runId) : undefined;

  return {
    runId,
    workers: opts.workerPids.length,
    cost,
    ...passFigures({
      accounts: set.accounts.length,
      concurrency: opts.concurrency,
      completed,
      wallMs,
      latenciesMs: latencies,
      endsMs: ends,
      historyLengths: history,
      loadAvg1: os.loadavg()[0],
    }),
    workerPeakRssMb: Math.round(peaks.worker ?? 0),
    temporalPeakRssMb: opts.temporalPid ? Math.round(peaks.temporal ?? 0) : undefined,
    failedByCode,
    outcomeSources,
    eventsByMatchStatus: inbox.byStatus,
    eventsUnidentified: inbox.unidentified,
  };
}

function countBy(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
