import type pg from 'pg';
import { z } from 'zod';
import {
  CENSUS_LISTED_CLASSES,
  censusCountsSchema,
  countCensus,
  emptyCensusCounts,
  ledgerHolds,
  type CensusCounts,
  type CensusListedClass,
  type TenantHolds,
} from '../domain/census';

/**
 * The supplier census's side in Postgres (cli/actions/census.ts drives it). Memory stays bounded
 * whatever the number of accounts: the tenant's list goes into a temporary table as it streams,
 * the comparison with the ledger is a join read through a cursor a page at a time, each account
 * classified by `domain/census.ts`, and the accounts each listed class names go into a second
 * temporary table, read back in pages when printed. Everything runs on one connection (temporary
 * tables are the session's) and is dropped with it.
 */

const PAGE = 5000;

export interface TenantEntry {
  external: string;
  imported: boolean;
}

export interface CensusSession {
  /** Empties the tenant's side and loads it again (a list read again after a transient failure starts over). Returns the rows read. */
  loadTenant(entries: AsyncIterable<TenantEntry>): Promise<number>;
  /** Classifies every account the tenant or the ledger knows for the supplier; the listed classes are kept for `listed`. */
  compare(nowMs: number, stuckAfterMs: number): Promise<CensusCounts>;
  /** One listed class's external account numbers in order, a page at a time. */
  listed(cls: CensusListedClass): AsyncGenerator<string[]>;
  /** Records the census's counts (the report and the plan gates read the latest). */
  record(stuckAfterSeconds: number, counts: CensusCounts): Promise<void>;
  close(): Promise<void>;
}

export async function openCensus(pool: pg.Pool, supplierCode: string): Promise<CensusSession> {
  const client = await pool.connect();
  let broken = false;
  const q = async <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
    try {
      return await client.query<R>(text, values);
    } catch (e) {
      broken = true;
      throw e;
    }
  };
  await q(`create temporary table if not exists census_tenant (ext text primary key, imported boolean not null)`);
  await q(`create temporary table if not exists census_listed (cls text not null, ext text not null, primary key (cls, ext))`);
  await q('truncate census_tenant, census_listed');

  return {
    async loadTenant(entries) {
      await q('truncate census_tenant');
      let n = 0;
      let batch: TenantEntry[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        // A number listed twice (an imported account and a pending repeat) counts as imported.
        await q(
          `insert into census_tenant (ext, imported) select * from unnest($1::text[], $2::boolean[])
           on conflict (ext) do update set imported = census_tenant.imported or excluded.imported`,
          [batch.map((e) => e.external), batch.map((e) => e.imported)],
        );
        n += batch.length;
        batch = [];
      };
      for await (const e of entries) {
        batch.push(e);
        if (batch.length >= PAGE) await flush();
      }
      await flush();
      return n;
    },

    async compare(nowMs, stuckAfterMs) {
      await q('truncate census_listed');
      const counts = emptyCensusCounts();
      await q('begin');
      try {
        await q(
          `declare census_cursor no scroll cursor for
           with ledger as (
             select external_account_number as ext,
                    bool_or(outcome in ('completed', 'completed_with_differences') and platform_account_number is not null) as completed,
                    bool_or(outcome is null) as open,
                    min(scheduled_at) filter (where outcome is null) as scheduled_at
             from migrate.account_attempts where supplier_code = $1 and not dry_run
             group by external_account_number
           )
           select coalesce(t.ext, l.ext) as ext, t.imported, coalesce(l.completed, false) as completed,
                  coalesce(l.open, false) as open, l.ext is not null as attempted,
                  (extract(epoch from l.scheduled_at) * 1000)::float8 as scheduled_at_ms
           from census_tenant t full join ledger l on l.ext = t.ext`,
          [supplierCode],
        );
        for (;;) {
          const page = await q<{
            ext: string;
            imported: boolean | null;
            completed: boolean;
            open: boolean;
            attempted: boolean;
            scheduled_at_ms: number | null;
          }>(`fetch ${PAGE} from census_cursor`);
          if (page.rows.length === 0) break;
          const listed: Array<[CensusListedClass, string]> = [];
          for (const r of page.rows) {
            const tenant: TenantHolds = r.imported === null ? 'absent' : r.imported ? 'imported' : 'pending';
            const facts = { tenant, ledger: ledgerHolds(r), scheduledAtMs: r.scheduled_at_ms };
            const cls = countCensus(counts, facts, nowMs, stuckAfterMs);
            if (cls && (CENSUS_LISTED_CLASSES as readonly string[]).includes(cls)) listed.push([cls as CensusListedClass, r.ext]);
          }
          if (listed.length > 0)
            await q(`insert into census_listed (cls, ext) select * from unnest($1::text[], $2::text[])`, [listed.map((x) => x[0]), listed.map((x) => x[1])]);
        }
        await q('commit');
      } catch (e) {
        await client.query('rollback').catch(() => undefined);
        throw e;
      }
      return counts;
    },

    async *listed(cls) {
      let after = '';
      for (;;) {
        const r = await q<{ ext: string }>(`select ext from census_listed where cls = $1 and ext > $2 order by ext limit ${PAGE}`, [cls, after]);
        if (r.rows.length === 0) return;
        yield r.rows.map((x) => x.ext);
        after = r.rows[r.rows.length - 1].ext;
      }
    },

    async record(stuckAfterSeconds, counts) {
      await q(`insert into migrate.supplier_censuses (supplier_code, stuck_after_seconds, counts) values ($1, $2, $3)`, [
        supplierCode,
        stuckAfterSeconds,
        JSON.stringify(counts),
      ]);
    },

    async close() {
      // A connection that failed mid-way may hold an open transaction: it is not handed back to the pool.
      if (!broken) await client.query('drop table if exists census_tenant, census_listed').catch(() => (broken = true));
      client.release(broken);
    },
  };
}

/** A census as recorded: what the report and the plan gates read. */
export const recordedCensusSchema = z.object({
  supplierCode: z.string(),
  takenAt: z.string(),
  stuckAfterSeconds: z.number(),
  counts: censusCountsSchema,
});
export type RecordedCensus = z.infer<typeof recordedCensusSchema>;

/** The latest census recorded for a supplier, if any. */
export async function latestCensus(pool: pg.Pool, supplierCode: string): Promise<RecordedCensus | undefined> {
  const r = await pool.query<{ taken_at: Date; stuck_after_seconds: number; counts: unknown }>(
    `select taken_at, stuck_after_seconds, counts from migrate.supplier_censuses where supplier_code = $1 order by taken_at desc, id desc limit 1`,
    [supplierCode],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  return { supplierCode, takenAt: row.taken_at.toISOString(), stuckAfterSeconds: row.stuck_after_seconds, counts: censusCountsSchema.parse(row.counts) };
}
