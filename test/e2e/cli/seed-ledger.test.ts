import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../../clients/db';
import { createLedger, ledgerProgress } from '../../../ledger';
import type { AccountLines } from '../../../ledger/account-lines';
import { failedOfRun, reconcileSelection } from '../../../cli/actions/ledger-lists';
import { postImportStatus } from '../../../cli/post-import';
import { EXAMPLES_PER_CODE } from '../../../ledger/report-data';
import { planSeed, seedCounts } from '../../../harness/seed/seed-mix';
import { cli as runCli } from '../../support/cli';
import { parseCsv } from '../../support/csv';
import { stackEnv } from '../helpers';

/**
 * `db seed-ledger` on the e2e stack's Postgres, then what an operator checks of a run that size:
 * the report's counts are the seed's mix, the HTML shows a page of examples per code while the CSV
 * has every row, and `rerun-failed --code X --list` selects exactly the accounts that failed with X.
 */
const ACCOUNTS = 2000;
let env: Record<string, string>;
let pool: Pool;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-ledger-e2e-'));
const runId = `seed-e2e-${Date.now().toString(36)}`;

/** `db seed-ledger` belongs to the harness; everything else is the installed product. */
const cli = (args: string[], extraEnv: Record<string, string> = {}) =>
  runCli(args, { env: { ...env, ...extraEnv }, entry: args[1] === 'seed-ledger' ? 'harness' : 'product', timeoutMs: 600_000 });

const plan = planSeed(ACCOUNTS);
const mix = seedCounts(plan);

beforeAll(async () => {
  env = stackEnv();
  pool = createPool(env.DATABASE_URL, 2);
});

