import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { CommanderError } from 'commander';
import { z } from 'zod';
import { createPool, type Pool } from '../../clients/db';
import { connectClient } from '../../clients/temporal';
import { startStack, type RunningStack } from '../stack/stack';
import { floorBundle, runFloor } from './floor/run';
import { withPassCost } from '../measure/pass-cost';
import { enableStatementStats, PG_STATEMENT_SETTINGS } from '../measure/pg-statements';
import { renderReport } from './format';
import { machineInfo, versions } from './machine';
import { parseBenchArgs, type BenchOptions } from './options';
import { runPipeline, seedSet, type PipelineTick, type SeededSet } from './pipeline';
import { RssSampler } from '../measure/proc-tree';
import { runHistoryCost } from './history-cost';
import {
  benchResultsSchema,
  scriptRunSchema,
  type BenchResults,
  type FloorRun,
  type MemoryGrowth,
  type PipelineRun,
  type Round,
  type ScriptRun,
} from './results';
import { roundFigures, roundOrder, summarizeRounds } from './rounds';
import { benchSandbox } from './sandbox';
import { BASELINE_FILE, compareToBaseline, readBaseline } from './baseline';
import { benchEnv, findTemporalPid, routeEvents, serviceNodeArgs, workerEnv, workerNodeArgs } from './stack-env';
import { takeHeapSnapshots } from '../measure/heap-snapshots';
import { median, ratio, round } from './stats';

const ROOT = path.resolve(__dirname, '../..');
const t0 = Date.now();
const say = (m: string) => process.stderr.write(`[bench +${Math.round((Date.now() - t0) / 1000)}s] ${m}\n`);
const load = () => os.loadavg().map((x) => round(x, 2)) as [number, number, number];

/** Validation throughput, measured in a process of its own: `repeats` payloads/s figures. */
async function validationProcess(seconds: number, repeats: number): Promise<number[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [require.resolve('tsx/cli'), path.join(__dirname, 'validation.ts'), String(seconds), String(repeats), '--json'],
    { cwd: ROOT },
  );
  return z.array(z.number()).parse(JSON.parse(stdout.trim().split('\n').at(-1) ?? ''));
}

