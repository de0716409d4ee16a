// `run compare A B` and `run compare --plan ID --wave W` (docs/plan.md): the ledger alone.
import type { Pool } from '../../clients/db';
import { compareRuns, type RunComparison } from '../../domain/run-compare';
import { reconciledRate, formatRate } from '../../domain/plan-gates';
import { newlyFailingSamples, outcomePairs, runOutcomeCounts, runsStartingWith } from '../../ledger/plan-report';
import { runRow } from '../../ledger/run-queries';
import { loadCliContext, withServices } from '../context';
import { usageError } from '../errors';
import { optionsSchema, parseOptions } from '../option-schema';
import { COMPARE_OPTIONS } from '../options/run';
import { printJson, println, table } from '../output';

export interface CompareResult extends RunComparison {
  a: string;
  b: string;
  /** Up to 5 accounts of each code that fail in B and did not in A. */
  newlyFailingSamples: Array<{ code: string; account: string }>;
}

export interface TrialLoad {
  runId: string;
  dryRun: boolean;
  startedAt: string;
  completed: number;
  /** The defect count: accounts that failed. */
  failed: number;
  not_attempted: number;
  in_progress: number;
  passRate: number | null;
}

export async function compareTwo(pool: Pool, a: string, b: string): Promise<CompareResult> {
  for (const id of [a, b]) if (!(await runRow(pool, id))) throw usageError('run_not_found', `no run ${id} in the ledger`);
  const [pairs, samples] = await Promise.all([outcomePairs(pool, a, b), newlyFailingSamples(pool, a, b)]);
  return { a, b, ...compareRuns(pairs), newlyFailingSamples: samples };
}

/** A wave's trial loads (`<plan>.<wave>.trial-N`), oldest first, each with its defect count and pass rate. */
export async function trialLoads(pool: Pool, planId: string, wave: string): Promise<TrialLoad[]> {
  const runs = await runsStartingWith(pool, `${planId}.${wave}.trial-`);
  const out: TrialLoad[] = [];
  for (const r of runs) {
    const c = await runOutcomeCounts(pool, r.runId);
    out.push({ ...r, ...c, passRate: reconciledRate(c) });
  }
  return out;
}

/** `run compare`'s options (cli/options/run.ts): two runs by id, or a plan's wave. */
const compareOptionsSchema = optionsSchema(COMPARE_OPTIONS).superRefine((o, ctx) => {
  if (o.plan !== undefined && o.wave === undefined)
    ctx.addIssue({ code: 'custom', path: ['plan'], message: 'needs --wave: the wave whose trial loads to compare' });
  if (o.wave !== undefined && o.plan === undefined) ctx.addIssue({ code: 'custom', path: ['wave'], message: 'goes with --plan' });
});

export async function compareAction(a: string | undefined, b: string | undefined, options: unknown): Promise<void> {
  const opts = parseOptions(compareOptionsSchema, options);
  if (opts.plan === undefined && (a === undefined || b === undefined)) throw usageError('missing_runs', 'run compare A B, or --plan ID --wave W');
  if (opts.plan !== undefined && a !== undefined) throw usageError('too_many_runs', '--plan ID --wave W compares the wave’s trial loads: give no run ids');
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const pool = await s.db();
    if (opts.plan !== undefined) {
      const trials = await trialLoads(pool, opts.plan, opts.wave!);
      if (trials.length === 0) throw usageError('run_not_found', `no trial load of wave ${opts.wave} of plan ${opts.plan} in the ledger`);
      const last = trials.length >= 2 ? await compareTwo(pool, trials[trials.length - 2].runId, trials[trials.length - 1].runId) : null;
      if (opts.json) return printJson({ plan: opts.plan, wave: opts.wave, trials, last });
      println(`Trial loads of wave ${opts.wave} (plan ${opts.plan}): the defect count is the failed accounts`);
      println(
        table(
          ['run', 'started', 'completed', 'failed (defects)', 'not attempted', 'pass rate'],
          trials.map((t) => [t.runId, t.startedAt, String(t.completed), String(t.failed), String(t.not_attempted), formatRate(t.passRate)]),
        ),
      );
      if (last) {
        println('');
        printComparison(last);
      }
      return;
    }
    const r = await compareTwo(pool, a!, b!);
    if (opts.json) return printJson(r);
    printComparison(r);
  });
}

function printComparison(r: CompareResult): void {
  const c = r.counts;
  println(`Run ${r.b} against ${r.a}: defects ${r.defects.a} → ${r.defects.b}`);
  println(
    `  fixed ${c.fixed}, newly failing ${c.newly_failing}, still failing ${c.still_failing}, still passing ${c.still_passing}, not compared ${c.not_compared}`,
  );
  if (r.byCode.length > 0)
    println(
      table(
        ['', 'code', 'accounts'],
        r.byCode.map((x) => [x.class.replace('_', ' '), x.code, String(x.n)]),
      ),
    );
  if (r.newlyFailingSamples.length > 0) println(`  newly failing, for example: ${r.newlyFailingSamples.map((x) => `${x.account} (${x.code})`).join(', ')}`);
}
