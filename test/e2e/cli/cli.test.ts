import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findChromium, launchChromium } from '../../../harness/browser/chromium';
import { cli as runCli } from '../../support/cli';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Client } from '@temporalio/client';
import { createPool, type Pool } from '../../../clients/db';
import { loadCodecKeys } from '../../../codec/keys';
import { useLedgerKeys } from '../../../ledger/sealing';
import { connectClient } from '../../../clients/temporal';
import { parseConfig, type Config } from '../../../config';
import { actualDataDir } from '../../../harness/stack/postgres';
import { runWorkflowId } from '../../../domain/workflow-ids';
import { KmAccount } from '../../../domain/search-attributes';
import { stackEnv } from '../helpers';

let env: Record<string, string>;
let cfg: Config;
let pool: Pool;
let client: Client;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-e2e-'));

/** The CLI as an operator runs it, pointed at the e2e stack (`generate` belongs to the harness). */
const cli = (args: string[], timeoutMs?: number, extraEnv: Record<string, string> = {}) =>
  runCli(args, { env: { ...env, ...extraEnv }, timeoutMs, entry: args[0] === 'generate' ? 'harness' : 'product' });

async function outcomes(runId: string) {
  const r = await pool.query(
    `select count(*) filter (where outcome = 'completed')::int as completed, count(*) filter (where outcome = 'failed')::int as failed,
            count(*) filter (where outcome = 'not_attempted')::int as not_attempted, count(*) filter (where outcome is null)::int as open
       from migrate.account_attempts where run_id = $1`,
    [runId],
  );
  return r.rows[0] as { completed: number; failed: number; not_attempted: number; open: number };
}

beforeAll(async () => {
  env = stackEnv();
  cfg = parseConfig(env);
  pool = useLedgerKeys(createPool(cfg.DATABASE_URL!, 3), loadCodecKeys(cfg));
  client = await connectClient(cfg);
  // Only ever the e2e stack's own database: the one whose data its DATA_DIR holds, or names when
  // Postgres was relocated out of a private checkout.
  const dataDirectory = (await pool.query<{ d: string }>(`select current_setting('data_directory') as d`)).rows[0].d;
  expect(path.resolve(dataDirectory)).toBe(path.resolve(actualDataDir(path.join(cfg.DATA_DIR, 'postgres'))));
  // `run start --limit N` takes the first N accounts of the whole legacy schema. The e2e files share
  // one stack and run one after another in one fork; the others seed uniquely prefixed accounts and
  // select them by list, so emptying what they left behind does not touch a running test.
  const tables = await pool.query<{ t: string }>(`select tablename as t from pg_tables where schemaname = 'legacy' and tablename <> 'pgmigrations'`);
  if (tables.rows.length > 0) await pool.query(`truncate ${tables.rows.map((r) => `legacy."${r.t}"`).join(', ')} cascade`);
});

