// What `kraken-migrate demo` does. cli/commands/demo.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { createPool, type Pool } from '../../../clients/db';
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
import { supplyLine } from '../../../cli/report/summary';
import { ledgerProgress } from '../../../ledger/run-queries';
import { createSupplyLedger } from '../../../ledger/supply';
import { runWorkflowId } from '../../../domain/workflow-ids';
import { sandboxAdmin } from '../../sandbox/admin-client';
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
    // The switch cohort's follows read every 2 to 5 s, and at once on a lifecycle event (days, in production: docs/supply.md).
    SUPPLY_POLL_MIN_SECONDS: base.SUPPLY_POLL_MIN_SECONDS ?? '2',
    SUPPLY_POLL_MAX_SECONDS: base.SUPPLY_POLL_MAX_SECONDS ?? '5',
  };
}

/** The switch cohort: a tenth of the demo's accounts, at most this many, migrate as an on-market switch. */
const SWITCH_COHORT = 12;
/** The sandbox walks the cohort's meter points a status step every 400 ms; some refuse the flow, some are objected to or rejected. */
const SWITCH_FAULTS = { supplyStepMs: 400, registrationRefuseRate: 0.05, registrationObjectRate: 0.1, registrationRejectRate: 0.05 };
/** How long the demo waits for the cohort's meter points to reach a final state before it shows the funnel as it is. */
const SWITCH_WAIT_MS = 30_000;

/**
 * The demo's accounts split in two: the main run, and the last few (SWITCH_COHORT) in a run of their
 * own with registration flows sent (`run start --send-registration-flows`), as list files in the data dir.
 */
async function cohorts(pool: Pool, dataDir: string, accounts: number): Promise<{ main: string; switch: string; switchAccounts: number } | undefined> {
  const n = Math.min(SWITCH_COHORT, Math.floor(accounts / 10));
  if (n === 0) return undefined;
  const all = (await pool.query<{ a: string }>('SELECT DISTINCT account_number AS a FROM legacy.accounts ORDER BY 1')).rows.map((r) => r.a);
  const dir = path.join(dataDir, 'cohorts');
  fs.mkdirSync(dir, { recursive: true });
  const files = { main: path.join(dir, 'main.txt'), switch: path.join(dir, 'switch.txt') };
  fs.writeFileSync(files.main, all.slice(0, -n).join('\n') + '\n');
  fs.writeFileSync(files.switch, all.slice(-n).join('\n') + '\n');
  return { ...files, switchAccounts: n };
}

/** The switch cohort's run once it has ended, and its funnel once every point is final (or SWITCH_WAIT_MS has passed). */
async function switchOutcome(client: Client, pool: Pool, runId: string) {
  const status = await client.workflow
    .getHandle(runWorkflowId(runId))
    .result()
    .then(
      () => 'COMPLETED',
      () => 'FAILED',
    );
  const { outcomes } = await ledgerProgress(pool, runId);
  const supply = createSupplyLedger(pool);
  const deadline = Date.now() + SWITCH_WAIT_MS;
  let funnel = await supply.runFunnel(runId);
  // Every created account's follow has read its points and left each of them.
  const settled = () => funnel !== null && funnel.accounts.waiting === 0 && funnel.accounts.onSupply + funnel.accounts.ended >= outcomes.completed;
  while (!settled() && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    funnel = await supply.runFunnel(runId);
  }
  return { status, outcomes, funnel };
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

    const split = await cohorts(pool, dataDir, opts.accounts);
    const run = await startRun(client, cfg, {
      supplierCode: cfg.IMPORT_SUPPLIER_CODE,
      source: { kind: 'postgres' },
      selection: split ? { kind: 'list', path: split.main } : { kind: 'all' },
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

    // The switch cohort once the main run has ended (it would share the tenant's window with it): created, then each
    // account's meter points sent for registration and followed to supply.
    let switchRun: Awaited<ReturnType<typeof startRun>> | undefined;
    if (split) {
      await sandboxAdmin(stack.info.sandboxUrl, 'PUT', '/admin/faults', SWITCH_FAULTS);
      switchRun = await startRun(client, cfg, {
        supplierCode: cfg.IMPORT_SUPPLIER_CODE,
        source: { kind: 'postgres' },
        selection: { kind: 'list', path: split.switch },
        dryRun: false,
        concurrency: opts.concurrency,
        sendRegistrationFlows: true,
      });
      println(
        `Switch cohort: run ${switchRun.runId} (${split.switchAccounts} accounts, registration flows sent; waiting for its meter points to reach a final state): ${switchRun.uiUrl}`,
      );
    }
    const o = watched.ledger.outcomes;
    const sw = switchRun && (await switchOutcome(client, pool, switchRun.runId));
    const swAccounted = sw ? sw.outcomes.completed + sw.outcomes.failed + sw.outcomes.notAttempted : 0;
    const accounted = o.completed + o.failed + o.notAttempted + swAccounted;
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
    if (sw && switchRun)
      println(
        `  switch cohort  ${swAccounted} (run ${switchRun.runId}: completed ${sw.outcomes.completed}, failed ${sw.outcomes.failed}, not attempted ${sw.outcomes.notAttempted})`,
      );
    println(`  accounted for  ${accounted} of ${opts.accounts}${sw ? ' (both runs)' : ''}`);
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
    if (sw && switchRun) {
      // The switch's funnel, as `run status` shows it, and its report (report.html has the funnel's section).
      const swReport = await buildReport(pool, cfg, switchRun.runId, path.join(dataDir, 'reports', switchRun.runId));
      println('');
      println(`Switch cohort, run ${switchRun.runId}:`);
      println(`  ${sw.funnel ? supplyLine(sw.funnel, switchRun.runId) : 'no meter point followed (no account created)'}`);
      println(`  ${swReport.html}`);
    }
    println(`Temporal UI: ${run.uiUrl}`);
    println(`Failed accounts in the Temporal UI: ${run.failedAccountsUrl}`);
    const rel = path.relative(process.cwd(), dataDir) || '.';
    println('');
    println('Rerun the failed accounts (with the stack up):');
    println(`  DATA_DIR=${rel} npx tsx cli/main.ts run rerun-failed ${run.runId} --watch`);
    if (!opts.keep) {
      println(`  (the stack stops now; bring it back with: DATA_DIR=${rel} SOURCE_DOCUMENTS_DIR=${rel}/source-documents npm run dev)`);
    }
    process.exitCode = watched.workflowStatus === 'COMPLETED' && (!sw || sw.status === 'COMPLETED') && accounted === opts.accounts ? EXIT.ok : EXIT.failures;

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
