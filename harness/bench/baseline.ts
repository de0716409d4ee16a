import fs from 'node:fs';
import { z } from 'zod';
import type { BaselineCheck, BenchResults, PipelineRun } from './results';

/**
 * The pipeline's cost per account as last agreed (`baseline.json`), and the bench's pass compared to
 * it, so that a change that costs more shows in the next run. Counts (Postgres round trips, history
 * events, actions) are the same on any host for the same code: their tolerance only absorbs the
 * odd late event. CPU and memory move with the machine's load: flagged the same way, but the flag
 * says they are only meaningful on a quiet machine (the lead refreshes those figures on one).
 */

const figureSchema = z.object({ value: z.number(), tolerance: z.number().nonnegative() });

export const baselineSchema = z.object({
  /** When and how the figures were taken (the command, the machine, the load). */
  measured: z.string(),
  /**
   * The pass the CPU and memory figures came from: a pass of another size is not compared on them
   * (a 30-account smoke spends its warm-up over fewer accounts; RSS per account in flight falls with
   * concurrency). Counts are compared on any pass.
   */
  pass: z.object({ accounts: z.number().int().positive(), concurrency: z.number().int().positive() }),
  counts: z.object({
    postgresCallsPerAccount: figureSchema,
    postgresNestedCallsPerAccount: figureSchema,
    historyEventsPerAccount: figureSchema,
    actionsPerAccount: figureSchema,
  }),
  /** Only comparable on a quiet machine. */
  load: z.object({
    cpuMsPerAccount: figureSchema,
    postgresCpuMsPerAccount: figureSchema,
    workerCpuMsPerAccount: figureSchema,
    workerRssMbPerAccountInFlight: figureSchema,
  }),
});
export type Baseline = z.infer<typeof baselineSchema>;

export const BASELINE_FILE = 'harness/bench/baseline.json';

export function readBaseline(file: string): Baseline | undefined {
  if (!fs.existsSync(file)) return undefined;
  return baselineSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
}

/** The best pipeline pass's figures, each against the baseline's; a figure the pass did not measure is left out. */
export function compareToBaseline(r: Pick<BenchResults, 'endToEnd'>, b: Baseline): BaselineCheck[] {
  const p = r.endToEnd;
  const cpu = p.cpuMsPerAccount;
  const now: Record<keyof Baseline['counts'] | keyof Baseline['load'], number | undefined> = {
    postgresCallsPerAccount: p.postgres?.callsPerAccount.pipeline,
    postgresNestedCallsPerAccount: p.postgres?.nestedCallsPerAccount,
    historyEventsPerAccount: p.cost?.eventsPerAccount,
    actionsPerAccount: p.cost?.actionsPerAccount,
    cpuMsPerAccount: cpu ? Object.values(cpu).reduce((a, x) => a + x, 0) : undefined,
    postgresCpuMsPerAccount: cpu?.postgres,
    workerCpuMsPerAccount: cpu?.worker,
    workerRssMbPerAccountInFlight: rssPerAccountInFlight(p),
  };
  const out: BaselineCheck[] = [];
  const samePass = p.accounts === b.pass.accounts && p.concurrency === b.pass.concurrency;
  for (const [group, loadDependent] of [['counts', false], ...(samePass ? ([['load', true]] as const) : [])] as const) {
    for (const [figure, f] of Object.entries(b[group])) {
      const n = now[figure as keyof typeof now];
      if (n === undefined) continue;
      out.push({ figure, now: n, baseline: f.value, rose: n > f.value * (1 + f.tolerance), loadDependent });
    }
  }
  return out;
}

/** Worker peak RSS ÷ the accounts the pass kept in flight. */
export const rssPerAccountInFlight = (r: PipelineRun) => (r.workerPeakRssMb === undefined ? undefined : r.workerPeakRssMb / Math.max(1, r.concurrency));
