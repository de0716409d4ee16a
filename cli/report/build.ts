import path from 'node:path';
import { parseOptions } from '../option-schema';
import { reportOptionsSchema } from './options';
import type { Config } from '../../config';
import type { Pool } from '../../clients/db';
import { loadCliContext, withServices } from '../context';
import { usageError } from '../errors';
import { printJson, println } from '../output';
import { loadReportData } from './data';
import type { Client } from '@temporalio/client';
import type { RetryingAccount } from '../../clients/retrying-accounts';
import { writeReportCsv, writeReportHtml, type WrittenReport } from './write';
import { runRow } from '../../ledger';

/** Loads the run from the ledger and writes failed-accounts.csv and report.html into `dir`. */
export async function buildReport(
  pool: Pool,
  cfg: Config,
  runId: string,
  dir: string,
  temporal?: () => Promise<Client | undefined>,
): Promise<WrittenReport & { data: NonNullable<Awaited<ReturnType<typeof loadReportData>>> }> {
  // The CSV streams on its own connection while the summary loads: the run must exist first.
  const run = await runRow(pool, runId);
  if (!run) throw usageError('run_not_found', `no run ${runId} in the ledger`);
  // A run still going: the accounts Temporal is retrying are listed (best effort; the ledger part
  // stands alone). Its client loads and connects while the ledger is read; a run the ledger says is
  // over connects only if accounts are left in progress, so its report never waits on an unreachable Temporal.
  const retrying = (): Promise<RetryingAccount[]> =>
    temporal!()
      .catch(() => undefined)
      .then((client) => {
        if (!client) return [];
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- the Temporal SDK loaded only for a run still going
        const { listRetryingAccounts } = require('../../clients/retrying-accounts') as typeof import('../../clients/retrying-accounts');
        return listRetryingAccounts(client, runId).catch(() => []);
      });
  const early = temporal && (run.status === 'running' || run.status === 'paused') ? retrying() : undefined;
  const [data, csv] = await Promise.all([
    loadReportData(pool, runId, { temporalUiUrl: cfg.TEMPORAL_UI_URL, namespace: cfg.TEMPORAL_NAMESPACE }),
    writeReportCsv(pool, runId, dir),
  ]);
  if (!data) throw usageError('run_not_found', `no run ${runId} in the ledger`);
  if (temporal && data.totals.inProgress > 0) data.retrying = await (early ?? retrying());
  return { dir, csv, html: writeReportHtml(data, dir), data };
}

/** `kraken-migrate report <runId>` (declared in cli/commands/report.ts); `--summary` is answered by summary.ts. */
export async function reportAction(runId: string, options: unknown): Promise<void> {
  const opts = parseOptions(reportOptionsSchema, options);
  const ctx = loadCliContext();
  const dir = path.resolve(opts.out ?? path.join(ctx.dataDir, 'reports', runId));
  await withServices(ctx, async (s) => {
    const r = await buildReport(await s.db(), ctx.cfg, runId, dir, () => s.temporal());
    if (opts.json) return printJson({ runId, csv: r.csv, html: r.html, totals: r.data.totals });
    println(`Report for run ${runId}:`);
    println(`  ${r.csv}`);
    println(`  ${r.html}`);
  });
}
