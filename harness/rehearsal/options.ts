import { z } from 'zod';

const count = z.number().int().min(0);

/**
 * One rehearsal: a migration run the size of a nightly wave on the embedded stack, with the platform
 * as slow as a tenant is and the faults a weeks-long migration meets. `--smoke` and the defaults are
 * two presets of it (README, "Rehearsing a migration").
 */
export const rehearsalOptionsSchema = z.object({
  accounts: z.number().int().min(20).default(50_000),
  engine: z.enum(['dev', 'server']).default('dev'),
  concurrency: z.number().int().min(1).max(500).default(300),
  /** Worker processes; the first is never killed, so its memory is the run's memory curve. */
  workers: z.number().int().min(2).default(2),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .default(2026),
  /** Share of generated accounts with a planted defect (they must fail with their known code). */
  defectRate: z.number().min(0).max(1).default(0.05),
  platform: z
    .object({
      /** Every platform call waits this long (a tenant across the internet), ± jitter. */
      latencyMs: count.default(150),
      latencyJitterMs: count.default(50),
      /** Accepted → processed: this, plus a uniform share of the jitter (2-20 s by default). */
      processingDelayMs: count.default(2_000),
      processingDelayJitterMs: count.default(18_000),
      /** A few events go missing, as they do: those accounts learn their outcome by polling. */
      eventDropRate: z.number().min(0).max(1).default(0.01),
      /** PLATFORM_RATE_LIMIT_PER_SECOND: the client's own ceiling on platform calls. */
      rateLimitPerSecond: z.number().positive().default(100),
    })
    .prefault({}),
  /** Faults in the middle of the run, at these shares of accounts finished. */
  workerKillAt: z.number().min(0).max(1).default(0.3),
  serverRestartAt: z.number().min(0).max(1).default(0.45),
  outageAt: z.number().min(0).max(1).default(0.6),
  /** The platform down this long (a tenant's maintenance window): no account may fail for it. */
  outageSeconds: z.number().int().min(0).default(240),
  /** OUTCOME_EVENT_WAIT_SECONDS / OUTCOME_POLL_MAX_SECONDS of the stack; the poll limit must outlast the outage. */
  eventWaitSeconds: z.number().positive().default(60),
  pollMaxSeconds: z.number().positive().default(1_800),
  /** The workers' workflow cache (WORKER_MAX_CACHED_WORKFLOWS, at least 2: config/index.ts says why); small, most workflow tasks replay their history. */
  maxCachedWorkflows: z.number().int().min(2).optional(),
  /** SIGSTOP a worker this long (past the workflow-task timeout) once, mid-run: a forced workflow-task timeout. 0: none. */
  stallSeconds: z.union([z.literal(0), z.number().int().min(11)]).default(0),
  /** Read every workflow history of the run afterwards: nondeterminism and task timeouts (slow on big runs). */
  replayCheck: z.boolean().default(false),
  /** Expired windows and never-answered outcomes, in a phase after the main run (0: none). */
  windowAccounts: count.default(30),
  windowSeconds: z.number().int().positive().default(60),
  /** Seed the ledger with this many attempts and time the operator commands on it (0: not done). */
  ledgerRows: count.default(0),
  sampleSeconds: z.number().positive().default(10),
  timeoutMinutes: z.number().positive().default(240),
  out: z.string().min(1).default('harness/bench/rehearsal.json'),
});
export type RehearsalOptions = z.infer<typeof rehearsalOptionsSchema>;
export type RehearsalOptionsInput = z.input<typeof rehearsalOptionsSchema>;

/** `--smoke`: small enough for CI (a few minutes on 2 cores), every fault still in it. */
export const REHEARSAL_SMOKE: Partial<RehearsalOptionsInput> = {
  accounts: 200,
  concurrency: 60,
  platform: { latencyMs: 50, latencyJitterMs: 20, processingDelayMs: 500, processingDelayJitterMs: 3_000 },
  outageSeconds: 30,
  // Before the Temporal restart: a small run races on while the restart is awaited (93 → 199 of 200
  // finished in CI), and an outage after it found no account left to wait on the platform.
  outageAt: 0.35,
  eventWaitSeconds: 20,
  pollMaxSeconds: 600,
  windowAccounts: 6,
  windowSeconds: 30,
  ledgerRows: 20_000,
  sampleSeconds: 2,
  timeoutMinutes: 20,
  out: 'harness/bench/rehearsal-smoke.json',
};