afterAll(async () => {
  await pool.query('delete from migrate.account_attempts where run_id = $1', [runId]);
  await pool.query('delete from migrate.reconciliation_field_totals where run_id = $1', [runId]);
  await pool.query('delete from migrate.reconciliation_clean_fields where run_id = $1', [runId]);
  await pool.query('delete from migrate.runs where run_id = $1', [runId]);
  await pool.end();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('db seed-ledger and the operator commands on what it seeds', () => {
  it('refuses a ledger that does not look local, and writes nothing', async () => {
    const remote = await cli(['db', 'seed-ledger', '--accounts', '10', '--run-id', runId], { DATABASE_URL: 'postgres://u:p@ledger.example.com:5432/kraken' });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("error [not_a_local_ledger]: refusing to seed: DATABASE_URL's host ledger.example.com is not this machine");
    // Production mode wants https platform URLs and a stated codec auth mode: on this machine, so only the mode refuses.
    const https = {
      CODEC_AUTH_MODE: 'shared-token',
      PLATFORM_BASE_URL: 'https://127.0.0.1:9/v1/',
      PLATFORM_V2_BASE_URL: 'https://127.0.0.1:9/v2/',
      PLATFORM_GRAPHQL_URL: 'https://127.0.0.1:9/v1/graphql/',
    };
    const production = await cli(['db', 'seed-ledger', '--accounts', '10', '--run-id', runId], { KRAKEN_MIGRATE_MODE: 'production', ...https });
    expect(production.code).toBe(2);
    expect(production.stderr).toContain('KRAKEN_MIGRATE_MODE is production');
    const tenant = await cli(['db', 'seed-ledger', '--accounts', '10', '--run-id', runId], { PLATFORM_V2_BASE_URL: 'https://api.tenant.example/v2/' });
    expect(tenant.code).toBe(2);
    expect(tenant.stderr).toContain('PLATFORM_V2_BASE_URL');
    expect((await pool.query('select 1 from migrate.runs where run_id = $1', [runId])).rowCount).toBe(0);
  });

  it('seeds the mix it documents: mostly completed, a few % failed over several codes, some not attempted, some open', async () => {
    const r = await cli(['db', 'seed-ledger', '--accounts', String(ACCOUNTS), '--run-id', runId, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const seeded = JSON.parse(r.stdout).runs[0];
    expect(seeded).toMatchObject({ runId, accounts: ACCOUNTS, byOutcome: mix.byOutcome, byCode: mix.byCode });
    // What "realistic" means here, in numbers a reader can check against the help.
    const o = mix.byOutcome;
    expect(o.completed + o.completed_with_differences).toBeGreaterThan(0.9 * ACCOUNTS);
    expect(o.failed / ACCOUNTS).toBeGreaterThan(0.02);
    expect(o.failed / ACCOUNTS).toBeLessThan(0.06);
    expect(plan.filter((s) => s.outcome === 'failed' && s.hi > s.lo).length).toBeGreaterThanOrEqual(5);
    expect(o.not_attempted).toBeGreaterThan(0);
    expect(o.in_progress).toBeGreaterThan(0);
    expect(o.completed_with_differences).toBeGreaterThan(0);
    // A second seed of the same run is refused.
    const again = await cli(['db', 'seed-ledger', '--accounts', '10', '--run-id', runId]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('run_exists');
  });

  it("run status's ledger part and the report count the seed's mix, by outcome and by code", async () => {
    const progress = await ledgerProgress(pool, runId, 20);
    const o = mix.byOutcome;
    expect(progress.outcomes).toEqual({
      completed: o.completed + o.completed_with_differences,
      failed: o.failed,
      notAttempted: o.not_attempted,
      inProgress: o.in_progress,
    });
    expect(Object.fromEntries(progress.topErrors.map((e) => [e.code, e.count]))).toEqual(mix.byCode);
    // Every completed account was read back; those with differences differ on the seed's two fields
    // (counted per field by the reconciliations table's triggers).
    const { reconciliation } = await postImportStatus(pool, runId);
    const checked = o.completed + o.completed_with_differences;
    expect(reconciliation).toMatchObject({ checked, matched: o.completed, differing: o.completed_with_differences, missing: 0, unverified: 0 });
    expect(reconciliation.byField).toEqual({
      'customers.*.family_name': o.completed_with_differences,
      'supply_addresses.*.meter_points.*.agreements.*.tariff_code': o.completed_with_differences,
    });
    expect(reconciliation.fields.find((f) => f.field === 'customers.*.family_name')).toEqual({
      field: 'customers.*.family_name',
      matched: o.completed,
      differing: o.completed_with_differences,
      unverified: 0,
    });
    expect(reconciliation.fields.find((f) => f.field === 'customers.*.email')).toEqual({
      field: 'customers.*.email',
      matched: checked,
      differing: 0,
      unverified: 0,
    });

    const dir = path.join(tmp, 'report');
    const r = await cli(['report', runId, '--out', dir, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).totals).toEqual({
      accounts: ACCOUNTS,
      completed: o.completed + o.completed_with_differences,
      failed: o.failed,
      notAttempted: o.not_attempted,
      inProgress: o.in_progress,
    });
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
    const byCodeChart = html.slice(html.indexOf('id="by-code"'), html.indexOf('</svg>', html.indexOf('id="by-code"')));
    const bars = Object.fromEntries([...byCodeChart.matchAll(/data-label="([^"]+)" data-count="(\d+)"/g)].map((m) => [m[1], Number(m[2])]));
    expect(bars).toEqual(mix.byCode);
    const stagesChart = html.slice(html.indexOf('id="by-stage"'), html.indexOf('</svg>', html.indexOf('id="by-stage"')));
    const stages = Object.fromEntries([...stagesChart.matchAll(/data-label="([^"]+)" data-count="(\d+)"/g)].map((m) => [m[1], Number(m[2])]));
    const expectedStages: Record<string, number> = {};
    for (const s of plan) if (s.outcome === 'failed' || s.outcome === 'not_attempted') expectedStages[s.stage] = (expectedStages[s.stage] ?? 0) + s.hi - s.lo;
    expect(stages).toEqual(expectedStages);
  });

  it('the HTML lists at most a page of example accounts per code, the CSV every row', async () => {
    const dir = path.join(tmp, 'report');
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
    for (const [code, n] of Object.entries(mix.byCode)) {
      const start = html.indexOf(`<table class="failed-accounts" data-code="${code}">`);
      expect(start, code).toBeGreaterThan(0);
      const table = html.slice(start, html.indexOf('</table>', start));
      const listed = [...table.matchAll(/<a class="wf"[^>]*>([^<]+)<\/a>/g)].map((m) => m[1]);
      expect(listed.length, code).toBe(Math.min(n, EXAMPLES_PER_CODE));
      const more = html.match(new RegExp(`<p class="meta more" data-code="${code}">([\\d,]+) more with this code in failed-accounts.csv.</p>`));
      if (n > EXAMPLES_PER_CODE) expect(Number(more?.[1].replace(/,/g, '')), code).toBe(n - EXAMPLES_PER_CODE);
      else expect(more, code).toBeNull();
    }
    expect([...html.matchAll(/<a class="wf"/g)].length).toBeLessThanOrEqual(EXAMPLES_PER_CODE * Object.keys(mix.byCode).length);

    const rows = parseCsv(fs.readFileSync(path.join(dir, 'failed-accounts.csv'), 'utf8'));
    expect(rows[0]).toEqual(['external_account_number', 'outcome', 'stage', 'code', 'attr', 'detail', 'source_field']);
    // Every error of every failed account, one row per not-attempted account, one per difference.
    const expectedRows = (outcome: string) =>
      plan
        .filter((s) => s.outcome === outcome)
        .reduce((sum, s) => sum + (s.hi - s.lo) * Math.max(1, outcome === 'completed_with_differences' ? s.differences.length : s.errors.length), 0);
    const count = (outcome: string) => rows.slice(1).filter((r) => r[1] === outcome).length;
    expect(count('failed')).toBe(expectedRows('failed'));
    expect(count('not_attempted')).toBe(expectedRows('not_attempted'));
    expect(count('completed_with_differences')).toBe(expectedRows('completed_with_differences'));
    expect(rows.length - 1).toBe(expectedRows('failed') + expectedRows('not_attempted') + expectedRows('completed_with_differences'));
    const failedAccounts = new Set(
      rows
        .slice(1)
        .filter((r) => r[1] === 'failed' || r[1] === 'not_attempted')
        .map((r) => r[0]),
    );
    expect(failedAccounts.size).toBe(mix.byOutcome.failed + mix.byOutcome.not_attempted);
  });

  it('rerun-failed --code X --list selects exactly the accounts that failed with X; reconcile --list the completed ones', async () => {
    const csv = parseCsv(fs.readFileSync(path.join(tmp, 'report', 'failed-accounts.csv'), 'utf8')).slice(1);
    for (const code of ['tariff_code_not_found', 'import_cancelled']) {
      const r = await cli(['run', 'rerun-failed', runId, '--code', code, '--list']);
      expect(r.code).toBe(0);
      const listed = r.stdout.trim().split('\n');
      // The CSV's first row of each failed account names the code it recorded.
      const firstRow = new Map<string, string>();
      for (const row of csv) if (row[1] === 'failed' && !firstRow.has(row[0])) firstRow.set(row[0], row[3]);
      const withCode = [...firstRow]
        .filter(([, c]) => c === code)
        .map(([a]) => a)
        .sort();
      expect(listed).toEqual(withCode);
      expect(listed).toHaveLength(mix.byCode[code]);
      expect(r.stderr).toContain(`${listed.length} accounts of ${runId} would be rerun (codes ${code}).`);
    }
    const all = await cli(['run', 'rerun-failed', runId, '--list']);
    expect(all.stdout.trim().split('\n')).toHaveLength(mix.byOutcome.failed + mix.byOutcome.not_attempted);
    const reconcile = await cli(['run', 'reconcile', runId, '--list']);
    expect(reconcile.code).toBe(0);
    expect(reconcile.stdout.trim().split('\n')).toHaveLength(mix.byOutcome.completed + mix.byOutcome.completed_with_differences);
  });

  it('the lists page through the selection: small pages give every account once, in order, as the rerun selection reads them', async () => {
    const lines = async (pages: AsyncIterable<AccountLines>) => {
      const out: string[] = [];
      for await (const p of pages) if (p.count) out.push(...p.lines.split('\n'));
      return out;
    };
    const rows = async (sql: string) => (await pool.query<{ n: string }>(sql, [runId])).rows.map((r) => r.n);
    const ledger = createLedger(pool);
    const failed = await rows(
      `select external_account_number as n from migrate.account_attempts where run_id = $1 and outcome in ('failed', 'not_attempted') order by 1`,
    );
    expect(await lines(failedOfRun(ledger, runId, undefined, 7))).toEqual(failed);
    const selected: string[] = [];
    for (let after: string | undefined; ;) {
      const page = await ledger.failedAccounts(runId, undefined, after, 7);
      selected.push(...page);
      if (page.length < 7) break;
      after = page[page.length - 1];
    }
    expect(selected).toEqual(failed);
    const cancelled = await rows(
      `select external_account_number as n from migrate.account_attempts where run_id = $1 and outcome = 'failed' and error_code = 'import_cancelled' order by 1`,
    );
    expect(await lines(failedOfRun(ledger, runId, ['import_cancelled'], 5))).toEqual(cancelled);
    const completed = await rows(
      `select external_account_number as n from migrate.account_attempts where run_id = $1 and outcome in ('completed', 'completed_with_differences') order by 1`,
    );
    expect(await lines(reconcileSelection(pool, runId, 97))).toEqual(completed);
  });

  it("deleting the run's attempts takes their checks out of the per-field counts", async () => {
    await pool.query('delete from migrate.account_attempts where run_id = $1', [runId]);
    const { reconciliation } = await postImportStatus(pool, runId);
    expect(reconciliation).toMatchObject({ checked: 0, fields: [] });
  });
});
