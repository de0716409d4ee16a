import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, statementName, type Pool } from '../../../clients/db';
import { startTestDb } from '../events/helpers';

let db: Awaited<ReturnType<typeof startTestDb>>;
let one: Pool;

beforeAll(async () => {
  db = await startTestDb('db-statements');
  // One connection: what it has prepared is what pg_prepared_statements shows.
  one = createPool(db.url, 1);
}, 120_000);
afterAll(async () => {
  await one?.end();
  await db?.stop();
});

describe("the ledger's statements on a connection", () => {
  it('a statement with parameters is prepared once and reused: the server plans it once, the answers stay right', async () => {
    const text = 'select $1::int + 1 as n';
    for (const v of [1, 2, 3]) expect((await one.query<{ n: number }>(text, [v])).rows[0]?.n).toBe(v + 1);
    const prepared = await one.query<{ name: string; statement: string }>('select name, statement from pg_prepared_statements where statement = $1', [text]);
    expect(prepared.rows).toEqual([{ name: statementName(text), statement: text }]);
  });

  it('a text without parameters goes unnamed, so several statements in one text still run (migrations, test set-up)', async () => {
    await expect(one.query('create temporary table t (n int); insert into t values (7); drop table t')).resolves.toBeDefined();
    await expect(one.query('select 1 as a; select 2 as b', [])).resolves.toBeDefined();
  });

  it('the same text gets the same name, another text another, and past the bound texts stay unnamed', () => {
    expect(statementName('select $1')).toBe(statementName('select $1'));
    expect(statementName('select $1')).not.toBe(statementName('select $2'));
    for (let i = 0; i < 600; i++) statementName(`select ${i} + $1`);
    expect(statementName('select 600 + $1')).toBeUndefined();
    expect(statementName('select $1')).toBeDefined();
  });
});