/** The plain script as its own process, like a team would run it; its process tree's RSS is sampled. */
async function runScriptProcess(stack: RunningStack, set: SeededSet, concurrency: number): Promise<ScriptRun> {
  const child = spawn(
    process.execPath,
    [require.resolve('tsx/cli'), path.join(__dirname, 'plain-script.ts'), '--list', set.listFile, '--concurrency', String(concurrency)],
    {
      cwd: ROOT,
      env: { ...process.env, ...stack.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const sampler = new RssSampler(() => ({ script: child.pid ? [child.pid] : [] })).start();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  const peak = sampler.stop().script;
  if (code !== 0) throw new Error(`plain script exited ${code}: ${stderr.split('\n').slice(-15).join('\n')}`);
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return scriptRunSchema.parse({ ...JSON.parse(last), peakRssMb: Math.round(peak ?? 0) });
}

async function memoryRun(ctx: Ctx, set: SeededSet, concurrency: number): Promise<MemoryGrowth> {
  const every = 1000;
  const samples: PipelineTick[] = [];
  const run = await runPipeline({
    ...ctx.common,
    concurrency,
    set,
    workerPids: ctx.workerPids,
    onTick: (t) => {
      // One sample per `every` finished accounts, plus the final one.
      const next = (samples.length + 1) * every;
      if (t.finished >= next || t.finished === set.accounts.length) {
        if (samples.at(-1)?.finished !== t.finished) samples.push(t);
        say(`memory run: ${t.finished}/${set.accounts.length} finished, worker RSS ${t.workerRssMb} MB`);
      }
    },
  });
  const first = samples[0];
  const last = samples.at(-1);
  return {
    accounts: set.accounts.length,
    samples: samples.map((s) => ({ finished: s.finished, workerRssMb: s.workerRssMb })),
    rssAtFirstMb: first?.workerRssMb,
    rssAtLastMb: last?.workerRssMb,
    growthMb: first && last ? round(last.workerRssMb - first.workerRssMb, 1) : undefined,
    run,
  };
}

interface Ctx {
  stack: RunningStack;
  client: Client;
  pool: Pool;
  workerPids: number[];
  /** The pool statement statistics are read through, when the server keeps them. */
  stats?: Pool;
  common: { config: RunningStack['config']; client: Client; pool: Pool; temporalPid?: number; readBack: boolean };
}

async function main(opts: BenchOptions): Promise<BenchResults> {
  const startedAt = new Date().toISOString();
  const atStart = load();
  // Before the stack starts: the figure is one core's, so it is taken while the cores are idle.
  say(`validation: ${opts.repeats} × ${opts.validationSeconds} s, in its own process`);
  const validationRuns = await validationProcess(opts.validationSeconds, opts.repeats);
  const dataDir = path.join(ROOT, '.data', 'bench');
  fs.rmSync(dataDir, { recursive: true, force: true });
  say(`starting the stack in ${path.relative(ROOT, dataDir)} with the ${opts.engine} Temporal engine (load ${atStart.join(' ')})`);
  const stack = await startStack({
    env: benchEnv(dataDir, opts.eventWaitSeconds, opts.engine),
    freePorts: true,
    workers: 0,
    log: (l) => say(`stack: ${l}`),
    postgresSettings: PG_STATEMENT_SETTINGS,
    serviceNodeArgs: serviceNodeArgs(opts),
  });
  await routeEvents(stack, opts.eventsRoute);
  const stopOnSignal = () => {
    say('interrupted: stopping the stack');
    void stack.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  // The stack waits for the worker ready file; info level keeps one log line per account for diagnosis:
  // workers log at info (about one line per account), everything else at warn.
  const startWorker = async () => (await stack.startWorker(workerEnv(opts), workerNodeArgs(opts))).pid;
  let client: Client | undefined;
  let pool: Pool | undefined;
  try {
    say('starting worker 1');
    const firstWorker = await startWorker();
    client = await connectClient(stack.config);
    pool = createPool(stack.config.DATABASE_URL!, 5);
    return await measure(opts, startedAt, atStart, validationRuns, stack, client, pool, firstWorker, startWorker);
  } finally {
    await client?.connection.close().catch(() => {});
    await pool?.end().catch(() => {});
    say('stopping the stack');
    await stack.stop();
  }
}

async function measure(
  opts: BenchOptions,
  startedAt: string,
  atStart: [number, number, number],
  vRuns: number[],
  stack: RunningStack,
  client: Client,
  pool: Pool,
  firstWorker: number,
  _startWorker: () => Promise<number>,
): Promise<BenchResults> {
  const temporalPid = findTemporalPid();
  const stats = (await enableStatementStats(pool)) ? pool : undefined;
  const ctx: Ctx = {
    stack,
    client,
    pool,
    stats,
    workerPids: [firstWorker],
    common: { config: stack.config, client, pool, temporalPid, readBack: opts.readBack },
  };
  const notes: string[] = [];
  if (!stats) notes.push('Postgres keeps no statement statistics (pg_stat_statements not loaded): no Postgres calls per account');
  const skipped: string[] = [];
  if (!temporalPid) notes.push('Temporal server process not found: its RSS is not reported');

  const seed = seeder(pool, stack);
  // Every pass gets its own accounts, all seeded before anything is timed.
  const sets = {
    warmup: opts.mode === 'default' ? await seed('warmup', 20, 90) : undefined,
    sweep: await (async () => {
      const out: SeededSet[] = [];
      for (const [i, c] of opts.concurrency.entries()) out.push(await seed(`e2e${c}`, opts.accounts, 100 + i));
      return out;
    })(),
    script: opts.script ? await seed('script', opts.accounts, 92) : undefined,
    ceiling: opts.script && opts.floor ? await seed('ceiling', opts.accounts, 91) : undefined,
    ceilingKept: opts.ceilingKept ? await seed('ceiling-kept', opts.accounts, 94) : undefined,
    memory: opts.memoryAccounts > 0 ? await seed('memory', opts.memoryAccounts, 93) : undefined,
    // Each round's pipeline and ceiling take their own accounts (the floor's no-op needs none of its own).
    rounds: await (async () => {
      const out: Array<{ pipeline: SeededSet; ceiling: SeededSet }> = [];
      for (let i = 0; i < opts.rounds; i++)
        out.push({
          pipeline: await seed(`round${i + 1}`, opts.accounts, 200 + 2 * i),
          ceiling: await seed(`round${i + 1}-ceiling`, opts.accounts, 201 + 2 * i),
        });
      return out;
    })(),
  };

  if (sets.warmup) {
    say('warm-up run (20 accounts, not reported)');
    await runPipeline({ ...ctx.common, concurrency: 50, set: sets.warmup, workerPids: ctx.workerPids });
  }
  const probe = opts.heapProbeDir && opts.heapSnapshots ? heapSnapshotsAt(opts.heapProbeDir, firstWorker, notes) : undefined;
  await probe?.atRest();

  // The pipeline at each concurrency of its sweep; the best pass is the table's pipeline figure.
  const pipelineSweep: PipelineRun[] = [];
  for (const [i, concurrency] of opts.concurrency.entries()) {
    say(`end-to-end: ${opts.accounts} accounts, 1 worker, concurrency ${concurrency}`);
    const onTick = i === 0 ? probe?.inFlight(opts.accounts, concurrency) : undefined;
    const r = await withPassCost(ctx.stats, () => runPipeline({ ...ctx.common, concurrency, set: sets.sweep[i], workerPids: ctx.workerPids, onTick }));
    await probe?.settled();
    say(`end-to-end @${concurrency}: ${r.accountsPerSecond} acc/s, ${r.completed}/${r.accounts} completed`);
    pipelineSweep.push(r);
  }
  const best = pipelineSweep.reduce((a, b) => (b.accountsPerSecond > a.accountsPerSecond ? b : a));
  say(`reading every history of the best pass (concurrency ${best.concurrency}) for events and actions`);
  const endToEnd: PipelineRun = { ...best, cost: best.runId ? await runHistoryCost(client, best.runId) : undefined };
  say(`history cost: ${endToEnd.cost?.eventsPerAccount} events, ${endToEnd.cost?.actionsPerAccount} actions per account`);

  let floor: BenchResults['floor'];
  const floorSweep: NonNullable<BenchResults['floor']>[] = [];
  if (opts.floor) {
    await floorBundle();
    for (const concurrency of opts.floorConcurrency) {
      say(`Temporal floor: ${opts.accounts} trivial workflows, concurrency ${concurrency}`);
      const f = await withPassCost(ctx.stats, () =>
        runFloor({ config: stack.config, client, accounts: sets.sweep[0].accounts, concurrency, tag: `${concurrency}-${Date.now().toString(36)}` }),
      );
      say(`Temporal floor @${concurrency}: ${f.accountsPerSecond} acc/s`);
      floorSweep.push(f);
    }
    floor = floorSweep.reduce((a, b) => (b.accountsPerSecond > a.accountsPerSecond ? b : a));
  } else skipped.push('Temporal floor (--no-floor)');

  // The floor in the pipeline account's shape, beside the floor's peak: what two durable steps cost with no work in them.
  let floorSteps: FloorRun | undefined;
  if (floor && opts.floorSteps) {
    const concurrency = floor.concurrency;
    say(`floor-steps: ${opts.accounts} no-op workflows in the pipeline's shape (local activity, activity, local activity), concurrency ${concurrency}`);
    floorSteps = await withPassCost(ctx.stats, () =>
      runFloor({ config: stack.config, client, accounts: sets.sweep[0].accounts, concurrency, tag: `steps-${Date.now().toString(36)}`, work: 'steps' }),
    );
    say(`floor-steps: ${floorSteps.accountsPerSecond} acc/s, ${floorSteps.completed}/${floorSteps.accounts} completed`);
  }

  let plainScript: ScriptRun | undefined;
  if (sets.script) {
    say(`plain script: ${opts.accounts} accounts, concurrency ${endToEnd.concurrency} (the pipeline's best)`);
    // The script's process ends with the pass: its CPU is the bench's reaped-children time.
    plainScript = await withPassCost(ctx.stats, () => runScriptProcess(stack, sets.script!, endToEnd.concurrency), 'script');
    say(`plain script: ${plainScript.accountsPerSecond} acc/s, ${plainScript.completed}/${plainScript.accounts} completed`);
  } else skipped.push('plain script (--no-script)');

  // A ceiling pass: the script's work as the floor's one activity, at the pipeline's best concurrency.
  const ceilingPass = async (work: 'ceiling' | 'ceiling-kept', set: SeededSet, what: string) => {
    say(`${work}: ${opts.accounts} accounts, ${what}, concurrency ${endToEnd.concurrency}`);
    const r = await withPassCost(ctx.stats, () =>
      runFloor({ config: stack.config, client, accounts: set.accounts, concurrency: endToEnd.concurrency, tag: `${work}-${Date.now().toString(36)}`, work }),
    );
    say(`${work}: ${r.accountsPerSecond} acc/s, ${r.completed}/${r.accounts} completed`);
    return r;
  };
  // What any pipeline doing the script's work under Temporal could reach here: the bound for both ratios.
  const ceiling = sets.ceiling ? await ceilingPass('ceiling', sets.ceiling, "the script's work as the floor's one activity") : undefined;
  if (!sets.ceiling) skipped.push('ceiling (needs the floor and the script)');
  // The ceiling that also keeps the read-back and one outcome: what those two promises cost at least.
  const ceilingKept = sets.ceilingKept
    ? await ceilingPass('ceiling-kept', sets.ceilingKept, "the ceiling's work plus the read-back and one outcome")
    : undefined;

  let rounds: BenchResults['rounds'];
  if (floor && sets.rounds.length > 0) {
    const runs: Round[] = [];
    for (const [i, set] of sets.rounds.entries()) {
      const order = roundOrder(i);
      say(`round ${i + 1}/${sets.rounds.length}: ${order.join(', ')} (${opts.accounts} accounts each)`);
      const passes: { pipeline?: PipelineRun; floor?: FloorRun; ceiling?: FloorRun } = {};
      for (const pass of order) {
        if (pass === 'pipeline')
          passes.pipeline = await withPassCost(ctx.stats, () =>
            runPipeline({ ...ctx.common, concurrency: endToEnd.concurrency, set: set.pipeline, workerPids: ctx.workerPids }),
          );
        else {
          const work =
            pass === 'ceiling'
              ? { accounts: set.ceiling.accounts, concurrency: endToEnd.concurrency, work: 'ceiling' as const }
              : { accounts: sets.sweep[0].accounts, concurrency: floor.concurrency };
          passes[pass] = await withPassCost(ctx.stats, () =>
            runFloor({ config: stack.config, client, tag: `round${i + 1}-${pass}-${Date.now().toString(36)}`, ...work }),
          );
        }
      }
      const done = { pipeline: passes.pipeline!, floor: passes.floor!, ceiling: passes.ceiling! };
      const figures = roundFigures(done);
      runs.push({ order, ...done, figures });
      say(
        `round ${i + 1}: pipeline ${done.pipeline.accountsPerSecond}, floor ${done.floor.accountsPerSecond}, ceiling ${done.ceiling.accountsPerSecond} acc/s; pipeline / ceiling ${figures.pipelineOverCeiling}, / floor ${figures.pipelineOverFloor} (steady ${figures.steadyPipelineOverCeiling}, ${figures.steadyPipelineOverFloor}); CPU ${figures.cpuMsPerAccount} ms`,
      );
    }
    rounds = summarizeRounds(runs);
  }

  let memory: MemoryGrowth | undefined;
  if (sets.memory) {
    say(`memory growth: ${opts.memoryAccounts} accounts in one run, 1 worker`);
    memory = await memoryRun(ctx, sets.memory, endToEnd.concurrency);
  } else skipped.push('memory growth (opt-in: --memory [accounts])');

  let metricsCost: BenchResults['metricsCost'];
  if (opts.metricsCost) metricsCost = await metricsCostPasses(opts, ctx, seed, endToEnd.concurrency);
  else skipped.push('metrics on vs off (opt-in: --metrics-cost)');

  say(`sandbox: ${opts.repeats} × ${opts.sandboxRequests} schedule requests`);
  const sRuns = [];
  for (let i = 0; i < opts.repeats; i++) {
    sRuns.push(
      await benchSandbox({
        baseUrl: stack.info.sandboxUrl,
        apiKey: stack.env.PLATFORM_API_KEY,
        requests: opts.sandboxRequests,
        concurrency: opts.sandboxConcurrency,
        supplier: stack.config.IMPORT_SUPPLIER_CODE,
      }),
    );
  }
  const medianRun = [...sRuns].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(sRuns.length / 2)];

  let scaling: BenchResults['scaling'];
  if (opts.scaling) {
    scaling = [endToEnd];
    for (let i = 1; i <= opts.scalingRepeats; i++) {
      say(
        `scaling ${i}/${opts.scalingRepeats}: a fresh stack (fresh Temporal database), 2 workers, ${opts.accounts} accounts, concurrency ${endToEnd.concurrency}`,
      );
      scaling.push(await freshStackPass(opts, i, endToEnd.concurrency));
      say(`scaling ${i}/${opts.scalingRepeats}: ${scaling.at(-1)!.accountsPerSecond} acc/s with 2 workers`);
    }
  } else skipped.push(opts.mode === 'smoke' ? 'scaling (smoke)' : 'scaling (--no-scaling)');

  notes.push(
    'worker processes log at info (one line per account outcome, as in production); the rest of the stack at warn',
    'the events receiver runs in a process of its own (`events`, the pipeline’s), apart from the platform sandbox (`sandbox`); the floor’s worker runs inside the bench process, the pipeline’s workers and the plain script are separate processes',
    'the floor uses the pipeline’s data converter (AES-GCM payload encryption) and worker limits, so the ratio isolates what the pipeline does beyond Temporal’s minimum',
    'latency: pipeline = ledger, account started by the run → outcome recorded; floor = client, workflow start → result; script = account read → terminal import status',
  );
  if (opts.cpuProfileDir) {
    notes.push(
      `the pipeline workers, the events receiver and the sandbox ran under the CPU profiler (profiles in ${opts.cpuProfileDir}): their figures are slower than an unprofiled run's`,
    );
  }
  const passes = [
    ...pipelineSweep,
    ...floorSweep,
    floorSteps,
    plainScript,
    ceiling,
    ceilingKept,
    ...(rounds?.runs.flatMap((r) => [r.pipeline, r.floor, r.ceiling]) ?? []),
    memory?.run,
    metricsCost?.on,
    metricsCost?.off,
    ...(scaling ?? []).slice(1),
  ].filter((p) => p !== undefined);
  const pipelineRuns = [...pipelineSweep, ...(rounds?.runs.map((r) => r.pipeline) ?? []), memory?.run, ...(scaling ?? []).slice(1)].filter(
    (p) => p !== undefined,
  );
  const polled = pipelineRuns.reduce((n, p) => n + (p.outcomeSources.poll ?? 0), 0);
  const unidentified = pipelineRuns.reduce((n, p) => n + p.eventsUnidentified, 0);
  if (polled > 0) {
    notes.push(
      `${polled} pipeline outcome(s) came from status polling: their event had not reached the workflow within OUTCOME_EVENT_WAIT_SECONDS (${stack.config.OUTCOME_EVENT_WAIT_SECONDS} s), which those accounts' latency includes` +
        (unidentified > 0 ? `; ${unidentified} event(s) arrived without an account number and could not be routed` : ''),
    );
  }
  const baseline = readBaseline(path.join(ROOT, BASELINE_FILE));
  return benchResultsSchema.parse({
    startedAt,
    baseline: baseline ? compareToBaseline({ endToEnd }, baseline) : undefined,
    finishedAt: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    mode: opts.mode,
    eventWaitSeconds: stack.config.OUTCOME_EVENT_WAIT_SECONDS,
    eventsRoute: opts.eventsRoute,
    readBack: opts.readBack,
    machine: machineInfo(),
    versions: versions(ROOT),
    load: { atStart, atEnd: load() },
    endToEnd,
    pipelineSweep,
    floor,
    floorSweep,
    floorSteps,
    plainScript,
    ceiling,
    ceilingKept,
    rounds,
    ratios: {
      pipelineOverFloor: roundOpt(ratio(endToEnd.accountsPerSecond, floor?.accountsPerSecond)),
      pipelineOverScript: roundOpt(ratio(endToEnd.accountsPerSecond, plainScript?.accountsPerSecond)),
      pipelineOverCeiling: roundOpt(ratio(endToEnd.accountsPerSecond, ceiling?.accountsPerSecond)),
      ceilingOverFloor: roundOpt(ratio(ceiling?.accountsPerSecond, floor?.accountsPerSecond)),
      ceilingOverScript: roundOpt(ratio(ceiling?.accountsPerSecond, plainScript?.accountsPerSecond)),
      keptOverCeiling: roundOpt(ratio(ceilingKept?.accountsPerSecond, ceiling?.accountsPerSecond)),
      pipelineOverKept: roundOpt(ratio(endToEnd.accountsPerSecond, ceilingKept?.accountsPerSecond)),
      stepsOverFloor: roundOpt(ratio(floorSteps?.accountsPerSecond, floor?.accountsPerSecond)),
      steady: {
        pipelineOverFloor: roundOpt(ratio(endToEnd.steadyAccountsPerSecond, floor?.steadyAccountsPerSecond)),
        pipelineOverCeiling: roundOpt(ratio(endToEnd.steadyAccountsPerSecond, ceiling?.steadyAccountsPerSecond)),
        ceilingOverFloor: roundOpt(ratio(ceiling?.steadyAccountsPerSecond, floor?.steadyAccountsPerSecond)),
        keptOverCeiling: roundOpt(ratio(ceilingKept?.steadyAccountsPerSecond, ceiling?.steadyAccountsPerSecond)),
        pipelineOverKept: roundOpt(ratio(endToEnd.steadyAccountsPerSecond, ceilingKept?.steadyAccountsPerSecond)),
        stepsOverFloor: roundOpt(ratio(floorSteps?.steadyAccountsPerSecond, floor?.steadyAccountsPerSecond)),
      },
    },
    validation: { seconds: opts.validationSeconds, payloadsPerSecondPerCore: { runs: vRuns, median: median(vRuns) } },
    sandbox: {
      requestsPerRun: opts.sandboxRequests,
      concurrency: opts.sandboxConcurrency,
      requestsPerSecond: { runs: sRuns.map((r) => r.requestsPerSecond), median: median(sRuns.map((r) => r.requestsPerSecond)) },
      p50Ms: medianRun?.p50Ms,
      p95Ms: medianRun?.p95Ms,
      failed: sRuns.reduce((s, r) => s + r.failed, 0),
    },
    scaling,
    memory,
    metricsCost,
    skipped,
    notes,
    ok: passes.every((p) => p.notCompleted === 0),
  });
}

/**
 * What serving metrics costs a worker: the stack's worker stops; a fresh worker with metrics on,
 * scraped every 5 s as Prometheus would (compose scrapes every 15 s), runs a warm-up and a pass; it
 * stops, and a fresh worker with metrics off does the same. Both start cold, so neither pass has
 * the other's JIT. CPU per account by group, and the ratios on/off of the worker's and of the total.
 */
async function metricsCostPasses(opts: BenchOptions, ctx: Ctx, seed: ReturnType<typeof seeder>, concurrency: number): Promise<BenchResults['metricsCost']> {
  const sets = {
    warmOn: await seed('metrics-warm-on', 20, 94),
    on: await seed('metrics-on', opts.accounts, 95),
    warmOff: await seed('metrics-warm-off', 20, 96),
    off: await seed('metrics-off', opts.accounts, 97),
  };
  const pass = async (label: 'on' | 'off') => {
    for (const w of ctx.stack.workers()) await w.stop('SIGTERM', 15_000);
    const name = `worker-${ctx.stack.workers().length + 1}`;
    const pid = (await ctx.stack.startWorker({ ...workerEnv(opts), ...(label === 'off' ? { METRICS_ADDRESS: '' } : {}) })).pid;
    ctx.workerPids = [pid];
    const url = ctx.stack.info.metrics[name];
    if ((label === 'on') !== (url !== undefined)) throw new Error(`metrics ${label}: ${name} serves ${url ?? 'no metrics'}`);
    say(
      `metrics ${label}: warm-up (20 accounts), then ${opts.accounts} accounts at concurrency ${concurrency}, ${name}${url ? ` scraped every 5 s at ${url}` : ''}`,
    );
    await runPipeline({ ...ctx.common, concurrency, set: label === 'on' ? sets.warmOn : sets.warmOff, workerPids: ctx.workerPids });
    let scrapes = 0;
    const scraper = url
      ? setInterval(() => {
          void fetch(url).then(
            (r) => r.text().then(() => scrapes++),
            () => {},
          );
        }, 5000)
      : undefined;
    try {
      const r = await withPassCost(ctx.stats, () =>
        runPipeline({ ...ctx.common, concurrency, set: label === 'on' ? sets.on : sets.off, workerPids: ctx.workerPids }),
      );
      say(`metrics ${label}: worker ${r.cpuMsPerAccount?.worker} ms CPU an account, ${r.completed}/${r.accounts} completed, ${scrapes} scrapes`);
      return { r, scrapes };
    } finally {
      clearInterval(scraper);
    }
  };
  const on = await pass('on');
  const off = await pass('off');
  const total = (r: PipelineRun) => Object.values(r.cpuMsPerAccount ?? {}).reduce((a, b) => a + b, 0);
  return {
    on: on.r,
    off: off.r,
    scrapes: on.scrapes,
    workerOnOverOff: roundOpt(ratio(on.r.cpuMsPerAccount?.worker, off.r.cpuMsPerAccount?.worker)),
    totalOnOverOff: roundOpt(ratio(total(on.r), total(off.r))),
  };
}

/**
 * `--heap-probe`: heap snapshots of the first worker at rest (after the warm-up, its workflows gone)
 * and once in the first pass, when the run holds its full window of accounts in flight (half-way
 * through the accounts beyond the first window). `heap-compare.ts` compares the two.
 */
function heapSnapshotsAt(dir: string, pid: number, notes: string[]) {
  let pending: Promise<unknown> | undefined;
  return {
    async atRest() {
      const s = await takeHeapSnapshots(dir, pid);
      say(`heap snapshots at rest: ${s.dir}/${s.n}-*.heapsnapshot`);
    },
    inFlight(accounts: number, concurrency: number): ((t: PipelineTick) => void) | undefined {
      const at = Math.max(1, Math.ceil((accounts - concurrency) / 2));
      if (accounts - at < concurrency) {
        notes.push(`heap probe: ${accounts} accounts never hold ${concurrency} in flight past the first outcome: no snapshot in flight (use more accounts)`);
        return undefined;
      }
      return (t) => {
        if (pending || t.finished < at || accounts - t.finished < concurrency) return;
        pending = takeHeapSnapshots(dir, pid).then((s) => {
          say(`heap snapshots with ${concurrency} accounts in flight (${t.finished} finished): ${s.dir}/${s.n}-*.heapsnapshot`);
          notes.push(`heap probe: snapshots ${s.dir}/${s.n}-* with ${concurrency} accounts in flight; the pass stalled while they were written`);
        });
      };
    },
    settled: () => pending,
  };
}

/** Seeds sets into one stack's database with disjoint legacy ids. */
function seeder(pool: Pool, stack: RunningStack) {
  let nextAccountId = 0;
  return async (name: string, accounts: number, seedNo: number) => {
    const offset = nextAccountId;
    nextAccountId += 2 * accounts; // room for the generator's duplicate records, should defects ever be on
    const s = await seedSet({ pool, config: stack.config, name, accounts, seed: seedNo, accountIdOffset: offset });
    say(`seeded ${name}: ${accounts} accounts in ${(s.seedMs / 1000).toFixed(1)} s`);
    return s;
  };
}

/** One 2-worker pass on a stack of its own (a fresh Temporal database), stopped afterwards. */
async function freshStackPass(opts: BenchOptions, i: number, concurrency: number): Promise<PipelineRun> {
  const dataDir = path.join(ROOT, '.data', `bench-scale-${i}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  const stack = await startStack({
    env: benchEnv(dataDir, opts.eventWaitSeconds, opts.engine),
    freePorts: true,
    workers: 0,
    log: (l) => say(`scale stack ${i}: ${l}`),
    postgresSettings: PG_STATEMENT_SETTINGS,
  });
  await routeEvents(stack, opts.eventsRoute);
  let client: Client | undefined;
  let pool: Pool | undefined;
  try {
    const workerPids = [
      (await stack.startWorker(workerEnv(opts), workerNodeArgs(opts))).pid,
      (await stack.startWorker(workerEnv(opts), workerNodeArgs(opts))).pid,
    ];
    const c = (client = await connectClient(stack.config));
    const p = (pool = createPool(stack.config.DATABASE_URL!, 5));
    const seed = seeder(p, stack);
    const warmup = await seed('warmup', 20, 90);
    const set = await seed('scale2', opts.accounts, 94 + i);
    const readBack = opts.readBack;
    await runPipeline({ config: stack.config, client: c, pool: p, concurrency, set: warmup, workerPids, readBack });
    const stats = (await enableStatementStats(p)) ? p : undefined;
    return await withPassCost(stats, () =>
      runPipeline({ config: stack.config, client: c, pool: p, concurrency, set, workerPids, temporalPid: findTemporalPid(), readBack }),
    );
  } finally {
    await client?.connection.close().catch(() => {});
    await pool?.end().catch(() => {});
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const roundOpt = (n: number | undefined) => (n === undefined ? undefined : round(n, 2));

if (require.main === module) {
  let opts: BenchOptions;
  try {
    opts = parseBenchArgs(process.argv.slice(2));
  } catch (e) {
    // commander has already printed the usage or the error.
    process.exit(e instanceof CommanderError ? e.exitCode : 2);
  }
  main(opts)
    .then((results) => {
      const out = path.resolve(ROOT, opts.out);
      fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
      process.stdout.write(`${renderReport(results)}\n\nwrote ${path.relative(ROOT, out)}\n`);
      // CI runs the smoke: any account that did not complete fails the job.
      process.exit(results.ok ? 0 : 1);
    })
    .catch((e: unknown) => {
      process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
      process.exit(1);
    });
}
