import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { formatRehearsal } from '../../rehearsal/format';
import { REHEARSAL_SMOKE, rehearsalOptionsSchema } from '../../rehearsal/options';
import { runRehearsal } from '../../rehearsal/run';
import { loadEnv } from '../../config';
import { ROOT } from '../context';
import { EXIT } from '../errors';
import { info, println, positiveInt } from '../output';

const nonNegativeInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number ≥ 0, got ${JSON.stringify(v)}`);
  return n;
};

export function rehearsalCommand(): Command {
  return new Command('rehearsal')
    .description('rehearse a real migration: one long run on a slow platform with a worker kill -9, a Temporal restart and a platform outage; a table by tenth')
    .option('--smoke', 'the CI preset: 200 accounts, a 30 s outage, a 20,000-row ledger (a few minutes on 2 cores)')
    .option('--accounts <n>', 'accounts in the run (default 50000; 200 with --smoke)', positiveInt('--accounts'))
    .addOption(
      new Option('--engine <engine>', 'Temporal engine: dev (CLI dev server, SQLite) or server (Temporal server on Postgres)').choices(['dev', 'server']),
    )
    .option('--concurrency <n>', 'accounts in flight (default 300)', positiveInt('--concurrency'))
    .option('--seed <n>', 'data and sandbox draws (default 2026)', nonNegativeInt('--seed'))
    .option('--outage-seconds <n>', 'how long the platform is down mid-run (default 240; 0: no outage)', nonNegativeInt('--outage-seconds'))
    .option(
      '--max-cached-workflows <n>',
      "the workers' workflow cache (≥ 2; small: most workflow tasks replay their history)",
      nonNegativeInt('--max-cached-workflows'),
    )
    .option('--stall-seconds <n>', 'SIGSTOP a worker this long once (past the workflow-task timeout): a forced task timeout', nonNegativeInt('--stall-seconds'))
    .option('--replay-check', 'read every workflow history afterwards: nondeterminism errors and task timeouts')
    .option('--ledger-rows <n>', 'then seed the ledger with this many attempts and time the operator commands (e.g. 1000000)', nonNegativeInt('--ledger-rows'))
    .option('--window-accounts <n>', 'accounts for the expired-window / never-answered phase (default 30; 0: none)', nonNegativeInt('--window-accounts'))
    .option('--out <file>', 'results file (default bench/rehearsal.json; bench/rehearsal-smoke.json with --smoke)')
    .option('--data-dir <dir>', 'where the embedded stack keeps its data (default .data/rehearsal/<pid>; emptied first)')
    .addHelpText(
      'after',
      `
Brings up its own embedded stack on free ports, generates accounts with ground truth (5% with a
planted defect), and runs one migration with the platform at a tenant's pace (150 ms a call, 2-20 s
to process, 1% of events lost). In the middle: a worker kill -9 (the first worker is never killed,
so its memory is the run's curve), a Temporal server restart and a platform outage (the sandbox
down; no account may fail for it). Prints per tenth of the run accounts/s, p50/p95, worker RSS and
CPU per account by process; storage per 1,000 accounts; the verdict from the sandbox's ground truth.
Exit 0 only when nothing was lost, duplicated or wrong and every fault happened.

Examples:
  $ npm run rehearsal -- --smoke
  $ npm run rehearsal -- --accounts 50000
  $ npm run rehearsal -- --engine server --accounts 10000
  $ npm run rehearsal -- --engine server --accounts 2000 --max-cached-workflows 2 --stall-seconds 15 --replay-check`,
    )
    .action(async (opts) => {
      const o = rehearsalOptionsSchema.parse({
        ...(opts.smoke ? REHEARSAL_SMOKE : {}),
        ...(opts.accounts ? { accounts: opts.accounts } : {}),
        ...(opts.engine ? { engine: opts.engine } : process.env.KRAKEN_TEMPORAL_ENGINE ? { engine: process.env.KRAKEN_TEMPORAL_ENGINE } : {}),
        ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        ...(opts.outageSeconds !== undefined ? { outageSeconds: opts.outageSeconds } : {}),
        ...(opts.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: opts.maxCachedWorkflows } : {}),
        ...(opts.stallSeconds !== undefined ? { stallSeconds: opts.stallSeconds } : {}),
        ...(opts.replayCheck ? { replayCheck: true } : {}),
        ...(opts.ledgerRows !== undefined ? { ledgerRows: opts.ledgerRows } : {}),
        ...(opts.windowAccounts !== undefined ? { windowAccounts: opts.windowAccounts } : {}),
        ...(opts.out ? { out: opts.out } : {}),
      });
      const dataDir = path.resolve(ROOT, opts.dataDir ?? path.join('.data', 'rehearsal', String(process.pid)));
      // Ctrl-C: everything the rehearsal started is stopped (by its own process ids).
      let stopStack: (() => Promise<void>) | undefined;
      const onSignal = () => {
        info('interrupted: stopping the rehearsal stack');
        void (stopStack?.() ?? Promise.resolve()).finally(() => process.exit(130));
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const result = await runRehearsal(o, { env: loadEnv(), dataDir, log: info, onStack: (stop) => (stopStack = stop) });
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      const out = path.resolve(ROOT, o.out);
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
      for (const l of formatRehearsal(result)) println(l);
      println(`(written to ${path.relative(ROOT, out)})`);
      process.exitCode = result.passed ? EXIT.ok : EXIT.failures;
    });
}
