import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { codecWarnings } from '../../../clients/temporal';
import { connectWorker } from '../../../clients/temporal-worker';
import { createDataConverter } from '../../../codec/data-converter';
import type { Config } from '../../../config';
import type { FloorRun } from '../results';
import { passFigures } from '../stats';
import { slidingWindow } from '../window';
import { createScriptMigrator } from '../plain-script';
import { ceilingActivities, floorActivities } from './activities';
import { createKeptPromises } from './kept';
import type { floorAccountWorkflow } from './workflows';

export const FLOOR_TASK_QUEUE = 'kraken-migrate-bench-floor';

/**
 * What each workflow of the pass does: `noop` is the floor (Temporal's own cost per account); `steps`
 * the floor in the pipeline account's shape (a local activity before and after its activity);
 * `ceiling` runs the plain script's per-account work as the one activity; `ceiling-kept` adds the
 * mission's read-back and one recorded outcome to that activity (floor/kept.ts).
 */
export type FloorWork = 'noop' | 'steps' | 'ceiling' | 'ceiling-kept';

const WORKFLOW: Record<FloorWork, string> = {
  noop: 'floorAccountWorkflow',
  steps: 'floorStepsWorkflow',
  ceiling: 'ceilingAccountWorkflow',
  'ceiling-kept': 'ceilingAccountWorkflow',
};
const scriptWork = (w: FloorWork) => w === 'ceiling' || w === 'ceiling-kept';

let bundle: ReturnType<typeof bundleWorkflowCode> | undefined;
/**
 * The floor's workflows, bundled once a process: built inside a pass, webpack's 0.7 – 1.8 s of CPU
 * (the first build the dearest) would be counted as that pass's (call it before the first pass).
 */
export function floorBundle() {
  bundle ??= bundleWorkflowCode({
    workflowsPath: path.resolve(__dirname, 'workflows.ts'),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => process.stderr.write(`${m}\n`), log() {} },
  });
  return bundle;
}

/**
 * The Temporal floor: one trivial workflow per account on the same server, with the same data
 * converter (payload encryption) and worker limits as the pipeline's worker, started `concurrency`
 * at a time. Its worker runs in this process on its own task queue. With `work: 'ceiling'` the
 * activity is the script's work, and there are as many activity slots as accounts in flight (the
 * script's concurrency), so the slots never bound it.
 */
export async function runFloor(opts: {
  config: Config;
  client: Client;
  accounts: readonly string[];
  concurrency: number;
  tag: string;
  work?: FloorWork;
}): Promise<FloorRun> {
  const { config, client } = opts;
  const work = opts.work ?? 'noop';
  quietRuntime();
  const migrator = scriptWork(work) ? createScriptMigrator(config, Math.min(opts.concurrency, 20)) : undefined;
  const kept = work === 'ceiling-kept' ? await createKeptPromises(config, Math.min(opts.concurrency, 20)) : undefined;
  const connection = await connectWorker(config);
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: FLOOR_TASK_QUEUE,
    dataConverter: createDataConverter(config, { logger: codecWarnings }),
    workflowBundle: await floorBundle(),
    activities: migrator ? ceilingActivities(migrator, kept) : floorActivities,
    maxConcurrentActivityTaskExecutions: migrator ? Math.max(50, opts.concurrency) : 50,
    maxConcurrentWorkflowTaskExecutions: 40,
    maxCachedWorkflows: 1000,
  });
  const latencies: number[] = [];
  const ends: number[] = [];
  const ids = opts.accounts.map((a) => `bench-${work === 'noop' ? 'floor' : work}/${opts.tag}/${a}`);
  let wallMs = 0;
  const results = await worker.runUntil(async () => {
    const started = performance.now();
    const r = await slidingWindow(opts.accounts, opts.concurrency, async (account, i) => {
      const t0 = performance.now();
      const out = await client.workflow.execute<typeof floorAccountWorkflow>(WORKFLOW[work], {
        taskQueue: FLOOR_TASK_QUEUE,
        workflowId: ids[i],
        args: [account],
      });
      const t1 = performance.now();
      latencies.push(t1 - t0);
      ends.push(t1);
      return out;
    });
    wallMs = performance.now() - started;
    return r;
  });
  await connection.close();
  await migrator?.close();
  await kept?.close();
  const completed = results.filter((r) => r.ok).length;
  const history = await historyLengths(client, ids.slice(0, 50));
  return passFigures({
    accounts: opts.accounts.length,
    concurrency: opts.concurrency,
    completed,
    wallMs,
    latenciesMs: latencies,
    endsMs: ends,
    historyLengths: history,
    loadAvg1: os.loadavg()[0],
  });
}

/** History length of a sample of executions (every floor workflow has the same shape). */
async function historyLengths(client: Client, workflowIds: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const id of workflowIds) {
    const d = await client.workflow
      .getHandle(id)
      .describe()
      .catch(() => undefined);
    if (d) out.push(d.historyLength);
  }
  return out;
}

let runtimeInstalled = false;
/** The SDK's default logger prints every worker state change at INFO; the bench wants its table. */
function quietRuntime() {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    /* a runtime already exists in this process: keep its logger */
  }
}
