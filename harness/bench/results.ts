import { z } from 'zod';

/** What `npm run bench` writes to bench/results.json. Optional sections were not run (see `skipped`). */

const loadSchema = z.tuple([z.number(), z.number(), z.number()]);

export const machineSchema = z.object({
  cpuModel: z.string(),
  cores: z.number().int(),
  memoryGb: z.number(),
  platform: z.string(),
  kernel: z.string(),
});

export const versionsSchema = z.object({
  node: z.string(),
  temporalCli: z.string(),
  temporalio: z.string(),
});

export const latencySchema = z.object({ p50Ms: z.number().optional(), p95Ms: z.number().optional(), maxMs: z.number().optional() });

/** What Postgres ran during a pass, per completed account (`measure/pg-statements.ts`). */
export const pgPassSchema = z.object({
  callsPerAccount: z.object({ pipeline: z.number(), sandbox: z.number(), either: z.number() }),
  nestedCallsPerAccount: z.number(),
  execMsPerAccount: z.number(),
  // Absent in results written before they were measured.
  walBytesPerAccount: z.number().optional(),
  walFpiPerAccount: z.number().optional(),
  autovacuums: z.number(),
  checkpoints: z.number(),
  top: z.array(
    z.object({
      query: z.string(),
      owner: z.enum(['pipeline', 'sandbox', 'either']),
      nested: z.boolean(),
      callsPerAccount: z.number(),
      msPerAccount: z.number(),
      rowsPerAccount: z.number(),
      walBytesPerAccount: z.number().optional(),
    }),
  ),
});

/** One pass of accounts through some implementation (the pipeline, the floor, the plain script). */
export const throughputRunSchema = z.object({
  accounts: z.number().int(),
  concurrency: z.number().int(),
  completed: z.number().int(),
  /** Accounts that did not end completed (failed, not attempted, or missing). */
  notCompleted: z.number().int(),
  wallSeconds: z.number(),
  accountsPerSecond: z.number(),
  /**
   * Accounts finished per second while the pass's window was full: between its `concurrency`-th and
   * (accounts − concurrency)-th finish (`stats.ts` steadyRate), without the ramp and the drain. Absent
   * for the plain script, in results written before it was measured, or in passes too short for it.
   */
  steadyAccountsPerSecond: z.number().optional(),
  latency: latencySchema,
  /**
   * The share of the pass's slots (concurrency × wall time) an account held: the sum of the latencies
   * over both. Below 1, slots stood empty between one account's end and the next one's start (absent
   * in results written before it was measured).
   */
  slotsBusy: z.number().optional(),
  /** 1-minute load average when the pass ended (the machine is shared). */
  loadAvg1: z.number(),
  /** CPU milliseconds per completed account by process group over the pass (`cpu.ts`). */
  cpuMsPerAccount: z.record(z.string(), z.number()).optional(),
  /** Postgres statements per completed account over the pass, when the server keeps statistics. */
  postgres: pgPassSchema.optional(),
});
export type ThroughputRun = z.infer<typeof throughputRunSchema>;

/** What one account cost in Temporal history and Cloud actions, its share of the run workflow included. */
export const historyCostSchema = z.object({
  accounts: z.number().int(),
  accountEventsPerAccount: z.number(),
  runEventsPerAccount: z.number(),
  eventsPerAccount: z.number(),
  actionsPerAccount: z.number(),
  actionsByKind: z.record(z.string(), z.number()),
  runSegments: z.number().int(),
});
export type HistoryCost = z.infer<typeof historyCostSchema>;

