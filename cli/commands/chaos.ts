import path from 'node:path';
import { Command } from 'commander';
import { runChaos } from '../../chaos/run';
import { chaosOptionsSchema, SMOKE } from '../../chaos/plan';
import { loadEnv } from '../../config';
import { ROOT } from '../context';
import { EXIT } from '../errors';
import { info, printJson, println, positiveInt } from '../output';

export function chaosCommand(): Command {
  return new Command('chaos')
    .description('prove 0 lost / 0 duplicated / 0 wrong / 0 early under worker kills, server and sandbox restarts and platform faults')
    .option('--smoke', 'the CI preset: 150 accounts, 3 worker kills, one server and one sandbox restart, faults on (~2.5-6 min on 2 cores)')
    .option('--seed <n>', 'replay the fault schedule, data and sandbox draws of an earlier run', (v) => Number.parseInt(v, 10))
    .option('--accounts <n>', 'accounts to generate (default 1000; 150 with --smoke)', positiveInt('--accounts'))
    .option('--concurrency <n>', 'accounts in flight (default 50)', positiveInt('--concurrency'))
    .option('--data-dir <dir>', 'where the embedded stack keeps its data (default .data/chaos/<pid>; emptied first)')
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      `
Brings up its own embedded stack on free ports, generates accounts with ground truth, runs a
migration while it kill -9s worker processes (some while a schedule call is in flight), kill -9s and
restarts the Temporal server (same database) and the sandbox, with 5xx, 429 bursts with
Retry-After, lost schedule answers and dropped / duplicated / reordered / late events. The verdict
comes from the sandbox's ground truth and the ledger only. Exit 0 only when lost, duplicated,
wrong and early are all 0 (and the harness delivered the faults it claims).

Examples:
  $ npm run chaos -- --smoke
  $ npm run chaos -- --seed 1234567 --json > chaos.json`,
    )
    .action(async (opts) => {
      const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
      const o = chaosOptionsSchema.parse({
        ...(opts.smoke ? SMOKE : {}),
        seed,
        ...(opts.accounts ? { accounts: opts.accounts } : {}),
        ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
      });
      const dataDir = path.resolve(ROOT, opts.dataDir ?? path.join('.data', 'chaos', String(process.pid)));
      // Ctrl-C: everything the harness started is stopped (by its own process ids).
      let stopStack: (() => Promise<void>) | undefined;
      const onSignal = () => {
        info('interrupted: stopping the chaos stack');
        void (stopStack?.() ?? Promise.resolve()).finally(() => process.exit(130));
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const summary = await runChaos(o, { env: loadEnv(), dataDir, log: info, onStack: (stop) => (stopStack = stop) });
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
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
    });
}
