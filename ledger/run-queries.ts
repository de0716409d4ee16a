import type { Pool } from '../clients/db';
import { OUTCOME_SELECT, type OutcomeRow } from './outcome-columns';
import { sourceSpecSchema } from '../domain/source-spec';
import { selectionSchema, type SourceSpecRef, type Selection, type SupplierStatus } from '../domain/inputs';
import { countBy, failedByCode, runSummary } from './run-summary';

/** Read-only ledger queries the CLI shows to operators (status, watch, list, rerun). */

export interface RunRow {
  runId: string;
  supplierCode: string;
  dryRun: boolean;
  source: SourceSpecRef;
  selection: Selection;
  parentRunId: string | null;
  concurrency: number;
  status: string;
  totals: Record<string, unknown>;
  startedAt: string;
  finishedAt: string | null;
}

export async function runRow(pool: Pool, runId: string): Promise<RunRow | undefined> {
  const r = await pool.query(`select * from migrate.runs where run_id = $1`, [runId]);
  return r.rows[0] ? toRunRow(r.rows[0]) : undefined;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toRunRow(row: any): RunRow {
  return {
    runId: row.run_id,
    supplierCode: row.supplier_code,
    dryRun: row.dry_run,
    source: sourceSpecSchema.parse(row.source),
    selection: selectionSchema.parse(row.selection),
    parentRunId: row.parent_run_id,
    concurrency: row.concurrency,
    status: row.status,
    totals: row.totals ?? {},
    startedAt: new Date(row.started_at).toISOString(),
    finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
  };
}

export interface LedgerProgress {
  outcomes: { completed: number; failed: number; notAttempted: number; inProgress: number };
  /** Accounts still in progress, by the stage they are in. */
  stagesInProgress: Record<string, number>;
  /** Failed and not-attempted accounts by the stage they stopped at. */
  stagesFailed: Record<string, number>;
  topErrors: Array<{ code: string; count: number }>;
}

export async function ledgerProgress(pool: Pool, runId: string, topN = 5): Promise<LedgerProgress> {
  const rows = await runSummary(pool, runId);
  const outcomes = { completed: 0, failed: 0, notAttempted: 0, inProgress: 0 };
  const stagesInProgress: Record<string, number> = {};
  const stagesFailed: Record<string, number> = {};
  for (const row of rows) {
    if (row.outcome === 'completed' || row.outcome === 'completed_with_differences') outcomes.completed += row.n;
    else if (row.outcome === 'failed') outcomes.failed += row.n;
    else if (row.outcome === 'not_attempted') outcomes.notAttempted += row.n;
    else outcomes.inProgress += row.n;
    if (row.outcome === null) stagesInProgress[row.stage] = (stagesInProgress[row.stage] ?? 0) + row.n;
    else if (row.outcome !== 'completed' && row.outcome !== 'completed_with_differences') stagesFailed[row.stage] = (stagesFailed[row.stage] ?? 0) + row.n;
  }
  const topErrors = failedByCode(rows)
    .slice(0, topN)
    .map((x) => ({ code: x.label, count: x.count }));
  return { outcomes, stagesInProgress, stagesFailed, topErrors };
}

/** Ledger rows for many runs at once (`run list`). */
export async function runRows(pool: Pool, runIds: string[]): Promise<Map<string, RunRow>> {
  const out = new Map<string, RunRow>();
  if (runIds.length === 0) return out;
  const r = await pool.query(`select * from migrate.runs where run_id = any($1)`, [runIds]);
  for (const row of r.rows) out.set(row.run_id, toRunRow(row));
  return out;
}

/** Failed and not-attempted accounts of a run by outcome and code (the demo's summary). */
export async function failuresByCode(pool: Pool, runId: string): Promise<Array<{ outcome: string; code: string; n: number }>> {
  const rows = (await runSummary(pool, runId)).filter((r) => r.outcome === 'failed' || r.outcome === 'not_attempted');
  return countBy(rows, (r) => `${r.outcome}\u0000${r.code ?? 'unknown'}`)
    .map((x) => {
      const [outcome, code] = x.label.split('\u0000');
      return { outcome, code, n: x.count };
    })
    .sort((a, b) => (a.outcome < b.outcome ? -1 : a.outcome > b.outcome ? 1 : 0) || b.n - a.n || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

export interface SupplierRow {
  supplierCode: string;
  status: SupplierStatus;
  documentRoot: string;
  reason: string | null;
  updatedBy: string;
  updatedAt: string;
}

export async function supplierRows(pool: Pool, code?: string): Promise<SupplierRow[]> {
  const r = await pool.query(
    `select supplier_code, status, document_root, reason, updated_by, updated_at from migrate.supplier_status
      where $1::text is null or supplier_code = $1 order by supplier_code`,
    [code ?? null],
  );
  return r.rows.map((x) => ({
    supplierCode: x.supplier_code,
    status: x.status,
    documentRoot: x.document_root,
    reason: x.reason,
    updatedBy: x.updated_by,
    updatedAt: new Date(x.updated_at).toISOString(),
  }));
}

/** Per attempt of a run: latency (start to recorded outcome), outcome, code and source (the bench). */
export async function attemptTimings(
  pool: Pool,
  runId: string,
): Promise<Array<{ ms: number | null; finishedMs: number | null; outcome: string | null; error_code: string | null; outcome_source: string | null }>> {
  const r = await pool.query(
    `select extract(epoch from (finished_at - started_at)) * 1000 as ms, extract(epoch from finished_at) * 1000 as finished_ms,
            outcome, error_code, outcome_source
       from migrate.account_attempts where run_id = $1`,
    [runId],
  );
  return r.rows.map(({ finished_ms, ...x }) => ({
    ...x,
    ms: x.ms === null ? null : Number(x.ms),
    finishedMs: finished_ms === null ? null : Number(finished_ms),
  }));
}

export async function finishedCount(pool: Pool, runId: string): Promise<number> {
  const r = await pool.query<{ n: string }>(`select count(*) as n from migrate.account_attempts where run_id = $1 and finished_at is not null`, [runId]);
  return Number(r.rows[0].n);
}

/** Inbox rows of these accounts by match status, and events without an account number in a time range. */
export async function inboxMatchCounts(
  pool: Pool,
  accounts: string[],
  from: Date,
  to: Date,
): Promise<{ byStatus: Record<string, number>; unidentified: number }> {
  const r = await pool.query<{ match_status: string; n: string }>(
    `select match_status, count(*) as n from migrate.inbox where external_identifier = any($1) group by match_status`,
    [accounts],
  );
  const u = await pool.query<{ n: string }>(`select count(*) as n from migrate.inbox where external_identifier is null and received_at between $1 and $2`, [
    from,
    to,
  ]);
  return { byStatus: Object.fromEntries(r.rows.map((e) => [e.match_status, Number(e.n)])), unidentified: Number(u.rows[0].n) };
}

export async function dbNow(pool: Pool): Promise<Date> {
  return (await pool.query<{ now: Date }>('select clock_timestamp() as now')).rows[0].now;
}

/** Every attempt of a run with its recorded outcome (the chaos verdict reads the ledger through this). */
export async function attemptOutcomes(pool: Pool, runId: string): Promise<Array<OutcomeRow & { external_account_number: string }>> {
  const r = await pool.query(`select ${OUTCOME_SELECT} from migrate.account_attempts where run_id = $1`, [runId]);
  return r.rows;
}

/** Per finished attempt of a run: when it finished (epoch ms) and how long it took (the rehearsal's tenths). */
export async function attemptFinishes(pool: Pool, runId: string): Promise<Array<{ atMs: number; latencyMs: number }>> {
  const r = await pool.query<{ at_ms: string; latency_ms: string }>(
    `select extract(epoch from finished_at) * 1000 as at_ms, extract(epoch from (finished_at - started_at)) * 1000 as latency_ms
       from migrate.account_attempts where run_id = $1 and finished_at is not null`,
    [runId],
  );
  return r.rows.map((x) => ({ atMs: Number(x.at_ms), latencyMs: Number(x.latency_ms) }));
}

/** On-disk bytes of the ledger (its inbox apart), of other schemas in the same database, and of named databases. */
export async function storeSizes(
  pool: Pool,
  databases: readonly string[] = [],
): Promise<{ ledger: number; inbox: number; schemas: Record<string, number>; databases: Record<string, number> }> {
  const r = await pool.query<{ schema: string; tbl: string; bytes: string }>(
    `select n.nspname as schema, c.relname as tbl, pg_total_relation_size(c.oid) as bytes
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'm') and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')`,
  );
  const schemas: Record<string, number> = {};
  let inbox = 0;
  for (const x of r.rows) {
    if (x.schema === 'migrate' && x.tbl === 'inbox') inbox += Number(x.bytes);
    else schemas[x.schema] = (schemas[x.schema] ?? 0) + Number(x.bytes);
  }
  const d = databases.length
    ? await pool.query<{ datname: string; bytes: string }>(`select datname, pg_database_size(datname) as bytes from pg_database where datname = any($1)`, [
        [...databases],
      ])
    : { rows: [] };
  return { ledger: schemas.migrate ?? 0, inbox, schemas, databases: Object.fromEntries(d.rows.map((x) => [x.datname, Number(x.bytes)])) };
}