export const pipelineRunSchema = throughputRunSchema.extend({
  workers: z.number().int(),
  runId: z.string().optional(),
  /** Read from every history of the run (only for the passes the table's goals are read from). */
  cost: historyCostSchema.optional(),
  historyEventsPerAccount: z.number().optional(),
  workerPeakRssMb: z.number().optional(),
  temporalPeakRssMb: z.number().optional(),
  failedByCode: z.record(z.string(), z.number().int()),
  /** How the ledger's outcomes arrived (event, poll, …): with events on, "poll" means an event was missed. */
  outcomeSources: z.record(z.string(), z.number().int()),
  /** The events receiver's inbox rows for these accounts, by match status. */
  eventsByMatchStatus: z.record(z.string(), z.number().int()),
  /** Events that reached the inbox during the run without an external identifier (cannot be routed). */
  eventsUnidentified: z.number().int(),
});
export type PipelineRun = z.infer<typeof pipelineRunSchema>;

export const floorRunSchema = throughputRunSchema.extend({
  historyEventsPerAccount: z.number().optional(),
});
export type FloorRun = z.infer<typeof floorRunSchema>;

export const scriptRunSchema = throughputRunSchema.extend({
  peakRssMb: z.number().optional(),
  failedByCode: z.record(z.string(), z.number().int()),
});
export type ScriptRun = z.infer<typeof scriptRunSchema>;

export const repeatedSchema = z.object({ runs: z.array(z.number()), median: z.number().optional() });

export const sandboxBenchSchema = z.object({
  requestsPerRun: z.number().int(),
  concurrency: z.number().int(),
  requestsPerSecond: repeatedSchema,
  p50Ms: z.number().optional(),
  p95Ms: z.number().optional(),
  failed: z.number().int(),
});

export const memoryGrowthSchema = z.object({
  accounts: z.number().int(),
  /** Worker RSS (process tree, MB) each time another `every` accounts had finished. */
  samples: z.array(z.object({ finished: z.number().int(), workerRssMb: z.number() })),
  rssAtFirstMb: z.number().optional(),
  rssAtLastMb: z.number().optional(),
  growthMb: z.number().optional(),
  run: pipelineRunSchema,
});
export type MemoryGrowth = z.infer<typeof memoryGrowthSchema>;

/** What a round's three passes say together: its ratios, and the pipeline's CPU beside the ceiling's (ms an account). */
export const roundFiguresSchema = z.object({
  pipelineOverCeiling: z.number().optional(),
  pipelineOverFloor: z.number().optional(),
  /** The same two of the passes' steady rates (`steadyAccountsPerSecond`). */
  steadyPipelineOverCeiling: z.number().optional(),
  steadyPipelineOverFloor: z.number().optional(),
  cpuMsPerAccount: z.number().optional(),
  /** Less the tenant's stand-ins (bench/cpu-sums.ts): what a deployment runs. */
  cpuLessStandInsMs: z.number().optional(),
  postgresCpuMs: z.number().optional(),
  pipelineMinusCeilingCpuMs: z.number().optional(),
});
export type RoundFigures = z.infer<typeof roundFiguresSchema>;

/** `--rounds`: the pipeline, the floor and the ceiling once more each, in `order`, on fresh accounts. */
export const roundSchema = z.object({
  order: z.array(z.enum(['pipeline', 'floor', 'ceiling'])),
  pipeline: pipelineRunSchema,
  floor: floorRunSchema,
  ceiling: floorRunSchema,
  figures: roundFiguresSchema,
});
export type Round = z.infer<typeof roundSchema>;

export const roundsSchema = z.object({
  runs: z.array(roundSchema),
  /** Each figure's median over the rounds, and its lowest and highest. */
  median: roundFiguresSchema,
  min: roundFiguresSchema,
  max: roundFiguresSchema,
});
export type Rounds = z.infer<typeof roundsSchema>;

/**
 * One figure of the best pass against `baseline.json` (bench/baseline.ts): `rose` when above it by
 * more than its tolerance; `loadDependent` for CPU and memory (a flag that means something only on a quiet machine).
 */
export const baselineCheckSchema = z.object({ figure: z.string(), now: z.number(), baseline: z.number(), rose: z.boolean(), loadDependent: z.boolean() });
export type BaselineCheck = z.infer<typeof baselineCheckSchema>;

