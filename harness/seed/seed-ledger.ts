import { createHash } from 'node:crypto';
import type { Pool } from '../../clients/db';
import { planSeed, SEED_RECONCILED_FIELDS, seedCounts, spreadMultiplier, type PlannedSegment } from './seed-mix';

/**
 * Bulk-loads a run's attempts into the ledger for timing operator commands (`db seed-ledger`).
 * Server-side `insert … select from generate_series`: the rows never cross the wire, so a million
 * attempts load in one statement per table (measured against COPY in the README's "Operator
 * commands at a million rows"). Each account's segment of the mix (ledger/seed-mix.ts) is found
 * from its permuted position, so every statement agrees on it without a lookup table.
 */

export interface SeededRun {
  runId: string;
  supplierCode: string;
  accounts: number;
  /** Account numbers are `<prefix>-<8 digits>`, 1-based. */
  prefix: string;
  byOutcome: Record<string, number>;
  byCode: Record<string, number>;
  /** Rows written per table. */
  rows: { attempts: number; errors: number; reconciliations: number; differences: number };
}

/** A run's account numbers share a prefix of its own, so several seeded runs never share accounts. */
export function seedPrefix(runId: string): string {
  return `S${createHash('sha256').update(runId).digest('hex').slice(0, 6).toUpperCase()}`;
}

/**
 * The plan as rows SQL can join ($n accounts, $m multiplier): `seg.lo <= (i × m) mod n < seg.hi`.
 * Segments carry their errors and differences as JSON arrays.
 */
const PLAN_CTE = `seg as (
  select * from jsonb_to_recordset($1::jsonb) as s(
    idx int, lo bigint, hi bigint, outcome text, stage text, code text, attr text, source text, errors jsonb, differences jsonb)),
acct as (
  select i, $2::text || '-' || lpad(i::text, 8, '0') as ext, ((i - 1) * $4::bigint) % $3::bigint as pos
    from generate_series(1, $3::bigint) as i),
acct_seg as (select a.i, a.ext, s.* from acct a join seg s on a.pos >= s.lo and a.pos < s.hi)`;

function planJson(plan: PlannedSegment[]): string {
  return JSON.stringify(
    plan.map((s, idx) => ({
      idx,
      lo: s.lo,
      hi: s.hi,
      outcome: s.outcome,
      stage: s.stage,
      code: s.code,
      attr: s.attr,
      source: s.source,
      errors: s.errors,
      differences: s.differences,
    })),
  );
}

