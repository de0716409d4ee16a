import pg from 'pg';

// Decimal strings stay strings (money, readings); bigint counts come back as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export type Pool = pg.Pool;

export function createPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 10_000 });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
}
