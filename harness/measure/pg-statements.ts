import type { Pool } from '../../clients/db';

/**
 * What Postgres did over one pass, from its own statistics: `pg_stat_statements` (the bench's
 * embedded server loads it: `PG_STATEMENT_SETTINGS`) for statements, `pg_stat_all_tables` for
 * autovacuum, the checkpointer's counters for checkpoints. Counts, unlike CPU, do not depend on how
 * loaded the machine is: the same pass issues the same statements on any host.
 */

/** `-c` settings for the embedded server: statement statistics, nested statements (the triggers') included. */
export const PG_STATEMENT_SETTINGS: Readonly<Record<string, string>> = {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track': 'all',
  'pg_stat_statements.max': '2000',
};

/**
 * Who issued a statement, from its text: the platform sandbox (a stand-in a deployment does not run),
 * the pipeline, or either (`begin`/`commit`/`rollback` name no table; both open transactions).
 */
export type StatementOwner = 'pipeline' | 'sandbox' | 'either';
export function statementOwner(query: string): StatementOwner {
  if (/^\s*(begin|commit|rollback)\b/i.test(query)) return 'either';
  // Quoted too: Postgres's own foreign-key checks name the table `"sandbox"."import_processes"`.
  return /(\bsandbox|"sandbox")\./.test(query) ? 'sandbox' : 'pipeline';
}

interface Row {
  key: string;
  toplevel: boolean;
  calls: number;
  ms: number;
  rows: number;
  /** WAL written while it ran (its nested statements' included), and the full-page images in it. */
  walBytes: number;
  walFpi: number;
  query: string;
}

export interface PgSnapshot {
  statements: Map<string, Row>;
  autovacuums: number;
  checkpoints: number;
}

export interface StatementCost {
  query: string;
  owner: StatementOwner;
  /** Run by another statement (a trigger's or a function's), not a round trip of a client. */
  nested: boolean;
  callsPerAccount: number;
  msPerAccount: number;
  rowsPerAccount: number;
  /** Bytes of WAL per account (a top-level statement's include its nested ones'). */
  walBytesPerAccount: number;
}

export interface PgPassStats {
  /** Round trips per account: top-level statements, by who issued them. */
  callsPerAccount: Record<StatementOwner, number>;
  /** Statements run inside others (trigger bodies, functions) per account, the pipeline's. */
  nestedCallsPerAccount: number;
  /** Execution time per account of the pipeline's top-level statements (nested time is inside it). */
  execMsPerAccount: number;
  /**
   * WAL per account that the pipeline's statements wrote, in bytes, and the full-page images in it (the
   * first change of a page after a checkpoint logs the whole page: a checkpoint in the pass raises it).
   */
  walBytesPerAccount: number;
  walFpiPerAccount: number;
  /** Autovacuum and autoanalyze runs, and checkpoints, that happened during the pass. */
  autovacuums: number;
  checkpoints: number;
  /** The statements that cost the most execution time, with their calls. */
  top: StatementCost[];
}

/** Whether the server has the extension loaded (the bench's embedded server does; another may not). */
export async function enableStatementStats(pool: Pool): Promise<boolean> {
  try {
    await pool.query('create extension if not exists pg_stat_statements');
    await pool.query('select 1 from pg_stat_statements limit 1');
    return true;
  } catch {
    return false;
  }
}

/** The application_name the stack's sandbox pool gives its connections (harness/stack/services.ts). */
export const SANDBOX_APPLICATION_NAME = 'platform-sandbox';

/** The pids of the Postgres backends serving the sandbox now (pg_stat_activity). */
export async function sandboxBackendPids(pool: Pool): Promise<Set<number>> {
  const r = await pool
    .query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [SANDBOX_APPLICATION_NAME])
    .catch(() => ({ rows: [] }));
  return new Set(r.rows.map((x) => Number(x.pid)));
}

export async function pgSnapshot(pool: Pool): Promise<PgSnapshot> {
  const s = await pool.query<Row>(
    `select queryid::text || ':' || toplevel::text as key, toplevel, calls::float8 as calls, total_exec_time::float8 as ms, rows::float8 as rows,
            wal_bytes::float8 as "walBytes", wal_fpi::float8 as "walFpi",
            left(regexp_replace(query, '\\s+', ' ', 'g'), 160) as query
       from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())`,
  );
  const v = await pool.query<{ n: number }>(`select coalesce(sum(autovacuum_count + autoanalyze_count), 0)::float8 as n from pg_stat_all_tables`);
  const c = await pool.query<{ n: number }>(`select (num_timed + num_requested)::float8 as n from pg_stat_checkpointer`).catch(() => ({ rows: [{ n: 0 }] }));
  return { statements: new Map(s.rows.map((r) => [r.key, r])), autovacuums: v.rows[0].n, checkpoints: c.rows[0].n };
}

/** The pass's statements per account, between two snapshots; `top` the costliest by execution time. */
export function pgPassStats(before: PgSnapshot, after: PgSnapshot, accounts: number, top = 100): PgPassStats {
  const per = (x: number) => Math.round((x / Math.max(1, accounts)) * 1000) / 1000;
  const perWhole = (x: number) => Math.round(x / Math.max(1, accounts));
  const calls: Record<StatementOwner, number> = { pipeline: 0, sandbox: 0, either: 0 };
  let nested = 0;
  let ms = 0;
  const wal = { bytes: 0, fpi: 0 };
  const costs: StatementCost[] = [];
  for (const [key, a] of after.statements) {
    const b = before.statements.get(key);
    const d = {
      calls: a.calls - (b?.calls ?? 0),
      ms: a.ms - (b?.ms ?? 0),
      rows: a.rows - (b?.rows ?? 0),
      walBytes: a.walBytes - (b?.walBytes ?? 0),
      walFpi: a.walFpi - (b?.walFpi ?? 0),
    };
    if (d.calls <= 0) continue;
    const owner = statementOwner(a.query);
    if (a.toplevel) calls[owner] += d.calls;
    else if (owner === 'pipeline') nested += d.calls;
    if (a.toplevel && owner === 'pipeline') {
      ms += d.ms;
      wal.bytes += d.walBytes;
      wal.fpi += d.walFpi;
    }
    costs.push({
      query: a.query,
      owner,
      nested: !a.toplevel,
      callsPerAccount: per(d.calls),
      msPerAccount: per(d.ms),
      rowsPerAccount: per(d.rows),
      walBytesPerAccount: perWhole(d.walBytes),
    });
  }
  return {
    callsPerAccount: { pipeline: per(calls.pipeline), sandbox: per(calls.sandbox), either: per(calls.either) },
    nestedCallsPerAccount: per(nested),
    execMsPerAccount: per(ms),
    walBytesPerAccount: perWhole(wal.bytes),
    walFpiPerAccount: per(wal.fpi),
    autovacuums: after.autovacuums - before.autovacuums,
    checkpoints: after.checkpoints - before.checkpoints,
    top: costs.sort((x, y) => y.msPerAccount - x.msPerAccount).slice(0, top),
  };
}
