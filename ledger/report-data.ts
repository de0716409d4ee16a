import { z } from 'zod';
import type { Pool } from '../clients/db';
import { inboxSummary, outcomeSources } from './inbox-report';
import { accountWorkflowId } from '../domain/workflow-ids';
import { afterImportSchema, loadAfterImport } from './after-import-report';
import { EXAMPLES_PER_CODE } from './report-limits';
import { openString, SEALED } from './sealing';
import { personalValuesByAccount, reportDetail } from './report-masking';
import { byOutcome, failedByCode, failedByStage, finishMinutes, runSummary } from './run-summary';
import { latestCensus, recordedCensusSchema } from './census';
import { createSupplyLedger, supplyFunnelSchema } from './supply';

export { EXAMPLES_PER_CODE };

export const failedAccountErrorSchema = z.object({
  externalAccountNumber: z.string(),
  outcome: z.enum(['failed', 'not_attempted']),
  stage: z.string(),
  code: z.string(),
  attr: z.string(),
  detail: z.string(),
  sourceField: z.string().nullable(),
  workflowId: z.string(),
});
export type FailedAccountError = z.infer<typeof failedAccountErrorSchema>;

/**
 * The report's summary: the run, its counts by outcome, code and stage, throughput, outcome sources and
 * events, all from the ledger's per-run counters (`report --summary` prints it alone: cli/report/summary.ts).
 */
export const reportSummarySchema = z.object({
  runId: z.string(),
  supplierCode: z.string(),
  dryRun: z.boolean(),
  status: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  generatedAt: z.string(),
  totals: z.object({ accounts: z.number(), completed: z.number(), failed: z.number(), notAttempted: z.number(), inProgress: z.number() }),
  /** Accounts with a tariff the pre-flight could not confirm from the public catalogue (the platform decided). */
  notPreChecked: z.number().default(0),
  failuresByCode: z.array(z.object({ label: z.string(), count: z.number() })),
  failuresByStage: z.array(z.object({ label: z.string(), count: z.number() })),
  /** Accounts finished per minute (ISO minute start). */
  throughput: z.array(z.object({ minute: z.string(), count: z.number() })),
  outcomeSources: z.array(z.object({ label: z.string(), count: z.number() })),
  /** Platform events received while the run went (matched to it, or claimed by nobody). */
  inbox: z.object({ total: z.number(), byStatus: z.record(z.string(), z.number()), rejected: z.number() }).nullable(),
  /** Failed and not-attempted accounts (all of them are in the CSV). */
  failedAccounts: z.number(),
  /** The latest `supplier census` of the run's supplier (any time, across every run), if one was taken. */
  census: recordedCensusSchema.nullable().default(null),
  /** On a switch: the meter points' funnel (docs/supply.md), as `run status` shows it; null otherwise. */
  supply: supplyFunnelSchema.nullable().default(null),
});
export type ReportSummary = z.infer<typeof reportSummarySchema>;

export const reportDataSchema = reportSummarySchema.extend({
  /**
   * Up to EXAMPLES_PER_CODE failed / not-attempted accounts per code (in failuresByCode's order,
   * accounts by number): one row per error of each (at least one row per account).
   */
  examples: z.array(failedAccountErrorSchema.extend({ recordedCode: z.string() })),
  temporalUiUrl: z.string(),
  namespace: z.string(),
  /** Reconciliation and changes carried over after import. */
  afterImport: afterImportSchema.optional(),
  /** Accounts whose activity was being retried when the report was made (a run still going; read from Temporal, not the ledger). */
  retrying: z
    .array(
      z.object({
        account: z.string(),
        workflowId: z.string(),
        activity: z.string(),
        attempt: z.number(),
        lastFailureCode: z.string().nullable(),
        lastFailureMessage: z.string().nullable(),
        nextRetryAt: z.string().nullable(),
      }),
    )
    .default([]),
});
export type ReportData = z.infer<typeof reportDataSchema>;

