// What `kraken-migrate chaos` does. cli/commands/chaos.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import path from 'node:path';
import { runChaos } from '../../chaos/run';
import { runPlanChaos } from '../../chaos/cutover-plan-run';
import { chaosOptionsSchema, SMOKE } from '../../chaos/plan';
import { loadEnv } from '../../../config';
import { ROOT } from '../../../cli/context';
import { withInterruptibleStack } from '../interruptible-stack';
import { EXIT } from '../../../cli/errors';
import { info, printJson, println } from '../../../cli/output';

export async function chaosAction(opts: {
  smoke?: boolean;
  plan?: boolean;
  seed?: number;
  accounts?: number;
  concurrency?: number;
  dataDir?: string;
  json?: boolean;
}): Promise<void> {
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  if (opts.plan) return planChaosAction(seed, opts);
  const o = chaosOptionsSchema.parse({
    ...(opts.smoke ? SMOKE : {}),
    seed,
    ...(opts.accounts ? { accounts: opts.accounts } : {}),
    ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
  });
  const dataDir = path.resolve(ROOT, opts.dataDir ?? path.join('.data', 'chaos', String(process.pid)));
  const summary = await withInterruptibleStack('chaos', (onStack) => runChaos(o, { env: loadEnv(), dataDir, log: info, onStack }));
  if (opts.json) printJson(summary);
  else {
    for (const w of summary.examples.wrong) println(`wrong: ${w.account}: expected ${w.expected}, got ${w.got}`);
    if (summary.examples.lost.length) println(`lost: ${summary.examples.lost.join(', ')}`);
    for (const r of summary.examples.early as Array<Record<string, string>>)
      println(`early: ${r.method} ${r.path}: told at ${r.toldAt} to wait until ${r.retryAt}, came at ${r.arrivedAt}`);
    if (summary.examples.duplicated.length) println(`duplicated: ${summary.examples.duplicated.join(', ')}`);
    for (const p of summary.harnessProblems) println(`harness: ${p}`);
    println(summary.line);
  }
  process.exitCode = summary.passed ? EXIT.ok : EXIT.failures;
}

/** `chaos --plan`: the cutover plan scenario (harness/chaos/cutover-plan-run.ts). */
async function planChaosAction(seed: number, opts: { dataDir?: string; json?: boolean }): Promise<void> {
  const dataDir = path.resolve(ROOT, opts.dataDir ?? path.join('.data', 'chaos', String(process.pid)));
  const summary = await withInterruptibleStack('chaos', (onStack) => runPlanChaos({ seed, env: loadEnv(), dataDir, log: info, onStack }));
  if (opts.json) printJson(summary);
  else {
    for (const [kind, list] of Object.entries(summary.examples))
      if (list.length) println(`${kind}: ${list.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ')}`);
    for (const [wave, days] of Object.entries(summary.dispatchedPerDay)) println(`dispatched per local day, ${wave}: ${JSON.stringify(days)}`);
    for (const [wave, days] of Object.entries(summary.perDay)) println(`scheduled per local day, ${wave}: ${JSON.stringify(days)}`);
    for (const p of summary.harnessProblems) println(`harness: ${p}`);
    println(summary.line);
  }
  process.exitCode = summary.passed ? EXIT.ok : EXIT.failures;
}
