import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { z } from 'zod';

export const benchOptionsSchema = z
  .object({
    mode: z.enum(['smoke', 'default']),
    /** KRAKEN_TEMPORAL_ENGINE of the bench's stack: the CLI dev server or the Temporal server on Postgres. */
    engine: z.enum(['dev', 'server']),
    accounts: z.number().int().min(1),
    /** The pipeline's concurrency sweep: one pass each; the table's pipeline figure is the best. */
    concurrency: z.array(z.number().int().min(1).max(500)).min(1),
    /** The floor's concurrency sweep: the floor's peak is what the pipeline is compared with. */
    floorConcurrency: z.array(z.number().int().min(1).max(1000)).min(1),
    /** 2-worker passes, each on a fresh stack (fresh Temporal database); reported with their spread. */
    scalingRepeats: z.number().int().min(1),
    floor: z.boolean(),
    script: z.boolean(),
    scaling: z.boolean(),
    /**
     * Whether the pipeline's accounts are read back and reconciled once created (a run's default). Off,
     * the pipeline does the ceiling's work and no more: the two passes then compare like with like.
     */
    readBack: z.boolean(),
    /**
     * One pass more after the ceiling: the ceiling's activity that also reads the account back and
     * records its one outcome (floor/kept.ts), the bound for a pipeline that keeps those two promises.
     */
    ceilingKept: z.boolean(),
    /**
     * One pass more after the floor's sweep, at its peak's concurrency: the floor in the pipeline
     * account's shape (a no-op local activity before and after its activity, floor/workflows.ts),
     * the price of two durable steps in Temporal and the worker alone.
     */
    floorSteps: z.boolean(),
    /**
     * Rounds after the main passes: the pipeline, the floor and the ceiling again, each on fresh
     * accounts at the main passes' concurrencies, their order reversed every other round. The host's
     * speed drifts by a third between passes minutes apart, so a ratio is judged on the median of
     * its rounds, each pass beside the others of its round (bench/rounds.ts); 0 = none.
     */
    rounds: z.number().int().min(0),
    /** Accounts of the memory-growth run; 0 = not run. */
    memoryAccounts: z.number().int().min(0),
    /** Two passes more: a fresh worker with metrics on (scraped every 5 s) and one with metrics off (docs/observability.md). */
    metricsCost: z.boolean(),
    validationSeconds: z.number().positive(),
    repeats: z.number().int().min(1),
    sandboxRequests: z.number().int().min(1),
    sandboxConcurrency: z.number().int().min(1),
    /** OUTCOME_EVENT_WAIT_SECONDS of the stack: how long an account waits for its event before polling. */
    eventWaitSeconds: z.number().positive(),
    /**
     * Which route the sandbox's events take to the receiver: one route, SQS (docker-compose.yml's
     * route 1) by default, as a deployment runs; `both` is the dev stack's (each event arrives twice).
     */
    eventsRoute: z.enum(['sqs', 'webhook', 'both']),
    out: z.string().min(1),
    /**
     * Where each pipeline worker process writes V8 CPU profiles of all its threads when it stops
     * (an absolute path); unset: no profiling. Profiling slows the worker: such a run's figures
     * say where an account's CPU goes, not how fast the pipeline is.
     */
    cpuProfileDir: z.string().min(1).optional(),
    /**
     * Where each pipeline worker's memory probe (`harness/measure/heap-probe.cjs`) writes, one folder a
     * worker process: its memory split (RSS, each thread's V8 heap, external) every second.
     */
    heapProbeDir: z.string().min(1).optional(),
    /**
     * With the probe: heap snapshots of all the first worker's threads at rest after the warm-up and with
     * the first pass's accounts in flight. Writing one stops the threads for seconds and leaves the
     * snapshot's own native memory in the RSS: such a run says what the heaps hold, not the RSS or speed.
     */
    heapSnapshots: z.boolean(),
    /** More node flags for the pipeline workers (an A/B of V8's or the allocator's settings). */
    workerNodeFlags: z.array(z.string().regex(/^--/, 'a node flag')),
  })
  .refine((o) => o.rounds === 0 || (o.floor && o.script), {
    message: '--rounds needs the floor and the ceiling (no --no-floor, no --no-script)',
    path: ['rounds'],
  })
  .refine((o) => !o.ceilingKept || (o.floor && o.script), {
    message: '--ceiling-kept needs the floor and the ceiling (no --no-floor, no --no-script)',
    path: ['ceilingKept'],
  })
  .refine((o) => !o.floorSteps || o.floor, { message: '--floor-steps needs the floor (no --no-floor)', path: ['floorSteps'] })
  .refine((o) => !o.heapSnapshots || o.heapProbeDir, { message: '--heap-snapshots needs --heap-probe <dir>', path: ['heapSnapshots'] });
