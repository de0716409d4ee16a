import type { Pool } from '../clients/db';

/** A page of account numbers, one a line (no trailing newline), with how many and the last (the next page's key). */
export interface AccountLines {
  lines: string;
  count: number;
  last: string | undefined;
}

/**
 * A keyset page of a selection's account numbers, in order, joined into one text in Postgres: a
 * million-account `--list` costs the driver a hundred rows, not a million (docs/throughput.md).
 * `where` filters migrate.account_attempts with `params` as $1…; the page's key and size follow.
 */
export async function accountLines(pool: Pool, where: string, params: unknown[], after: string | undefined, limit: number): Promise<AccountLines> {
  const k = params.length + 1;
  const r = await pool.query<{ lines: string | null; count: number; last: string | null }>(
    `select string_agg(n, E'\\n' order by n) as lines, count(*)::int as count, max(n) as last
       from (select external_account_number as n from migrate.account_attempts
              where ${where} and ($${k}::text is null or external_account_number > $${k})
              order by external_account_number limit $${k + 1}) page`,
    [...params, after ?? null, limit],
  );
  const { lines, count, last } = r.rows[0];
  return { lines: lines ?? '', count, last: last ?? undefined };
}