/** The summary and the counter rows it came from (the report orders its examples by them). */
async function readSummary(pool: Pool, runId: string): Promise<{ summary: ReportSummary; rows: Awaited<ReturnType<typeof runSummary>> } | undefined> {
  const run = (await pool.query(`select * from migrate.runs where run_id = $1`, [runId])).rows[0];
  if (!run) return undefined;
  const q = async (sql: string) => (await pool.query(sql, [runId])).rows;
  // Counts from the ledger's per-run counters (ledger/run-summary.ts), not a scan of the run's
  // attempts; the reads that remain are independent, side by side on the pool's connections.
  const [rows, sources, preflight, inbox, perMinute, census, supply] = await Promise.all([
    runSummary(pool, runId),
    outcomeSources(pool, runId),
    q(`select count(distinct external_account_number)::int as n from migrate.account_errors where run_id = $1 and stage = 'preflight'`),
    inboxSummary(pool, { runId, listLimit: 1 }),
    finishMinutes(pool, runId),
    latestCensus(pool, run.supplier_code),
    createSupplyLedger(pool).runFunnel(runId),
  ]);
  const outcomes = byOutcome(rows);
  const by = (k: string) => outcomes.find((r) => r.label === k)?.count ?? 0;
  const byCode = failedByCode(rows);
  const summary = reportSummarySchema.parse({
    runId,
    supplierCode: run.supplier_code,
    dryRun: run.dry_run,
    status: run.status,
    startedAt: new Date(run.started_at).toISOString(),
    finishedAt: run.finished_at ? new Date(run.finished_at).toISOString() : null,
    generatedAt: new Date().toISOString(),
    totals: {
      accounts: outcomes.reduce((s, r) => s + r.count, 0),
      completed: by('completed') + by('completed_with_differences'),
      failed: by('failed'),
      notAttempted: by('not_attempted'),
      inProgress: by('in_progress'),
    },
    notPreChecked: Number(preflight[0]?.n ?? 0),
    failuresByCode: byCode,
    failuresByStage: failedByStage(rows),
    throughput: perMinute.map((r) => ({ minute: new Date(r.minute).toISOString(), count: r.n })),
    outcomeSources: Object.entries(sources.bySource)
      .map(([label, count]) => ({ label, count }))
      .sort((a, b) => b.count - a.count),
    inbox: { total: inbox.total, byStatus: inbox.byStatus, rejected: Object.values(inbox.rejectedByReason).reduce((a, b) => a + b, 0) },
    failedAccounts: byCode.reduce((n, r) => n + r.count, 0),
    census: census ?? null,
    supply,
  });
  return { summary, rows };
}

/** The report's summary alone: no example rows, no reconciliation lists (`report --summary`). */
export async function loadReportSummary(pool: Pool, runId: string): Promise<ReportSummary | undefined> {
  return (await readSummary(pool, runId))?.summary;
}

export async function loadReportData(pool: Pool, runId: string, ui: { temporalUiUrl: string; namespace: string }): Promise<ReportData | undefined> {
  const [read, afterImport] = await Promise.all([readSummary(pool, runId), loadAfterImport(pool, runId)]);
  if (!read) return undefined;
  const { summary, rows } = read;
  // Examples per recorded code; accounts without one are found by a null code.
  const codes = [...new Set(rows.filter((r) => r.outcome === 'failed' || r.outcome === 'not_attempted').map((r) => r.code))];
  const rank = new Map(summary.failuresByCode.map((r, i) => [r.label, i]));
  codes.sort((a, b) => (rank.get(a ?? 'unknown') ?? 0) - (rank.get(b ?? 'unknown') ?? 0));
  const examples = await failedExamples(pool, runId, codes, EXAMPLES_PER_CODE);
  const personal = await personalValuesByAccount(
    pool,
    runId,
    examples.filter((r) => r.detail).map((r) => r.external_account_number as string),
  );
  return reportDataSchema.parse({
    ...summary,
    examples: examples.map((r) => ({
      recordedCode: r.recorded_code,
      externalAccountNumber: r.external_account_number,
      outcome: r.outcome,
      stage: r.stage,
      code: r.code,
      attr: r.attr,
      detail: reportDetail(
        openString(pool, SEALED.errorDetail, r.detail as string),
        { attr: r.attr, sourceField: r.source_field },
        personal.get(r.external_account_number),
      ),
      sourceField: r.source_field ?? null,
      workflowId: r.workflow_id || accountWorkflowId(r.supplier_code, r.external_account_number, r.dry_run, runId),
    })),
    temporalUiUrl: ui.temporalUiUrl,
    namespace: ui.namespace,
    afterImport,
  });
}

/**
 * The first `perCode` failed / not-attempted accounts (by number) of each code, with their errors.
 * One index range per code (account_attempts_failed_by_code); accounts without error rows (e.g.
 * not attempted) still get one row, from the attempt itself.
 */
async function failedExamples(pool: Pool, runId: string, codes: Array<string | null>, perCode: number) {
  const r = await pool.query(
    `select a.external_account_number, a.outcome, a.workflow_id, a.supplier_code, a.dry_run, coalesce(a.error_code, 'unknown') as recorded_code,
            coalesce(e.stage, a.stage) as stage, coalesce(e.code, a.error_code, 'unknown') as code,
            coalesce(e.attr, a.error_attr, '') as attr, coalesce(e.detail, '') as detail, e.source_field
       from unnest($2::text[]) with ordinality as c(code, ord)
      cross join lateral (
        select * from migrate.account_attempts x
         where x.run_id = $1 and x.outcome in ('failed', 'not_attempted')
           and (x.error_code = c.code or (c.code is null and x.error_code is null))
         order by x.external_account_number limit $3) a
       left join migrate.account_errors e on e.run_id = a.run_id and e.external_account_number = a.external_account_number
      order by c.ord, a.external_account_number, e.id`,
    [runId, codes, perCode],
  );
  return r.rows;
}
