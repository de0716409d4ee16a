// `report <runId> --summary`: the report's summary alone, read from the ledger's per-run counters.
// No CSV, no HTML, no example rows, and no Temporal client: a run still going has its retrying
// accounts listed by `run status`, and the summary says they were left out.
import type { Pool } from '../../clients/db';
import { loadReportSummary } from '../../ledger/report-data';
import type { SupplyFunnelCounts } from '../../ledger/supply';
import { balanceLine, postImportLine, postImportStatus, reconciliationLine } from '../after-import-status';
import { loadCliContext, withServices } from '../context';
import { usageError } from '../errors';
import { parseOptions } from '../option-schema';
import { printJson, println } from '../output';
import { reportOptionsSchema } from './options';

/** The summary, the run's reconciliation and the changes carried over after import: counts only. */
export async function reportSummary(pool: Pool, runId: string) {
  const [summary, after] = await Promise.all([loadReportSummary(pool, runId), postImportStatus(pool, runId)]);
  if (!summary) throw usageError('run_not_found', `no run ${runId} in the ledger`);
  const stillGoing = summary.status === 'running' || summary.status === 'paused';
  return {
    ...summary,
    reconciliation: after.reconciliation,
    postImport: { byStatus: after.postImport.byStatus, failedByCode: after.postImport.failedByCode },
    /** Accounts Temporal is retrying are not read here (they are in `run status` and the full report). */
    retryingOmitted: stillGoing && summary.totals.inProgress > 0,
  };
}
export type ReportSummaryView = Awaited<ReturnType<typeof reportSummary>>;

const list = (rows: Array<{ label: string; count: number }>) => rows.map((r) => `${r.label} ${r.count}`).join(', ');

/** Finished accounts per minute, from the first minute any finished to the last. */
export function throughputLine(perMinute: ReadonlyArray<{ minute: string; count: number }>): string {
  if (perMinute.length === 0) return 'Throughput: no account finished yet';
  const total = perMinute.reduce((n, r) => n + r.count, 0);
  const first = Date.parse(perMinute[0].minute);
  const minutes = Math.round((Date.parse(perMinute[perMinute.length - 1].minute) - first) / 60_000) + 1;
  const peak = perMinute.reduce((p, r) => (r.count > p.count ? r : p));
  return `Throughput: ${total} finished in ${minutes} min from ${perMinute[0].minute}, ${(total / minutes).toFixed(1)}/min on average, peak ${peak.count}/min at ${peak.minute}`;
}

/** The latest census of the run's supplier, as one line. */
export function censusLine(c: NonNullable<ReportSummaryView['census']>): string {
  const n = c.counts;
  return (
    `Supplier census ${c.takenAt}: platform only ${n.platformOnly} (imported elsewhere), ledger only ${n.ledgerOnly}, ` +
    `stuck pending ${n.stuckPending} (over ${c.stuckAfterSeconds} s); the tenant lists ${n.tenantImported} imported, ${n.tenantPending} pending`
  );
}

/** A switch's funnel in one line (`run status`, `report --summary`): accounts, points by status, waiting ones by days. */
export function supplyLine(f: SupplyFunnelCounts, runId: string): string {
  const a = f.accounts;
  const waiting = Object.entries(f.waitingByDays).map(([d, n]) => `${n} for ${d} d`);
  const points = Object.entries(f.byStatus)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return `Switch: accounts ${a.onSupply} on supply, ${a.ended} ended short of it, ${a.waiting} waiting; points ${points}${waiting.length ? `; waiting ${waiting.join(', ')}` : ''}; refused ${f.refused.total} (run supply ${runId})`;
}

/** The summary as the report's HTML shows it, one line a part. */
export function summaryLines(s: ReportSummaryView): string[] {
  const t = s.totals;
  const lines = [
    `Run ${s.runId}  ${s.status}  supplier ${s.supplierCode}${s.dryRun ? '  dry run' : ''}`,
    `Started ${s.startedAt}${s.finishedAt ? `, finished ${s.finishedAt}` : ''}`,
    `Accounts ${t.accounts}: completed ${t.completed}, failed ${t.failed}, not attempted ${t.notAttempted}, in progress ${t.inProgress}`,
  ];
  if (s.failuresByCode.length) lines.push(`Failed and not attempted by code (${s.failedAccounts}): ${list(s.failuresByCode)}`);
  if (s.failuresByStage.length) lines.push(`By stage: ${list(s.failuresByStage)}`);
  if (s.notPreChecked) lines.push(`Tariffs not confirmed before sending: ${s.notPreChecked} accounts`);
  lines.push(throughputLine(s.throughput));
  if (s.outcomeSources.length) lines.push(`Outcomes recorded from: ${list(s.outcomeSources)}`);
  if (s.inbox && s.inbox.total)
    lines.push(
      `Platform events: ${s.inbox.total} (${Object.entries(s.inbox.byStatus)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}), rejected ${s.inbox.rejected}`,
    );
  if (s.reconciliation.checked) lines.push(reconciliationLine(s.reconciliation));
  const balances = balanceLine(s.reconciliation);
  if (balances) lines.push(balances);
  const pi = postImportLine(s.postImport);
  if (pi) lines.push(pi);
  if (s.census) lines.push(censusLine(s.census));
  if (s.supply) lines.push(supplyLine(s.supply, s.runId));
  if (s.retryingOmitted) lines.push(`Retrying accounts: not read (the run is still going; \`kraken-migrate run status ${s.runId}\` lists them from Temporal)`);
  return lines;
}

export async function reportSummaryAction(runId: string, options: unknown): Promise<void> {
  const opts = parseOptions(reportOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const summary = await reportSummary(await s.db(), runId);
    if (opts.json) return printJson(summary);
    for (const line of summaryLines(summary)) println(line);
  });
}
