import pg from 'pg';

// Decimal strings stay strings (money, readings); bigint counts come back as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/**
 * `applicationName` names the process to Postgres (pg_stat_activity, and the ledger's
 * started_by / recorded_by columns, which a trigger fills from it); Postgres keeps 63 bytes.
 */
export function createPool(url: string, max = 10, opts: { applicationName?: string } = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 10_000, application_name: opts.applicationName?.slice(0, 63) });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
}
