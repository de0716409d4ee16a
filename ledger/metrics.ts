import type { Pool } from '../clients/db';

/**
 * What the ledger knows for the metrics (workers/migration-metrics.ts), read in one round of small
 * queries: finished accounts from the counters its triggers keep
 * (db/migrations/1797400000000_run_outcome_summaries.sql), accounts in flight from the partial
 * index of open attempts, the platform window from migrate.platform_pace. Every worker reads the
 * same rows, so every worker serves the same numbers; at a million attempts it reads a few hundred.
 */
export interface LedgerMetrics {
  outcomes: Array<{ run: string; supplier: string; outcome: string; code: string; source: string; n: number }>;
  inFlight: Array<{ run: string; supplier: string; n: number }>;
  /** Accounts finished in the last `recentMinutes` minutes (the current one included), by run: a run's current rate. */
  recentFinished: Array<{ run: string; n: number }>;
  platform: Array<{ tenant: string; window: number; inProcessing: number; accepted: number; throttled: number; serverErrors: number }>;
  reconciliation: Array<{ run: string; supplier: string; field: string; differing: number; unverified: number }>;
  postImport: Array<{ run: string; status: string; n: number }>;
  /** When each run with an exit gate to wait on finished (null: still running). */
  runsFinishedAt: Map<string, Date | null>;
}

export async function readLedgerMetrics(pool: Pool, recentMinutes: number): Promise<LedgerMetrics> {
  const [outcomes, inFlight, recent, platform, reconciliation, postImport, runs] = await Promise.all([
    pool.query<{ run: string; supplier: string; outcome: string; code: string; source: string; n: string }>(
      `select c.run_id as run, r.supplier_code as supplier, c.outcome, c.error_code as code, c.outcome_source as source, sum(c.n) as n
         from migrate.run_outcome_counts c join migrate.runs r using (run_id)
        group by 1, 2, 3, 4, 5 having sum(c.n) <> 0`,
    ),
    pool.query<{ run: string; supplier: string; n: string }>(
      `select a.run_id as run, r.supplier_code as supplier, count(*) as n
         from migrate.account_attempts a join migrate.runs r using (run_id)
        where a.outcome is null group by 1, 2`,
    ),
    recentFinishedByRun(pool, recentMinutes),
    pool.query<{ tenant: string; window: number; in_processing: string; accepted: string; throttled: string; server_errors: string }>(
      `select p.tenant, p.window_size as window, p.accepted, p.throttled, p.server_errors,
              (select count(*) from migrate.platform_permits h where h.tenant = p.tenant and h.accepted_at is not null and h.expires_at > now()) as in_processing
         from migrate.platform_pace p`,
    ),
    pool.query<{ run: string; supplier: string; field: string; differing: number; unverified: number }>(
      `select t.run_id as run, coalesce(r.supplier_code, '') as supplier, t.field, t.differing, t.unverified
         from migrate.reconciliation_field_totals t left join migrate.runs r using (run_id)
        where t.differing <> 0 or t.unverified <> 0`,
    ),
    pool.query<{ run: string; status: string; n: string }>(`select run_id as run, status, count(*) as n from migrate.post_import_items group by 1, 2`),
    pool.query<{ run: string; finished_at: Date | null }>(`select run_id as run, finished_at from migrate.runs`),
  ]);
  return {
    outcomes: outcomes.rows.map((r) => ({ ...r, n: Number(r.n) })),
    inFlight: inFlight.rows.map((r) => ({ ...r, n: Number(r.n) })),
    recentFinished: recent,
    platform: platform.rows.map((r) => ({
      tenant: r.tenant,
      window: Number(r.window),
      inProcessing: Number(r.in_processing),
      accepted: Number(r.accepted),
      throttled: Number(r.throttled),
      serverErrors: Number(r.server_errors),
    })),
    reconciliation: reconciliation.rows.map((r) => ({ ...r, differing: Number(r.differing), unverified: Number(r.unverified) })),
    postImport: postImport.rows.map((r) => ({ ...r, n: Number(r.n) })),
    runsFinishedAt: new Map(runs.rows.map((r) => [r.run, r.finished_at])),
  };
}

/** Accounts each run finished in the last `minutes` minutes (the current one included), from the per-minute counters: its current rate. */
export async function recentFinishedByRun(pool: Pool, minutes: number): Promise<Array<{ run: string; n: number }>> {
  const r = await pool.query<{ run: string; n: string }>(
    `select run_id as run, sum(n) as n from migrate.run_finish_minutes
      where minute > date_trunc('minute', now()) - make_interval(mins => $1)
      group by 1 having sum(n) > 0`,
    [minutes],
  );
  return r.rows.map((x) => ({ run: x.run, n: Number(x.n) }));
}