afterAll(async () => {
  await client?.connection.close();
  await pool?.end();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('kraken-migrate against the running stack', () => {
  let runId = '';
  let reportDir = '';

  it('generates accounts into the legacy schema', async () => {
    const r = await cli(['generate', '--accounts', '60', '--seed', '4242', '--defect-rate', '0.5', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ accounts: 60, postgres: { documents: expect.any(Number) } });
    const n = await pool.query<{ n: number }>('select count(distinct account_number)::int as n from legacy.accounts');
    expect(n.rows[0].n).toBe(60);
  });

  it('platform check passes against the strict sandbox: four steps ok, exit 0; a wrong key fails with exit 1', async () => {
    const r = await cli(['platform', 'check', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { ok: boolean; steps: Array<{ step: string; ok: boolean; status?: number }> };
    expect(out.steps.map((s) => [s.step, s.ok, s.status])).toEqual([
      ['token', true, 200],
      ['catalogue', true, 200],
      ['validate', true, 200],
      ['import_status', true, 404],
    ]);
    const bad = await cli(['platform', 'check'], 60_000, {
      PLATFORM_AUTH_MODE: 'jwt',
      PLATFORM_TOKEN_INPUT: 'organizationSecretKey',
      PLATFORM_ORGANIZATION_SECRET_KEY: 'sk_wrong_0123456789abcdef',
    });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/FAILED token .*KT-CT-1135/);
    expect(bad.stdout).not.toContain('sk_wrong_0123456789abcdef');
  });

  it('run start --limit 20 --json starts a run and names its workflow and UI link', async () => {
    const r = await cli(['run', 'start', '--limit', '20', '--concurrency', '10', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    runId = out.runId;
    expect(runId).toMatch(/^run-\d{8}-\d{6}-[0-9a-f]{4}$/);
    expect(out.workflowId).toBe(runWorkflowId(runId));
    expect(out.uiUrl).toBe(`${cfg.TEMPORAL_UI_URL}/namespaces/${cfg.TEMPORAL_NAMESPACE}/workflows/${encodeURIComponent(out.workflowId)}`);
    const desc = await client.workflow.getHandle(out.workflowId).describe();
    expect(desc.type).toBe('migrationRunWorkflow');
  });

  it('run watch follows the run to its end; exit 0 only if every account completed', async () => {
    const r = await cli(['run', 'watch', runId]);
    const o = await outcomes(runId);
    expect(o.completed + o.failed + o.not_attempted).toBe(20);
    expect(o.open).toBe(0);
    expect(r.code).toBe(o.failed + o.not_attempted === 0 ? 0 : 1);
    // Not a terminal: progress comes as lines, the last one at the end.
    expect(r.stdout).toMatch(new RegExp(`${runId} (completed|running) \\d+/20`));
    expect(r.stdout).toContain(`Run ${runId} completed: completed ${o.completed}, failed ${o.failed}, not attempted ${o.not_attempted}.`);
    expect(o.failed).toBeGreaterThan(0); // defect rate 0.5 over 20 accounts: the report below needs failures
  });

  it("the run's page in the Temporal UI links to its accounts; its failed list is exactly the ledger's failed accounts", async () => {
    const desc = await client.workflow.getHandle(runWorkflowId(runId)).describe();
    const details = (await desc.staticDetails()) ?? '';
    const r = await cli(['run', 'status', runId, '--json']);
    const views = JSON.parse(r.stdout).accountViews as Record<'all' | 'failed' | 'running' | 'differing', string>;
    for (const [label, url] of [
      ['all', views.all],
      ['failed', views.failed],
      ['still running', views.running],
      ['completed with differences', views.differing],
    ]) {
      expect(details).toContain(`[${label}](${url})`);
      expect(url.startsWith(`${cfg.TEMPORAL_UI_URL}/namespaces/${cfg.TEMPORAL_NAMESPACE}/workflows?query=`)).toBe(true);
    }
    // What the UI lists for that link is what the ledger says failed (visibility is eventually consistent).
    const query = new URL(views.failed).searchParams.get('query')!;
    const failed = await pool.query<{ a: string }>(
      `select external_account_number as a from migrate.account_attempts where run_id = $1 and outcome = 'failed'`,
      [runId],
    );
    const want = failed.rows.map((x) => x.a).sort();
    let listed: string[] = [];
    for (let i = 0; i < 40; i++) {
      listed = [];
      for await (const w of client.workflow.list({ query })) listed.push(String(w.typedSearchAttributes.get(KmAccount)));
      listed.sort();
      if (listed.length === want.length) break;
      await new Promise((res) => setTimeout(res, 500));
    }
    expect(want.length).toBeGreaterThan(0);
    expect(listed).toEqual(want);
  });

  it('run status --json has the run state, outcomes and top errors', async () => {
    const r = await cli(['run', 'status', runId, '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    const o = await outcomes(runId);
    expect(s).toMatchObject({
      runId,
      workflowId: runWorkflowId(runId),
      workflowStatus: 'COMPLETED',
      ledgerStatus: 'completed',
      supplierCode: cfg.IMPORT_SUPPLIER_CODE,
      dryRun: false,
      outcomes: { completed: o.completed, failed: o.failed, notAttempted: o.not_attempted, inProgress: 0 },
    });
    expect(s.topErrors.reduce((n: number, e: { count: number }) => n + e.count, 0)).toBe(o.failed + o.not_attempted);
    const codes = await pool.query(`select distinct error_code from migrate.account_attempts where run_id = $1 and outcome = 'failed'`, [runId]);
    expect(s.topErrors.map((e: { code: string }) => e.code).sort()).toEqual(codes.rows.map((x) => x.error_code).sort());
  });

  it('run list --json shows the run with its ledger totals', async () => {
    const r = await cli(['run', 'list', '--json']);
    expect(r.code).toBe(0);
    const mine = JSON.parse(r.stdout).find((x: { runId: string }) => x.runId === runId);
    expect(mine).toMatchObject({
      workflowId: runWorkflowId(runId),
      kind: 'run',
      status: 'COMPLETED',
      ledgerStatus: 'completed',
      supplierCode: cfg.IMPORT_SUPPLIER_CODE,
    });
  });

  it('report writes failed-accounts.csv (one row per error) and report.html', async () => {
    reportDir = path.join(tmp, 'report');
    const r = await cli(['report', runId, '--out', reportDir]);
    expect(r.code).toBe(0);
    const csvPath = path.join(reportDir, 'failed-accounts.csv');
    const htmlPath = path.join(reportDir, 'report.html');
    expect(r.stdout).toContain(csvPath);
    expect(r.stdout).toContain(htmlPath);
    const lines = fs.readFileSync(csvPath, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe('external_account_number,outcome,stage,code,attr,detail,source_field');
    const errors = await pool.query(
      `select a.external_account_number from migrate.account_attempts a left join migrate.account_errors e using (run_id, external_account_number)
        where a.run_id = $1 and a.outcome in ('failed', 'not_attempted')`,
      [runId],
    );
    // Detail text can span lines inside quotes, so count rows by their leading account number.
    const accounts = new Set(errors.rows.map((x) => x.external_account_number));
    expect(lines.filter((l) => accounts.has(l.split(',')[0].replace(/^'/, ''))).length).toBe(errors.rowCount);
    expect(fs.readFileSync(htmlPath, 'utf8')).toContain(`Migration run ${runId}`);
  });

  it('report.html renders in a real browser: charts drawn, links point at the account executions', async (ctx) => {
    const CHROMIUM = await findChromium();
    if (!CHROMIUM) {
      // In CI a missing browser is a failure, never a skip.
      if (process.env.CI)
        throw new Error(
          'no Chromium found (CHROMIUM_PATH, chromium/google-chrome on PATH, Playwright download): the CI script must apt-get install -y chromium',
        );
      process.stderr.write('[e2e] report browser test SKIPPED: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)\n');
      ctx.skip('no Chromium found; skipped outside CI');
      return;
    }
    const browser = await launchChromium(CHROMIUM);
    try {
      const page = await browser.newPage();
      await page.goto(`file://${path.join(reportDir, 'report.html')}`);
      expect(await page.title()).toBe(`Migration run ${runId}`);
      for (const chart of ['#by-code', '#by-stage', '#throughput']) {
        const sizes = await page.$$eval(`${chart} rect.bar`, (rects) => rects.map((r) => r.getBoundingClientRect()).map((b) => ({ w: b.width, h: b.height })));
        expect(sizes.length).toBeGreaterThan(0);
        expect(sizes.some((s) => s.w > 0 && s.h > 0)).toBe(true);
      }
      const linksIn = (selector: string) =>
        page.$$eval(selector, (as) => as.map((a) => ({ href: (a as unknown as { href: string }).href, text: a.textContent ?? '' })));
      const links = await linksIn('#failed-accounts a.wf');
      // The reconciliation's review sample links completed accounts only.
      const sample = await linksIn('#review-sample a.wf');
      const completed = await pool.query(`select external_account_number from migrate.account_attempts where run_id = $1 and outcome like 'completed%'`, [
        runId,
      ]);
      const completedSet = new Set(completed.rows.map((x) => x.external_account_number as string));
      expect(sample.every((l) => completedSet.has(l.text))).toBe(true);
      const failed = await pool.query(
        `select external_account_number, workflow_id from migrate.account_attempts where run_id = $1 and outcome in ('failed', 'not_attempted')`,
        [runId],
      );
      expect(links.map((l) => l.text).sort()).toEqual(failed.rows.map((x) => x.external_account_number).sort());
      const prefix = `${cfg.TEMPORAL_UI_URL}/namespaces/${cfg.TEMPORAL_NAMESPACE}/workflows/`;
      for (const link of links) {
        expect(link.href.startsWith(prefix)).toBe(true);
        const workflowId = decodeURIComponent(link.href.slice(prefix.length));
        expect(workflowId).toBe(failed.rows.find((x) => x.external_account_number === link.text)!.workflow_id);
        // The execution exists and is that account's.
        const desc = await client.workflow.getHandle(workflowId).describe();
        expect(desc.typedSearchAttributes.get(KmAccount)).toBe(link.text);
      }
    } finally {
      await browser.close();
    }
  });

  it('rerun-failed starts a new run over exactly the failed accounts, same supplier and source', async () => {
    const r = await cli(['run', 'rerun-failed', runId, '--json']);
    expect(r.code).toBe(0);
    const rerun = JSON.parse(r.stdout).runId as string;
    expect(rerun).not.toBe(runId);
    const w = await cli(['run', 'watch', rerun]);
    const row = (await pool.query(`select * from migrate.runs where run_id = $1`, [rerun])).rows[0];
    expect(row).toMatchObject({
      parent_run_id: runId,
      supplier_code: cfg.IMPORT_SUPPLIER_CODE,
      source: { kind: 'postgres' },
      selection: { kind: 'failed_of_run', runId },
    });
    const before = await pool.query(
      `select external_account_number from migrate.account_attempts where run_id = $1 and outcome in ('failed', 'not_attempted') order by 1`,
      [runId],
    );
    const after = await pool.query(`select external_account_number from migrate.account_attempts where run_id = $1 order by 1`, [rerun]);
    expect(after.rows).toEqual(before.rows);
    const o = await outcomes(rerun);
    expect(w.code).toBe(o.failed + o.not_attempted === 0 ? 0 : 1);
  });

  it('pause, resume and cancel steer a small run; cancelled accounts are not attempted', async () => {
    const taken = await pool.query(`select distinct external_account_number from migrate.account_attempts where run_id = $1`, [runId]);
    const used = new Set(taken.rows.map((x) => x.external_account_number));
    const all = await pool.query<{ account_number: string }>(`select distinct account_number from legacy.accounts order by 1`);
    const rest = all.rows.map((x) => x.account_number).filter((a) => !used.has(a));
    expect(rest.length).toBe(40);
    const list = path.join(tmp, 'rest.txt');
    fs.writeFileSync(list, rest.join('\n') + '\n');

    // Slow the platform down so the run is still dispatching when the commands below arrive
    // (each CLI start takes seconds on a loaded machine; at full speed 40 accounts can finish first).
    const faults = (body: unknown) =>
      fetch(`http://127.0.0.1:${cfg.SANDBOX_PORT}/admin/faults`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await faults({ processingDelayMs: 4000 })).ok).toBe(true);
    onTestFinished(async () => {
      await faults({ processingDelayMs: 200 });
    });
    const start = await cli(['run', 'start', '--accounts', list, '--concurrency', '2', '--json']);
    expect(start.code).toBe(0);
    const small = JSON.parse(start.stdout).runId as string;

    const paused = await cli(['run', 'pause', small, '--reason', 'platform maintenance']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toContain(`Run ${small} is now paused`);
    const st = JSON.parse((await cli(['run', 'status', small, '--json'])).stdout);
    expect(st.state).toBe('paused');

    const resumed = await cli(['run', 'resume', small, '--json']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout).state).toMatch(/^(running|waiting_on_supplier)$/);

    const cancelled = await cli(['run', 'cancel', small, '--reason', 'test']);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toMatch(new RegExp(`Run ${small} is now (draining|cancelled)`));

    const w = await cli(['run', 'watch', small]);
    expect(w.code).toBe(1);
    const o = await outcomes(small);
    expect(o.open).toBe(0);
    expect(o.completed + o.failed + o.not_attempted).toBe(40);
    const nc = await pool.query(
      `select count(*)::int as n from migrate.account_attempts where run_id = $1 and outcome = 'not_attempted' and error_code = 'run_cancelled'`,
      [small],
    );
    expect(nc.rows[0].n).toBeGreaterThan(0);
    expect((await cli(['run', 'pause', small])).code).toBe(2); // closed runs cannot be steered
  });

  it('supplier list and show read the ledger mirror', async () => {
    const list = await cli(['supplier', 'list', '--json']);
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toContainEqual(expect.objectContaining({ supplierCode: cfg.IMPORT_SUPPLIER_CODE, status: 'ONGOING' }));
    const show = await cli(['supplier', 'show', cfg.IMPORT_SUPPLIER_CODE, '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ supplierCode: cfg.IMPORT_SUPPLIER_CODE, runningRuns: [] });
  });
});