export const benchResultsSchema = z.object({
  startedAt: z.string(),
  finishedAt: z.string(),
  command: z.string(),
  mode: z.enum(['smoke', 'default']),
  eventWaitSeconds: z.number(),
  eventsRoute: z.enum(['sqs', 'webhook', 'both']).default('both'),
  /** False: the pipeline's runs did not read accounts back (`--no-read-back`). */
  readBack: z.boolean().default(true),
  machine: machineSchema,
  versions: versionsSchema,
  load: z.object({ atStart: loadSchema, atEnd: loadSchema }),
  /** The pipeline's best pass of its concurrency sweep (1 worker); its history cost is read in full. */
  endToEnd: pipelineRunSchema,
  pipelineSweep: z.array(pipelineRunSchema).default([]),
  /** The floor's peak over its concurrency sweep. */
  floor: floorRunSchema.optional(),
  floorSweep: z.array(floorRunSchema).default([]),
  /**
   * `--floor-steps`: the floor in the pipeline account's shape (a no-op local activity before and after
   * its activity), at the floor's concurrency: what two durable steps cost in Temporal and the worker.
   */
  floorSteps: floorRunSchema.optional(),
  plainScript: scriptRunSchema.optional(),
  /** The floor's shape with the script's whole per-account work as its one activity, at the script's concurrency. */
  ceiling: floorRunSchema.optional(),
  /**
   * `--ceiling-kept`: the ceiling's activity reading each account back and recording its one outcome
   * too (floor/kept.ts), at the ceiling's concurrency: the bound for a pipeline that keeps both promises.
   */
  ceilingKept: floorRunSchema.optional(),
  /** The best pipeline pass against the committed baseline; absent without a baseline file. */
  baseline: z.array(baselineCheckSchema).optional(),
  /** Accounts/s of one pass divided by another's (1 = as fast; 0.5 = half as fast). */
  ratios: z.object({
    pipelineOverFloor: z.number().optional(),
    pipelineOverScript: z.number().optional(),
    pipelineOverCeiling: z.number().optional(),
    ceilingOverFloor: z.number().optional(),
    ceilingOverScript: z.number().optional(),
    /** `--ceiling-kept`: what the read-back and one outcome cost the ceiling, and the pipeline against that bound. */
    keptOverCeiling: z.number().optional(),
    pipelineOverKept: z.number().optional(),
    /** `--floor-steps`: the floor in the pipeline's shape against the floor. */
    stepsOverFloor: z.number().optional(),
    /** The same ratios of the passes' steady rates (`steadyAccountsPerSecond`): the pace a long run keeps. */
    steady: z
      .object({
        pipelineOverFloor: z.number().optional(),
        pipelineOverCeiling: z.number().optional(),
        ceilingOverFloor: z.number().optional(),
        keptOverCeiling: z.number().optional(),
        pipelineOverKept: z.number().optional(),
        stepsOverFloor: z.number().optional(),
      })
      .optional(),
  }),
  /** `--rounds`: the ratios and CPU again in rounds of paired passes, judged on their medians. */
  rounds: roundsSchema.optional(),
  validation: z.object({ seconds: z.number(), payloadsPerSecondPerCore: repeatedSchema }).optional(),
  sandbox: sandboxBenchSchema.optional(),
  /** [0] the 1-worker pass (endToEnd), then each 2-worker pass, each on a fresh stack. */
  scaling: z.array(pipelineRunSchema).optional(),
  memory: memoryGrowthSchema.optional(),
  /** `--metrics-cost`: a fresh worker's pass with metrics on (scraped every 5 s), another's with metrics off; CPU ms per account. */
  metricsCost: z
    .object({
      on: pipelineRunSchema,
      off: pipelineRunSchema,
      scrapes: z.number().int(),
      workerOnOverOff: z.number().optional(),
      totalOnOverOff: z.number().optional(),
    })
    .optional(),
  skipped: z.array(z.string()),
  notes: z.array(z.string()),
  /** Every account of every pass completed. */
  ok: z.boolean(),
});
export type BenchResults = z.infer<typeof benchResultsSchema>;
