import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../../clients/db';
import { APP_ROLE, setAppRolePassword } from '../../../db/migrate';
import { createLedger } from '../../../ledger/attempts';
import { startTestDb } from '../events/helpers';

/** The role the pipeline connects as: the ledger's rows, and nothing more (no superuser, no DDL). */

let db: Awaited<ReturnType<typeof startTestDb>>;
let app: Pool;

beforeAll(async () => {
  db = await startTestDb('app-role');
  await setAppRolePassword(db.url, 'app-role-test-password-0123456789');
  const url = new URL(db.url);
  url.username = APP_ROLE;
  url.password = 'app-role-test-password-0123456789';
  app = createPool(url.toString(), 2);
}, 120_000);

afterAll(async () => {
  await app?.end();
  await db?.stop();
});

describe('the app role', () => {
  it('is no superuser and cannot create roles or databases', async () => {
    const r = await app.query(`select rolsuper, rolcreaterole, rolcreatedb, rolbypassrls from pg_roles where rolname = current_user`);
    expect(r.rows[0]).toEqual({ rolsuper: false, rolcreaterole: false, rolcreatedb: false, rolbypassrls: false });
  });

  it('reads and writes the ledger through the ledger module', async () => {
    await app.query(`insert into migrate.runs (run_id, supplier_code, source, selection, concurrency) values ('r-app', 'SUP', '{}', '{}', 1)`);
    const ref = { runId: 'r-app', externalAccountNumber: 'A-1', supplierCode: 'SUP', dryRun: false };
    const ledger = createLedger(app);
    await ledger.storePrepared(ref, { workflowId: 'wf', request: { customers: [] }, documents: [], stage: 'validate' });
    await ledger.replaceErrors(ref, 'validate', [{ stage: 'validate', code: 'c', detail: 'd' }]);
    expect(await ledger.errorsOf(ref, 'validate')).toEqual([{ code: 'c', attr: '', detail: 'd' }]);
    expect((await app.query(`select count(*)::int as n from legacy.accounts`)).rows[0].n).toBe(0);
  });

  it('refuses DDL, the migrations’ bookkeeping, and writes to the legacy source', async () => {
    for (const sql of [
      'create table migrate.extra (x int)',
      'create table public.extra (x int)',
      'alter table migrate.runs add column extra int',
      'drop table migrate.inbox',
      'truncate migrate.account_errors',
      'create schema extra',
      `insert into migrate.pgmigrations (name, run_on) values ('forged', now())`,
      `delete from legacy.accounts`,
    ])
      await expect(app.query(sql), sql).rejects.toMatchObject({ code: expect.stringMatching(/^42501$/) as string });
  });
});
