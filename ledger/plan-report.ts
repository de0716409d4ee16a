import type { Pool } from '../clients/db';
import type { OutcomePair } from '../domain/run-compare';
import type { DayActual } from '../domain/plan-report';
import { runSummary } from './run-summary';

/** Ledger reads for `run compare` and `plan report` (docs/plan.md); what they mean is decided in domain/. */

/**
 * Two runs' accounts grouped by (outcome, code) in each: a full join on the account, so an account in
 * one run only has nulls for the other. A handful of rows for a million accounts.
 */
export async function outcomePairs(pool: Pool, runA: string, runB: string): Promise<OutcomePair[]> {
  const r = await pool.query<{ a_outcome: string | null; a_code: string | null; b_outcome: string | null; b_code: string | null; n: string }>(
    `select a.outcome as a_outcome, a.error_code as a_code, b.outcome as b_outcome, b.error_code as b_code, count(*) as n
       from (select external_account_number, outcome, error_code from migrate.account_attempts where run_id = $1) a
       full join (select external_account_number, outcome, error_code from migrate.account_attempts where run_id = $2) b
         using (external_account_number)
      group by 1, 2, 3, 4`,
    [runA, runB],
  );
  return r.rows.map((x) => ({ aOutcome: x.a_outcome, aCode: x.a_code, bOutcome: x.b_outcome, bCode: x.b_code, n: Number(x.n) }));
}

/** Up to `perCode` accounts of each (B code) that failed in B and not in A: what to look at first. */
export async function newlyFailingSamples(pool: Pool, runA: string, runB: string, perCode = 5): Promise<Array<{ code: string; account: string }>> {
  const r = await pool.query<{ code: string; account: string }>(
    `select code, account from (
       select coalesce(b.error_code, 'unknown') as code, b.external_account_number as account,
              row_number() over (partition by b.error_code order by b.external_account_number) as k
         from migrate.account_attempts b
         left join migrate.account_attempts a on a.run_id = $1 and a.external_account_number = b.external_account_number
        where b.run_id = $2 and b.outcome = 'failed' and a.outcome is distinct from 'failed') s
      where k <= $3 order by code, account`,
    [runA, runB, perCode],
  );
  return r.rows;
}

/** The runs whose id starts with `prefix` (a wave's trial loads: `<plan>.<wave>.trial-`), oldest first. */
export async function runsStartingWith(pool: Pool, prefix: string): Promise<Array<{ runId: string; dryRun: boolean; startedAt: string }>> {
  const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const r = await pool.query<{ run_id: string; dry_run: boolean; started_at: Date }>(
    `select run_id, dry_run, started_at from migrate.runs where run_id like $1 order by started_at, run_id`,
    [like],
  );
  return r.rows.map((x) => ({ runId: x.run_id, dryRun: x.dry_run, startedAt: new Date(x.started_at).toISOString() }));
}

/** A run's accounts by outcome, from the ledger's counters (no scan). */
export async function runOutcomeCounts(pool: Pool, runId: string): Promise<{ completed: number; failed: number; not_attempted: number; in_progress: number }> {
  const out = { completed: 0, failed: 0, not_attempted: 0, in_progress: 0 };
  for (const row of await runSummary(pool, runId)) {
    if (row.outcome === 'completed' || row.outcome === 'completed_with_differences') out.completed += row.n;
    else if (row.outcome === 'failed') out.failed += row.n;
    else if (row.outcome === 'not_attempted') out.not_attempted += row.n;
    else out.in_progress += row.n;
  }
  return out;
}

/** Accounts a run started per local day of `zone` (not-attempted ones were never started), with how they ended. */
export async function startedPerDay(pool: Pool, runId: string, zone: string): Promise<DayActual[]> {
  const r = await pool.query<{ day: string; started: string; completed: string; failed: string }>(
    `select to_char(started_at at time zone $2, 'YYYY-MM-DD') as day, count(*) as started,
            count(*) filter (where outcome in ('completed', 'completed_with_differences')) as completed,
            count(*) filter (where outcome = 'failed') as failed
       from migrate.account_attempts
      where run_id = $1 and started_at is not null and outcome is distinct from 'not_attempted'
      group by 1 order by 1`,
    [runId, zone],
  );
  return r.rows.map((x) => ({ day: x.day, started: Number(x.started), completed: Number(x.completed), failed: Number(x.failed) }));
}
