import type { Command } from 'commander';
import { loadCliContext, withServices } from '../context';
import { EXIT, usageError } from '../errors';
import { runRow } from '../../ledger';
import { info, printJson, printLines, println, positiveInt } from '../output';
import { awaitDelta, deltaLine, reconcileRun, reconcileSelection, reconciliationLine, startDelta } from '../post-import';

/** `run reconcile` and `run delta`: after-import checks and changes carried over (README.md, "After creation"). */
export function addPostImportRunCommands(run: Command): void {
  run
    .command('reconcile <runId>')
    .description("re-read a finished run's completed accounts from the platform and compare them with what was sent (changes nothing on the platform)")
    .option('--concurrency <n>', 'accounts read at once', positiveInt('--concurrency'), 8)
    .option('--json', 'machine-readable output')
    .option('--list', 'print the accounts it would read back, one a line (the count on stderr), and read nothing from the platform')
    .addHelpText(
      'after',
      `
Differences (dot path, expected, found) are kept in the ledger and listed by \`report\`.
Exit code 1 when any account differs. --list prints the selection (the run's completed accounts
with a platform account number) through the same query, and checks nothing.

Example:
  $ kraken-migrate run reconcile run-20250601-120000-ab12`,
    )
    .action(async (runId: string, opts) => {
      const ctx = loadCliContext();
      await withServices(ctx, async (s) => {
        const pool = await s.db();
        if (!(await runRow(pool, runId))) throw usageError('run_not_found', `no run ${runId} in the ledger`);
        if (opts.list) {
          const n = await printLines(reconcileSelection(pool, runId));
          return info(`${n} accounts of ${runId} would be read back.`);
        }
        const summary = await reconcileRun(ctx.cfg, pool, runId, { concurrency: opts.concurrency });
        process.exitCode = summary.differing + summary.missing > 0 ? EXIT.failures : EXIT.ok;
        if (opts.json) return printJson({ runId, ...summary });
        println(reconciliationLine(summary));
      });
    });

  run
    .command('delta <runId>')
    .description(
      "carry over what changed in the source since extraction (notes, transactions, statements, payment instructions) for a run's completed accounts",
    )
    .option('--concurrency <n>', 'accounts at once', positiveInt('--concurrency'), 20)
    .option('--delta-id <id>', 'id of this delta (default: delta-YYYYMMDD-HHMMSS-xxxx)')
    .option('--no-wait', 'start it and return')
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      `
Each item goes to its v1 post-import endpoint once: a second delta, a retry or a worker crash
never creates a second note or transaction (the item's own identifier, and the ledger).
Exit code 1 when an item ended post_import_failed; retry those with
  $ kraken-migrate run rerun-failed <runId> --stage post-import

Example:
  $ kraken-migrate run delta run-20250601-120000-ab12`,
    )
    .action(async (runId: string, opts) => {
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
