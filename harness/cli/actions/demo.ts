// What `kraken-migrate demo` does. cli/commands/demo.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import fs from 'node:fs';
import path from 'node:path';
import { createPool } from '../../../clients/db';
import { loadCodecKeys } from '../../../codec/keys';
import { useLedgerKeys } from '../../../ledger/sealing';
import { failuresByCode } from '../../../ledger';
import { connectClient } from '../../../clients/temporal';
import { loadEnv } from '../../../config';
import { generateCommand as generateDataset } from '../../synthetic/generate-cli';
import { canConnect } from '../../stack/child-process';
import { readStackInfo } from '../../stack/stack';
import { ROOT } from '../../../cli/context';
import { createReconciliationLedger } from '../../../ledger/reconciliation';
import { balanceLine, reconciliationLine } from '../../../cli/post-import';
import { EXIT, usageError } from '../../../cli/errors';
import { info, println } from '../../../cli/output';
import { startRun } from '../../../cli/runs';
import { watchRun } from '../../../cli/watch';
import { platformPace } from '../../../cli/pace';
import { buildReport } from '../../../cli/report/build';
import { provisionTemporalCli } from '../../stack/temporal-cli';
import { endpointLines, holdStackStopSignals, startStackInterruptibly, stopStack } from './dev';

/** The demo's environment: the user's settings, but always the embedded services in a fresh data dir. */
export function demoEnv(base: Record<string, string | undefined>, dataDir: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base };
  for (const k of ['DATABASE_URL', 'S3_ENDPOINT', 'SQS_ENDPOINT', 'EVENTS_QUEUE_URL']) delete env[k];
  return {
    ...env,
    DATA_DIR: dataDir,
    SOURCE_DOCUMENTS_DIR: path.join(dataDir, 'source-documents'),
    // Fast enough to finish in minutes on 2 cores, unless the user chose otherwise.
    SANDBOX_PROCESSING_DELAY_MS: base.SANDBOX_PROCESSING_DELAY_MS ?? '200',
    OUTCOME_EVENT_WAIT_SECONDS: base.OUTCOME_EVENT_WAIT_SECONDS ?? '15',
  };
}

async function refuseIfRunning(dataDir: string): Promise<void> {
  let existing;
  try {
    existing = readStackInfo(dataDir);
  } catch {
    return;
  }
  if (!existing) return;
  const [host, port] = existing.temporalAddress.split(':');
  if (await canConnect(host, Number(port))) {
    throw usageError(
      'demo_running',
      `a demo stack is already running from ${dataDir} (Temporal UI ${existing.temporalUiUrl}): stop it (Ctrl-C in its terminal) first`,
    );
  }
}

