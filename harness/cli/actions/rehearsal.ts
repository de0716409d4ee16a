// What `kraken-migrate rehearsal` does. cli/commands/rehearsal.ts declares the command (options, help) and loads this module only
// when the action runs, so the CLI starts without this module's dependencies.
import fs from 'node:fs';
import path from 'node:path';
import { formatRehearsal } from '../../rehearsal/format';
import { REHEARSAL_SMOKE, rehearsalOptionsSchema } from '../../rehearsal/options';
import { runRehearsal } from '../../rehearsal/run';
import { loadEnv } from '../../../config';
import { ROOT } from '../../../cli/context';
import { withInterruptibleStack } from '../interruptible-stack';
import { EXIT } from '../../../cli/errors';
import { info, println } from '../../../cli/output';

export interface RehearsalCliOptions {
  smoke?: boolean;
  accounts?: number;
  engine?: 'dev' | 'server';
  concurrency?: number;
  seed?: number;
  outageSeconds?: number;
  maxCachedWorkflows?: number;
  stallSeconds?: number;
  replayCheck?: boolean;
  ledgerRows?: number;
  windowAccounts?: number;
  out?: string;
  dataDir?: string;
}

export async function rehearsalAction(opts: RehearsalCliOptions): Promise<void> {
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
  const result = await withInterruptibleStack('rehearsal', (onStack) => runRehearsal(o, { env: loadEnv(), dataDir, log: info, onStack }));
  const out = path.resolve(ROOT, o.out);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  for (const l of formatRehearsal(result)) println(l);
  println(`(written to ${path.relative(ROOT, out)})`);
  process.exitCode = result.passed ? EXIT.ok : EXIT.failures;
}
