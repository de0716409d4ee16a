import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { z } from 'zod';
import { FAILURE_CONVERTER_PATH } from '../../codec/data-converter';
import { readCorpus } from '../../test/replay/corpus';

/**
 * The CPU of workflow code, A against B: one history of the replay corpus (test/replay/histories)
 * replayed N times a round with each checkout's workflow bundle, rounds interleaved (ABBA…) in one
 * process, so a loaded machine moves both alike. Replay runs the workflow code and the SDK's
 * promise hook as a live worker does, without Temporal, the activities or the network.
 *
 *   a=$(mktemp -d) && git archive main | tar -x -C "$a" && ln -s "$PWD/node_modules" "$a/node_modules"
 *   npx tsx harness/measure/replay-cpu.ts --roots "$a",. --history account-completed.json [--n 100] [--rounds 10]
 *
 * Where it goes: `node --cpu-prof --require tsx/cjs harness/measure/replay-cpu.ts --roots . --rounds 1 --n 400`.
 */

const args = z.object({
  roots: z.string().transform((s) => s.split(',').map((r) => path.resolve(r))),
  history: z.string().default('account-completed.json'),
  n: z.coerce.number().int().positive().default(100),
  rounds: z.coerce.number().int().positive().default(10),
});

/** A checkout's workflow bundle, built by its own workers/workflow-bundle.ts in a child process. */
function bundleOf(root: string): WorkflowBundleWithSourceMap {
  const out = execFileSync(process.execPath, ['--require', require.resolve('tsx/cjs'), path.join(root, 'workers/workflow-bundle.ts')], {
    cwd: root,
    maxBuffer: 256 * 1024 * 1024,
  });
  return z.object({ code: z.string(), sourceMap: z.string() }).parse(JSON.parse(out.toString()));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { roots: { type: 'string' }, history: { type: 'string' }, n: { type: 'string' }, rounds: { type: 'string' } } });
  const opts = args.parse(values);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const entry = readCorpus().find((c) => c.file === opts.history);
  if (!entry) throw new Error(`no ${opts.history} in test/replay/histories`);
  const bundles = opts.roots.map(bundleOf);
  async function* histories() {
    for (let i = 0; i < opts.n; i++) yield { workflowId: `${entry!.workflowId}-${i}`, history: entry!.history };
  }
  /** CPU ms of this process (every thread) per replayed history. */
  const round = async (workflowBundle: WorkflowBundleWithSourceMap) => {
    const t0 = process.cpuUsage();
    for await (const r of Worker.runReplayHistories({ workflowBundle, dataConverter: { failureConverterPath: FAILURE_CONVERTER_PATH } }, histories())) {
      if (r.error) throw r.error;
    }
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / 1000 / opts.n;
  };
  // A first round each, not counted: the JIT and the SDK's caches warm up.
  for (const b of bundles) await round(b);
  const ms: number[][] = bundles.map(() => []);
  for (let k = 0; k < opts.rounds; k++) {
    const order = k % 2 === 0 ? bundles.map((_, i) => i) : bundles.map((_, i) => bundles.length - 1 - i);
    for (const i of order) ms[i].push(await round(bundles[i]));
  }
  const median = (x: number[]) => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)];
  for (const [i, root] of opts.roots.entries())
    process.stdout.write(`${root}: median ${median(ms[i]).toFixed(2)} ms CPU a history (${ms[i].map((x) => x.toFixed(1)).join(', ')})\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