export type BenchOptions = z.infer<typeof benchOptionsSchema>;

const DEFAULTS = {
  default: { accounts: 2000, concurrency: [50, 100, 200], floorConcurrency: [50, 100, 200, 400], validationSeconds: 3, repeats: 3, sandboxRequests: 2000 },
  smoke: { accounts: 30, concurrency: [10], floorConcurrency: [10], validationSeconds: 1, repeats: 3, sandboxRequests: 200 },
} as const;
const MEMORY_DEFAULT_ACCOUNTS = 10_000;

const int = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('not an integer');
  return n;
};
const intList = (v: string) => {
  const list = v.split(',').map((x) => Number(x.trim()));
  if (list.length === 0 || !list.every((n) => Number.isInteger(n))) throw new InvalidArgumentError('not a comma-separated list of integers');
  return list;
};
const num = (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('not a number');
  return n;
};

/** `npm run bench -- [options]`: argv without node and the script. Smoke mode changes the defaults, not explicit values. */
export function parseBenchArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const program = new Command('bench')
    .exitOverride()
    .option('--smoke', 'tiny run for CI: few accounts, one worker, no scaling or memory run')
    .addOption(
      new Option(
        '--engine <engine>',
        'Temporal engine: dev (CLI dev server, SQLite) or server (Temporal server on Postgres); default KRAKEN_TEMPORAL_ENGINE, else dev',
      ).choices(['dev', 'server']),
    )
    .option('--accounts <n>', 'accounts per end-to-end pass (default 2000; smoke 30)', int)
    .option('--concurrency <list>', 'pipeline concurrency sweep, e.g. 50,100,200 (default; smoke 10); the script runs at the best', intList)
    .option('--floor-concurrency <list>', 'floor concurrency sweep (default 50,100,200,400; smoke 10); its peak is the floor', intList)
    .option('--scaling-repeats <n>', '2-worker passes, each on a fresh stack (default 3)', int, 3)
    .option('--no-floor', 'skip the Temporal floor')
    .option('--no-script', 'skip the plain-script baseline')
    .option('--no-scaling', 'skip the 2-worker run')
    .option('--no-read-back', "pipeline runs that do not read accounts back (the script's and the ceiling's work, no more)")
    .option('--ceiling-kept', "a pass more: the ceiling's activity reading each account back and recording its one outcome too")
    .option('--floor-steps', "a pass more: the floor in the pipeline account's shape (a no-op local activity before and after its activity)")
    .option(
      '--rounds <n>',
      'rounds of the pipeline, floor and ceiling again, order alternating: the ratios and CPU judged on their medians (default 0)',
      int,
      0,
    )
    .option('--memory [accounts]', `memory-growth run (default ${MEMORY_DEFAULT_ACCOUNTS} accounts; expensive)`, int)
    .option('--metrics-cost', 'CPU per account of a fresh worker with metrics on (scraped every 5 s) and of one with metrics off, side by side')
    .option('--validation-seconds <s>', 'seconds per validation repeat', num)
    .option('--repeats <n>', 'repeats of the cheap figures (validation, sandbox)', int)
    .option('--sandbox-requests <n>', 'schedule requests per sandbox repeat', int)
    .option('--sandbox-concurrency <n>', 'sandbox requests in flight', int, 32)
    .option('--event-wait-seconds <s>', 'OUTCOME_EVENT_WAIT_SECONDS: wait for the outcome event before polling', num, 30)
    .addOption(
      new Option('--events <route>', "event route: sqs (the deployment's route 1), webhook (route 2) or both (the dev stack; each event arrives twice)")
        .choices(['sqs', 'webhook', 'both'])
        .default('sqs'),
    )
    .option('--out <file>', 'results file', 'harness/bench/results.json')
    .option(
      '--cpu-prof <dir>',
      'write V8 CPU profiles of the pipeline workers (every thread), the events receiver and the sandbox into <dir>; slows them, so the figures are not comparable',
    )
    .option('--heap-probe <dir>', "write the workers' memory split (RSS, V8 heap by thread, external) every second into <dir>")
    .option('--worker-node-flags <flags>', 'more node flags for the pipeline workers, space-separated (e.g. "--max-semi-space-size=8")')
    .option('--heap-snapshots', 'with --heap-probe: heap snapshots of the first worker at rest and with accounts in flight; stalls it and swells its RSS')
    .allowExcessArguments(false);
  program.parse([...argv], { from: 'user' });
  const o = program.opts<{
    smoke?: boolean;
    engine?: 'dev' | 'server';
    accounts?: number;
    concurrency?: number[];
    floorConcurrency?: number[];
    scalingRepeats: number;
    floor: boolean;
    script: boolean;
    scaling: boolean;
    readBack: boolean;
    ceilingKept?: boolean;
    floorSteps?: boolean;
    rounds: number;
    memory?: number | true;
    metricsCost?: boolean;
    validationSeconds?: number;
    repeats?: number;
    sandboxRequests?: number;
    sandboxConcurrency: number;
    eventWaitSeconds: number;
    events: 'sqs' | 'webhook' | 'both';
    out: string;
    cpuProf?: string;
    heapProbe?: string;
    heapSnapshots?: boolean;
    workerNodeFlags?: string;
  }>();
  const mode = o.smoke ? 'smoke' : 'default';
  const d = DEFAULTS[mode];
  return benchOptionsSchema.parse({
    mode,
    engine: o.engine ?? env.KRAKEN_TEMPORAL_ENGINE ?? 'dev',
    accounts: o.accounts ?? d.accounts,
    concurrency: o.concurrency ?? d.concurrency,
    floorConcurrency: o.floorConcurrency ?? d.floorConcurrency,
    scalingRepeats: o.scalingRepeats,
    floor: o.floor,
    script: o.script,
    scaling: mode === 'default' && o.scaling,
    readBack: o.readBack,
    ceilingKept: Boolean(o.ceilingKept),
    floorSteps: Boolean(o.floorSteps),
    rounds: o.rounds,
    memoryAccounts: o.memory === undefined ? 0 : o.memory === true ? MEMORY_DEFAULT_ACCOUNTS : o.memory,
    metricsCost: Boolean(o.metricsCost),
    validationSeconds: o.validationSeconds ?? d.validationSeconds,
    repeats: o.repeats ?? d.repeats,
    sandboxRequests: o.sandboxRequests ?? d.sandboxRequests,
    sandboxConcurrency: o.sandboxConcurrency,
    eventWaitSeconds: o.eventWaitSeconds,
    eventsRoute: o.events,
    out: o.out,
    cpuProfileDir: o.cpuProf === undefined ? undefined : path.resolve(o.cpuProf),
    heapProbeDir: o.heapProbe === undefined ? undefined : path.resolve(o.heapProbe),
    heapSnapshots: Boolean(o.heapSnapshots),
    workerNodeFlags: o.workerNodeFlags?.split(/\s+/).filter(Boolean) ?? [],
  });
}
