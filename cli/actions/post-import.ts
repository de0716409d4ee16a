// What `run reconcile`, `run delta` and `run rerun-failed --stage post-import` do. cli/commands/post-import.ts
// declares the first two and loads this module only when an action runs.
import { loadCliContext, withServices } from '../context';
import { optionsSchema, parseOptions } from '../option-schema';
import { DELTA_OPTIONS } from '../options/post-import';
import { reconcileOptionsSchema } from './ledger-lists';
import { EXIT, usageError } from '../errors';
import { runRow } from '../../ledger';
import { info, printJson, println } from '../output';
import { awaitDelta, deltaLine, reconcileRun, balanceLine, reconciliationLine, startDelta } from '../post-import';

export async function reconcileRunAction(runId: string, options: unknown): Promise<void> {
  const opts = parseOptions(reconcileOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const pool = await s.db();
    if (!(await runRow(pool, runId))) throw usageError('run_not_found', `no run ${runId} in the ledger`);
    const summary = await reconcileRun(ctx.cfg, pool, runId, { concurrency: opts.concurrency });
    process.exitCode = summary.differing + summary.missing > 0 ? EXIT.failures : EXIT.ok;
    if (opts.json) return printJson({ runId, ...summary });
    println(reconciliationLine(summary));
    const balances = balanceLine(summary);
    if (balances) println(balances);
  });
}

const deltaOptionsSchema = optionsSchema(DELTA_OPTIONS);

export async function deltaRunAction(runId: string, options: unknown): Promise<void> {
  const opts = parseOptions(deltaOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const original = await runRow(await s.db(), runId);
    if (!original) throw usageError('run_not_found', `no run ${runId} in the ledger`);
    if (original.dryRun) throw usageError('dry_run', `run ${runId} was a dry run: nothing was created to carry changes over to`);
    const client = await s.temporal();
    const started = await startDelta(client, ctx.cfg, {
      runId,
      supplierCode: original.supplierCode,
      source: original.source,
      accounts: 'completed',
      concurrency: opts.concurrency,
      deltaId: opts.deltaId,
    });
    if (!opts.wait) return opts.json ? printJson(started) : println(`Started ${started.deltaId}: ${started.uiUrl}`);
    info(`Delta ${started.deltaId} started (${started.uiUrl}); waiting for it to finish…`);
    const r = await awaitDelta(client, started.deltaId);
    process.exitCode = r.failed > 0 ? EXIT.failures : EXIT.ok;
    if (opts.json) return printJson({ ...started, ...r });
    println(deltaLine(r));
  });
}

/** `run rerun-failed <runId> --stage post-import`: only the run's post_import_failed items, never the accounts. */
export async function rerunFailedPostImport(runId: string, opts: { json?: boolean; concurrency?: number }): Promise<void> {
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const original = await runRow(await s.db(), runId);
    if (!original) throw usageError('run_not_found', `no run ${runId} in the ledger`);
    const client = await s.temporal();
    const started = await startDelta(client, ctx.cfg, {
      runId,
      supplierCode: original.supplierCode,
      source: original.source,
      accounts: 'failed_items',
      concurrency: opts.concurrency,
    });
    info(`Retrying the post_import_failed items of ${runId} as ${started.deltaId} (${started.uiUrl})…`);
    const r = await awaitDelta(client, started.deltaId);
    process.exitCode = r.failed > 0 ? EXIT.failures : EXIT.ok;
    if (opts.json) return printJson({ ...started, ...r });
    println(deltaLine(r));
  });
}
