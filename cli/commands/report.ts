import path from 'node:path';
import { Command } from 'commander';
import type { Config } from '../../config';
import type { Pool } from '../../clients/db';
import { loadCliContext, withServices } from '../context';
import { usageError } from '../errors';
import { printJson, println } from '../output';
import { loadReportData } from '../report/data';
import { listRetryingAccounts } from '../../clients/retrying-accounts';
import type { Client } from '@temporalio/client';
import { writeReport, type WrittenReport } from '../report/write';

/** Loads the run from the ledger and writes failed-accounts.csv and report.html into `dir`. */
export async function buildReport(
  pool: Pool,
  cfg: Config,
  runId: string,
  dir: string,
  temporal?: Client,
): Promise<WrittenReport & { data: NonNullable<Awaited<ReturnType<typeof loadReportData>>> }> {
  const data = await loadReportData(pool, runId, { temporalUiUrl: cfg.TEMPORAL_UI_URL, namespace: cfg.TEMPORAL_NAMESPACE });
  if (!data) throw usageError('run_not_found', `no run ${runId} in the ledger`);
  // A run still going: list the accounts Temporal is retrying (best effort; the ledger part stands alone).
  if (temporal && data.totals.inProgress > 0) data.retrying = await listRetryingAccounts(temporal, runId).catch(() => []);
  return { ...writeReport(data, dir), data };
}

export function reportCommand(): Command {
  return new Command('report')
    .description("write a run's failed-accounts.csv and a self-contained report.html")
    .argument('<runId>')
    .option('--out <dir>', 'output directory (default: <DATA_DIR>/reports/<runId>)')
    .option('--json', 'print the paths and totals as JSON')
    .addHelpText(
      'after',
      `
failed-accounts.csv has one row per error of every failed or not-attempted account, ready for the
source-data team; report.html needs no network (inline CSS and charts) and links each account to
its workflow in the Temporal UI.

Examples:
  $ kraken-migrate report run-20250601-120000-ab12
  $ kraken-migrate report run-20250601-120000-ab12 --out ./reports/june`,
    )
    .action(async (runId: string, opts) => {
      const ctx = loadCliContext();
      const dir = path.resolve(opts.out ?? path.join(ctx.dataDir, 'reports', runId));
      await withServices(ctx, async (s) => {
        const temporal = await s.temporal().catch(() => undefined);
        const r = await buildReport(await s.db(), ctx.cfg, runId, dir, temporal);
        if (opts.json) return printJson({ runId, csv: r.csv, html: r.html, totals: r.data.totals });
        println(`Report for run ${runId}:`);
        println(`  ${r.csv}`);
        println(`  ${r.html}`);
      });
    });
}
