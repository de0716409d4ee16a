import type { Pool } from '../clients/db';

/**
 * A run's attempts counted without scanning them: finished ones from the counters the ledger's
 * triggers keep as outcomes are recorded (db/migrations/1797400000000_run_outcome_summaries.sql;
 * 16 rows a run each, 1798200000001_attempt_counters_one_trigger.sql), those in progress (at most
 * the run's concurrency, or the accounts a stopped run left open) from a partial index. At a
 * million attempts it reads a few hundred rows, not a million.
 */
export interface SummaryRow {
  /** null: in progress. */
  outcome: string | null;
  stage: string;
  code: string | null;
  source: string | null;
  n: number;
}

export async function runSummary(pool: Pool, runId: string): Promise<SummaryRow[]> {
  const r = await pool.query<{ outcome: string | null; stage: string; code: string; source: string; n: string }>(
    `select outcome, stage, error_code as code, outcome_source as source, sum(n) as n from migrate.run_outcome_counts where run_id = $1
      group by 1, 2, 3, 4 having sum(n) <> 0
     union all
     select null, stage, '', '', count(*) from migrate.account_attempts where run_id = $1 and outcome is null group by stage`,
    [runId],
  );
  return r.rows.map((x) => ({ outcome: x.outcome, stage: x.stage, code: x.code || null, source: x.source || null, n: Number(x.n) }));
}

/** Accounts finished per minute (the report's throughput), from the same triggers' counters. */
export async function finishMinutes(pool: Pool, runId: string): Promise<Array<{ minute: Date; n: number }>> {
  const r = await pool.query<{ minute: Date; n: string }>(
    `select minute, sum(n) as n from migrate.run_finish_minutes where run_id = $1 group by minute having sum(n) <> 0 order by minute`,
    [runId],
  );
  return r.rows.map((x) => ({ minute: x.minute, n: Number(x.n) }));
}

const isFailed = (o: string | null) => o === 'failed' || o === 'not_attempted';

/** Sums `n` by a key of each row (rows the key maps to undefined left out), largest first, then by key. */
export function countBy(rows: SummaryRow[], key: (r: SummaryRow) => string | undefined): Array<{ label: string; count: number }> {
  const m = new Map<string, number>();
  for (const r of rows) {
    const k = key(r);
    if (k !== undefined) m.set(k, (m.get(k) ?? 0) + r.n);
  }
  return [...m]
    .filter(([, count]) => count !== 0)
    .map(([label, count]) => ({ label, count }))
    .sort((a, b) => b.count - a.count || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

/** Failed and not-attempted accounts by recorded code ('unknown' when none), largest first. */
export const failedByCode = (rows: SummaryRow[]) => countBy(rows, (r) => (isFailed(r.outcome) ? (r.code ?? 'unknown') : undefined));
/** Failed and not-attempted accounts by the stage they stopped at, largest first. */
export const failedByStage = (rows: SummaryRow[]) => countBy(rows, (r) => (isFailed(r.outcome) ? r.stage : undefined));
/** Finished accounts by how their outcome was learnt ('unknown' when unset). */
export const bySource = (rows: SummaryRow[]) => countBy(rows, (r) => (r.outcome === null ? undefined : (r.source ?? 'unknown')));
/** Accounts by outcome ('in_progress' for none yet). */
export const byOutcome = (rows: SummaryRow[]) => countBy(rows, (r) => r.outcome ?? 'in_progress');
