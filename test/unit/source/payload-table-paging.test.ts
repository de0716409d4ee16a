import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pool, createPool } from '../../../clients/db';
import { freePort } from '../../../harness/stack/child-process';
import { type RunningPostgres, startPostgres } from '../../../harness/stack/postgres';
import { PayloadTableSource } from '../../../source/payload-table';

/**
 * A team's payload table as it usually is (the number its primary key): the run pages it by keyset,
 * and each page must be a range read of one page of keys, not a pass over the whole table (on
 * 1,000,000 rows that pass took 0.5–0.8 s a page, 5,000 pages a run).
 */

const base = path.resolve('.data/test-payload-table-paging');
const ROWS = 20_000;
const PAGE = 200;
const number = (i: number) => `PT-${String(i).padStart(6, '0')}`;

let pg: RunningPostgres;
let pool: Pool;

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows every scan of the plan touched: those it returned and those its filter threw away. */
function rowsScanned(node: PlanNode): number {
  const own = node['Node Type'].endsWith('Scan') ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'] : 0;
  return own + (node.Plans ?? []).reduce((n, p) => n + rowsScanned(p), 0);
}

beforeAll(async () => {
  pg = await startPostgres({ dataDir: path.join(base, 'pg'), port: await freePort() });
  pool = createPool(pg.url, 2);
  await pool.query(`DROP SCHEMA IF EXISTS team CASCADE; CREATE SCHEMA team`);
  await pool.query(`CREATE TABLE team.kraken_payloads (external_account_number text PRIMARY KEY, payload jsonb NOT NULL)`);
  await pool.query(
    `INSERT INTO team.kraken_payloads
       SELECT n, jsonb_build_object('external_account_number', n, 'account_type', 'DOMESTIC')
         FROM (SELECT 'PT-' || lpad(g::text, 6, '0') AS n FROM generate_series(1, $1::int) g) s`,
    [ROWS],
  );
  await pool.query(`VACUUM ANALYZE team.kraken_payloads`);
}, 180_000);

afterAll(async () => {
  await pool?.end();
  await pg?.stop();
});

describe('a payload table is paged by keyset', () => {
  it('gives every number once, in order, a page at a time', async () => {
    const source = new PayloadTableSource(pool, 'team.kraken_payloads');
    const all: string[] = [];
    for (
      let page = await source.listAccountNumbers({ limit: PAGE });
      page.length > 0;
      page = await source.listAccountNumbers({ after: page.at(-1), limit: PAGE })
    ) {
      expect(page.length).toBeLessThanOrEqual(PAGE);
      all.push(...page);
    }
    expect(all).toEqual(Array.from({ length: ROWS }, (_, i) => number(i + 1)));
  });

  it('reads one page of keys from the index for a page in the middle of the table, not every row', async () => {
    const issued: Array<{ text: string; values: unknown[] }> = [];
    const recording = {
      query: (text: string, values: unknown[]) => {
        issued.push({ text, values });
        return pool.query(text, values);
      },
    } as unknown as Pool;
    const source = new PayloadTableSource(recording, 'team.kraken_payloads');
    const page = await source.listAccountNumbers({ after: number(ROWS / 2), limit: PAGE });
    expect(page).toEqual(Array.from({ length: PAGE }, (_, i) => number(ROWS / 2 + 1 + i)));

    expect(issued).toHaveLength(1);
    const [{ text, values }] = issued;
    const r = await pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
    const plan = r.rows[0]['QUERY PLAN'][0].Plan;
    // A range scan stops at the page's end; anything near ROWS / 2 means the page read the table.
    expect(rowsScanned(plan), JSON.stringify(plan)).toBeLessThanOrEqual(PAGE + 1);
  });
});