export async function seedRun(pool: Pool, opts: { runId: string; supplierCode: string; accounts: number; throughputPerSecond?: number }): Promise<SeededRun> {
  const plan = planSeed(opts.accounts);
  const counts = seedCounts(plan);
  const prefix = seedPrefix(opts.runId);
  const rate = opts.throughputPerSecond ?? 22;
  const open = counts.byOutcome.in_progress ?? 0;
  const failedByCode = Object.fromEntries(Object.entries(counts.byCode).filter(([code]) => plan.some((s) => s.outcome === 'failed' && s.code === code)));
  const n = (k: string) => counts.byOutcome[k] ?? 0;
  const totals = {
    enumerated: opts.accounts,
    dispatched: opts.accounts - n('not_attempted'),
    completed: n('completed') + n('completed_with_differences'),
    failed: n('failed'),
    notAttempted: n('not_attempted'),
    alreadyCompletedElsewhere: 0,
    failedByCode,
    completedWithDifferences: n('completed_with_differences'),
    outcomeSources: {},
  };
  const params = [planJson(plan), prefix, opts.accounts, spreadMultiplier(opts.accounts)];
  const client = await pool.connect();
  try {
    await client.query('begin');
    // The run started as long ago as its accounts took at `rate` accounts/s; a run with open accounts is still running.
    await client.query(
      `insert into migrate.runs (run_id, supplier_code, dry_run, source, selection, concurrency, status, totals, started_at, finished_at)
       values ($1, $2, false, '{"kind":"postgres"}', '{"kind":"all"}', 100, $3, $4, now() - make_interval(secs => $5), $6)`,
      [opts.runId, opts.supplierCode, open > 0 ? 'running' : 'completed', JSON.stringify(totals), opts.accounts / rate, open > 0 ? null : new Date()],
    );
    const attempts = await client.query(
      `with ${PLAN_CTE}, run as (select started_at from migrate.runs where run_id = $5)
       insert into migrate.account_attempts (run_id, external_account_number, supplier_code, dry_run, workflow_id, stage, outcome, outcome_source,
                                            error_code, error_attr, platform_account_number, scheduled_at, started_at, finished_at, updated_at)
       select $5, x.ext, $6, false, 'account-import/' || $6 || '/' || x.ext, x.stage, x.outcome, x.source, x.code, nullif(x.attr, ''),
              case when x.outcome in ('completed', 'completed_with_differences') then 'A-' || lpad(to_hex(x.i), 8, '0') end,
              case when x.stage in ('await', 'done') or x.outcome = 'failed' and x.stage = 'platform' then t.started + interval '1 second' end,
              t.started,
              case when x.outcome is not null then t.started + make_interval(secs => 3 + x.i % 5) end,
              t.started + make_interval(secs => 3 + x.i % 5)
         from acct_seg x cross join run
         cross join lateral (select run.started_at + make_interval(secs => x.i / $7::float8) as started) t`,
      [...params, opts.runId, opts.supplierCode, rate],
    );
    const errors = await client.query(
      `with ${PLAN_CTE}
       insert into migrate.account_errors (run_id, external_account_number, stage, code, attr, detail)
       select $5, x.ext, e.stage, e.code, e.attr, e.detail
         from acct_seg x cross join lateral jsonb_to_recordset(x.errors) as e(stage text, code text, attr text, detail text)
        order by x.ext`,
      [...params, opts.runId],
    );
    // Every completed account was read back (the account workflow reconciles after completion).
    const fields = JSON.stringify(Object.fromEntries(SEED_RECONCILED_FIELDS.map((f) => [f, [1, 0, 0]])));
    const recon = await client.query(
      `with ${PLAN_CTE}
       insert into migrate.reconciliations (run_id, external_account_number, platform_account_number, status, checked_fields, differing_fields,
                                             checked_by, matched_fields, unverified_fields, field_counts)
       select $5, x.ext, 'A-' || lpad(to_hex(x.i), 8, '0'), case when x.outcome = 'completed' then 'matched' else 'differing' end,
              $6::int, jsonb_array_length(x.differences), 'workflow', $6::int - jsonb_array_length(x.differences), 0,
              case when x.outcome = 'completed' then $7::jsonb
                   else $7::jsonb || (select jsonb_object_agg(d.field, jsonb_build_array(0, 1, 0)) from jsonb_to_recordset(x.differences) as d(field text)) end
         from acct_seg x where x.outcome in ('completed', 'completed_with_differences')`,
      [...params, opts.runId, SEED_RECONCILED_FIELDS.length, fields],
    );
    const diffs = await client.query(
      `with ${PLAN_CTE}
       insert into migrate.reconciliation_differences (run_id, external_account_number, path, field, expected, found)
       select $5, x.ext, d.path, d.field, to_jsonb('expected ' || d.field), to_jsonb('found ' || d.field)
         from acct_seg x cross join lateral jsonb_to_recordset(x.differences) as d(path text, field text)`,
      [...params, opts.runId],
    );
    await client.query('commit');
    return {
      runId: opts.runId,
      supplierCode: opts.supplierCode,
      accounts: opts.accounts,
      prefix,
      byOutcome: counts.byOutcome,
      byCode: counts.byCode,
      rows: { attempts: attempts.rowCount ?? 0, errors: errors.rowCount ?? 0, reconciliations: recon.rowCount ?? 0, differences: diffs.rowCount ?? 0 },
    };
  } catch (e) {
    await client.query('rollback').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}