export async function demoAction(opts: {
  keep?: boolean;
  accounts: number;
  seed: number;
  concurrency: number;
  freePorts?: boolean;
  dataDir: string;
}): Promise<void> {
  const started = Date.now();
  const base = loadEnv();
  const dataDir = path.resolve(ROOT, opts.dataDir);
  await refuseIfRunning(dataDir);
  const env = demoEnv(base, dataDir);
  // A missing prerequisite stops the demo before it deletes the last demo's report.
  provisionTemporalCli({ env: { ...process.env, ...env } });
  fs.rmSync(dataDir, { recursive: true, force: true });

  const { stack, workerPids, interrupted } = await startStackInterruptibly(env, {
    freePorts: Boolean(opts.freePorts),
    workers: 1,
    banner: `Starting the embedded stack in ${path.relative(ROOT, dataDir) || dataDir} (Temporal + UI, Postgres, S3/SQS, platform sandbox, events receiver, a worker)…`,
  });
  const cfg = stack.config;
  const client = await connectClient(cfg);
  // The stack's own keys (they may differ from this shell's): the ledger's personal columns are sealed with them.
  const pool = useLedgerKeys(createPool(stack.env.DATABASE_URL, 4), loadCodecKeys(cfg));
  try {
    if (interrupted()) return;
    info(`Stack up in ${Math.round((Date.now() - started) / 1000)} s. Temporal UI: ${stack.info.temporalUiUrl}`);
    info(
      `Metrics: ${Object.entries(stack.info.metrics)
        .map(([name, url]) => `${name} ${url}`)
        .join(', ')}`,
    );
    info(`Generating ${opts.accounts} legacy accounts (seed ${opts.seed}, default defect mix) into the legacy schema…`);
    await generateDataset({
      accounts: opts.accounts,
      seed: opts.seed,
      databaseUrl: stack.env.DATABASE_URL,
      documentsDir: path.resolve(ROOT, cfg.SOURCE_DOCUMENTS_DIR),
    });
    if (interrupted()) return;

    const run = await startRun(client, cfg, {
      supplierCode: cfg.IMPORT_SUPPLIER_CODE,
      source: { kind: 'postgres' },
      selection: { kind: 'all' },
      dryRun: false,
      concurrency: opts.concurrency,
    });
    println(`Run ${run.runId} started: ${run.uiUrl}`);
    println(`Its failed accounts: ${run.failedAccountsUrl}`);
    // The tenant's window on the watch line, as `run start --watch` shows it (the stack's config: its tenant).
    const watched = await watchRun(client, pool, run.runId, { pace: () => platformPace(pool, cfg) });
    if (watched.interrupted) {
      info(`Interrupted while run ${run.runId} was going; stopping the demo stack.`);
      process.exitCode = 130;
      return;
    }

    const o = watched.ledger.outcomes;
    const accounted = o.completed + o.failed + o.notAttempted;
    const byCode = { rows: await failuresByCode(pool, run.runId) };
    println('');
    println(
      `Summary of run ${run.runId} (${watched.final?.state ?? watched.workflowStatus.toLowerCase()}, ${Math.round((Date.now() - started) / 1000)} s in all):`,
    );
    println(`  completed      ${o.completed}`);
    println(`  failed         ${o.failed}`);
    for (const r of byCode.rows.filter((x) => x.outcome === 'failed')) println(`    ${r.code.padEnd(48)} ${r.n}`);
    println(`  not attempted  ${o.notAttempted}`);
    for (const r of byCode.rows.filter((x) => x.outcome === 'not_attempted')) println(`    ${r.code.padEnd(48)} ${r.n}`);
    println(`  accounted for  ${accounted} of ${opts.accounts}`);
    // Every completed account was read back from the platform and compared with what was sent.
    const reconciliation = await createReconciliationLedger(pool).summary(run.runId);
    println(reconciliationLine(reconciliation));
    const balances = balanceLine(reconciliation);
    if (balances) println(balances);

    const report = await buildReport(pool, cfg, run.runId, path.join(dataDir, 'reports', run.runId));
    // Tariffs the public catalogue could not confirm (gas tariffs always): the platform decided them.
    println(`  not pre-checked ${report.data.notPreChecked} (a tariff the catalogue could not confirm; the platform decided)`);
    println('');
    println('Report:');
    println(`  ${report.html}`);
    println(`  ${report.csv}`);
    println(`Temporal UI: ${run.uiUrl}`);
    println(`Failed accounts in the Temporal UI: ${run.failedAccountsUrl}`);
    const rel = path.relative(process.cwd(), dataDir) || '.';
    println('');
    println('Rerun the failed accounts (with the stack up):');
    println(`  DATA_DIR=${rel} npx tsx cli/main.ts run rerun-failed ${run.runId} --watch`);
    if (!opts.keep) {
      println(`  (the stack stops now; bring it back with: DATA_DIR=${rel} SOURCE_DOCUMENTS_DIR=${rel}/source-documents npm run dev)`);
    }
    process.exitCode = watched.workflowStatus === 'COMPLETED' && accounted === opts.accounts ? EXIT.ok : EXIT.failures;

    if (opts.keep && !interrupted()) {
      println('');
      println('The stack stays up for exploration:');
      for (const l of endpointLines(stack, workerPids)) println(`  ${l}`);
      println('Ctrl-C stops everything.');
      await holdStackStopSignals().requested;
    }
  } finally {
    await client.connection.close().catch(() => {});
    await pool.end().catch(() => {});
    await stopStack(stack);
  }
}
