import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliSync } from '../../support/cli';
import { promQuery, requireTool, startServer, type Started } from '../../support/prometheus';
import { freePort } from '../../../harness/stack/child-process';
import { readStackInfo } from '../../../config/dev-stack-info';
import { runWorkflowId } from '../../../domain/workflow-ids';
import { runSummary } from '../../../ledger/run-summary';
import { planStatusQuery } from '../../../domain/plan-messages';
import { planWorkflowId } from '../../../domain/workflow-ids';
import { accountsFile, sandbox, seedAccounts, seedPlanCohorts, uniqueId, until, useE2E } from '../helpers';

const e = useE2E();
const cli = (args: string[]) => cliSync(args, { env: e.env });
/** `run start` of these accounts (an accounts file), as an operator types it. */
const startRunOf = (runId: string, accounts: string[], more: string[] = []) => {
  const r = cli(['run', 'start', '--run-id', runId, '--accounts', accountsFile(e, runId, accounts), ...more, '--json']);
  expect(r.code, r.stderr).toBe(0);
};
const RULES = path.resolve(__dirname, '../../../deploy/prometheus/rules.yml');
const DASHBOARD = path.resolve(__dirname, '../../../deploy/grafana/dashboards/kraken-migrate.json');
/** Short intervals: the test waits seconds, not the production minute. */
const SCRAPE_SECONDS = 1;
const EVALUATION_SECONDS = 1;

interface Delivery {
  at: number;
  alerts: Array<{ status: string; labels: Record<string, string> }>;
}

/**
 * A real Prometheus (Debian's) scraping the real e2e stack's processes at the addresses stack.json
 * names, with the shipped rules, and a real Alertmanager sending to a webhook of the test's.
 */
describe('metrics in a real Prometheus and alerts through a real Alertmanager', () => {
  let prometheus: Started | undefined;
  let alertmanager: Started | undefined;
  let hook: http.Server | undefined;
  const deliveries: Delivery[] = [];

  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(e.config.DATA_DIR, 'prometheus-'));
    hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        deliveries.push({ at: Date.now(), ...(JSON.parse(body) as { alerts: Delivery['alerts'] }) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => hook!.listen(0, '127.0.0.1', () => r()));
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alerts`;

    const amPort = await freePort();
    fs.writeFileSync(
      path.join(dir, 'alertmanager.yml'),
      stringify({
        route: { receiver: 'hook', group_by: ['alertname', 'run'], group_wait: '0s', group_interval: '1s', repeat_interval: '1h' },
        receivers: [{ name: 'hook', webhook_configs: [{ url: hookUrl, send_resolved: false }] }],
      }),
    );
    alertmanager = await startServer({
      command: requireTool('alertmanager'),
      args: [
        `--config.file=${path.join(dir, 'alertmanager.yml')}`,
        `--storage.path=${path.join(dir, 'am-data')}`,
        `--web.listen-address=127.0.0.1:${amPort}`,
        '--cluster.listen-address=',
      ],
      port: amPort,
      readyPath: '/-/ready',
      logFile: path.join(dir, 'alertmanager.log'),
    });

    const metrics = readStackInfo(e.config.DATA_DIR)!.metrics;
    expect(Object.keys(metrics).sort()).toEqual(['codec', 'events', 'worker-1']);
    const promPort = await freePort();
    fs.writeFileSync(
      path.join(dir, 'prometheus.yml'),
      stringify({
        global: { scrape_interval: `${SCRAPE_SECONDS}s`, evaluation_interval: `${EVALUATION_SECONDS}s` },
        rule_files: [RULES],
        alerting: { alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${amPort}`] }] }] },
        scrape_configs: [
          {
            job_name: 'kraken-migrate',
            static_configs: Object.entries(metrics).map(([name, url]) => ({ targets: [new URL(url).host], labels: { process: name } })),
          },
        ],
      }),
    );
    prometheus = await startServer({
      command: requireTool('prometheus'),
      args: [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      port: promPort,
      readyPath: '/-/ready',
      logFile: path.join(dir, 'prometheus.log'),
    });
  }, 60_000);

  afterAll(async () => {
    await prometheus?.stop();
    await alertmanager?.stop();
    await new Promise((r) => (hook ? hook.close(r) : r(undefined)));
  });

  it("every process is scraped; the worker serves the SDK's families beside the migration's", async () => {
    const url = prometheus!.url;
    await until('each process scraped once', async () => (await promQuery(url, 'up{job="kraken-migrate"} == 1')).length === 3, 30_000);
    for (const q of ['temporal_num_pollers', 'temporal_worker_task_slots_available', 'kraken_migrate_temporal_answered == 1', 'process_cpu_seconds_total'])
      await until(`${q} in Prometheus`, async () => (await promQuery(url, q)).length > 0, 30_000);
    const worker = await (await fetch(readStackInfo(e.config.DATA_DIR)!.metrics['worker-1'])).text();
    expect(worker).toMatch(/^# TYPE temporal_\w+ /m);
    expect(worker).toMatch(/^# TYPE kraken_migrate_accounts gauge$/m);
  });

  it("a run's accounts by outcome and code in Prometheus equal the ledger's and run status --json", async () => {
    const truth = await seedAccounts(e, { accounts: 6, seed: 51, defectRate: 0.5, accountNumberPrefix: `${uniqueId('OBS')}-` });
    const runId = uniqueId('run-metrics-');
    startRunOf(
      runId,
      truth.map((t) => t.external_account_number),
    );
    await e.client.workflow.getHandle(runWorkflowId(runId)).result();

    const ledger = new Map<string, number>();
    for (const r of await runSummary(e.pool, runId)) {
      const k = `${r.outcome}/${r.code ?? ''}`;
      ledger.set(k, (ledger.get(k) ?? 0) + r.n);
    }
    expect([...ledger.values()].reduce((a, b) => a + b, 0)).toBe(6);
    const inPrometheus = async () => {
      const rows = await promQuery(prometheus!.url, `sum by (outcome, code) (kraken_migrate_accounts{run="${runId}"})`);
      return new Map(rows.map((r) => [`${r.metric.outcome}/${r.metric.code ?? ''}`, Number(r.value[1])]));
    };
    await until('Prometheus scraped the run', async () => JSON.stringify([...(await inPrometheus())].sort()) === JSON.stringify([...ledger].sort()), 30_000);

    const st = JSON.parse(cli(['run', 'status', runId, '--json']).stdout) as { outcomes: { completed: number; failed: number; notAttempted: number } };
    const byOutcome = await promQuery(prometheus!.url, `sum by (outcome) (kraken_migrate_accounts{run="${runId}"})`);
    const got = Object.fromEntries(byOutcome.map((r) => [r.metric.outcome, Number(r.value[1])]));
    expect({ completed: (got.completed ?? 0) + (got.completed_with_differences ?? 0), failed: got.failed ?? 0, notAttempted: got.not_attempted ?? 0 }).toEqual({
      completed: st.outcomes.completed,
      failed: st.outcomes.failed,
      notAttempted: st.outcomes.notAttempted,
    });
    expect(st.outcomes.failed).toBeGreaterThan(0);
    expect(st.outcomes.completed).toBeGreaterThan(0);
    // The outcome events reached the receiver: its webhook's requests are counted too.
    expect((await promQuery(prometheus!.url, 'kraken_migrate_http_requests_total{server="events",status="2xx"}')).length).toBe(1);
  });

  it('a cohort the platform keeps failing trips stop the line; its alert reaches the webhook within for + one scrape interval', async () => {
    const accounts = (await seedAccounts(e, { accounts: 5, seed: 52, defectRate: 0, accountNumberPrefix: `${uniqueId('OBSL')}-` })).map(
      (t) => t.external_account_number,
    );
    await sandbox(
      e,
      'PUT',
      '/admin/forced-outcomes',
      Object.fromEntries(accounts.map((a) => [a, { outcome: 'error', error_code: 'agreement_product_not_found' }])),
    );
    const runId = uniqueId('run-metrics-stop-');
    try {
      startRunOf(runId, accounts, ['--concurrency', '1', '--max-same-code', '3']);
      const handle = e.client.workflow.getHandle(runWorkflowId(runId));
      await until('the run stops the line', async () => (await handle.describe()).memo?.stopLine != null, 120_000);
      // Measured from the third failure's record in the ledger: the run trips on settling it, a moment later.
      const last = await e.pool.query<{ at: Date }>(`select max(finished_at) as at from migrate.account_attempts where run_id = $1 and outcome = 'failed'`, [
        runId,
      ]);
      const trippedAt = last.rows[0].at.getTime();
      const fired = () =>
        deliveries.find((d) => d.alerts.some((a) => a.status === 'firing' && a.labels.alertname === 'KrakenMigrateStopLineTripped' && a.labels.run === runId));
      await until('the stop-the-line alert reaches the webhook', async () => fired() !== undefined, 60_000);
      const alert = fired()!.alerts.find((a) => a.labels.run === runId)!;
      expect(alert.labels).toMatchObject({ severity: 'page', code: 'agreement_product_not_found' });
      // The rule has no `for`: one scrape interval, one evaluation and Alertmanager's delivery (group_wait 0s).
      const seconds = (fired()!.at - trippedAt) / 1000;
      process.stderr.write(`[metrics e2e] stop-the-line alert at the webhook ${seconds.toFixed(1)} s after the trip\n`);
      expect(seconds).toBeLessThanOrEqual(SCRAPE_SECONDS + EVALUATION_SECONDS + 3);
    } finally {
      await sandbox(e, 'PUT', '/admin/forced-outcomes', Object.fromEntries(accounts.map((a) => [a, null]))).catch(() => {});
      cli(['run', 'cancel', runId]);
    }
  });
  it('with a plan under way (a wave running, a wave at its entry gate), every query of the dashboard returns data', async () => {
    const {
      dir,
      cohorts: { moving },
    } = await seedPlanCohorts(e, 'OBSP', 53, { moving: 4, gated: 1 });
    // Two of the running wave's accounts stay in processing on the tenant: the wave keeps running, with a rate and accounts left.
    const held = moving.slice(0, 2);
    await sandbox(e, 'PUT', '/admin/forced-outcomes', Object.fromEntries(held.map((a) => [a, { hold: true }])));
    const at = (s: number) => new Date(Date.now() + s * 1000).toISOString();
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const planFile = path.join(dir, 'plan.yaml');
    fs.writeFileSync(
      planFile,
      `name: metrics
timezone: Europe/London
waves:
  - name: moving
    supplier: ${supplier}
    accounts: moving.txt
    concurrency: 4
    windows: [{ start: "${at(2)}", end: "${at(3600)}" }]
  - name: gated
    supplier: ${supplier}
    after: []
    accounts: gated.txt
    windows: [{ start: "${at(2)}", end: "${at(3600)}" }]
    gates:
      entry: { sign_off: "cutover lead" }
`,
    );
    const planId = uniqueId('plan-metrics-');
    const started = cli(['plan', 'start', planFile, '--plan-id', planId, '--poll-seconds', '1', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const plan = e.client.workflow.getHandle(planWorkflowId(planId));
    try {
      await until(
        'the moving wave runs with two accounts finished and the gated one waits for its sign-off',
        async () => {
          const st = await plan.query(planStatusQuery);
          const [m, g] = [st.waves.find((w) => w.name === 'moving')!, st.waves.find((w) => w.name === 'gated')!];
          return m.state === 'running' && m.accounts.completed === 2 && g.state === 'waiting_entry_sign_off';
        },
        120_000,
      );
      const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
      const exprs = dashboard.panels.flatMap((p) =>
        p.targets.map((t) => ({ title: p.title, expr: t.expr.replaceAll('$run', '.*').replaceAll('$plan', planId) })),
      );
      expect(exprs.length).toBeGreaterThan(10);
      for (const { title, expr } of exprs)
        await until(`"${title}" returns data (${expr})`, async () => (await promQuery(prometheus!.url, expr)).length > 0, 30_000);
      // The plan's own numbers, as the dashboard shows them.
      const left = async () =>
        JSON.stringify(
          Object.fromEntries(
            (await promQuery(prometheus!.url, `max by (wave) (kraken_migrate_plan_wave_accounts_remaining{plan="${planId}"})`))
              .map((r) => [r.metric.wave, Number(r.value[1])])
              .sort(),
          ),
        );
      await until('two accounts of the moving wave and the gated one left', async () => (await left()) === JSON.stringify({ gated: 1, moving: 2 }), 30_000);
      const ends = await promQuery(prometheus!.url, `kraken_migrate_plan_wave_projected_end_timestamp_seconds{plan="${planId}"} > time()`);
      expect(ends.map((r) => r.metric.wave)).toEqual(['moving']);
    } finally {
      await sandbox(e, 'PUT', '/admin/forced-outcomes', Object.fromEntries(held.map((a) => [a, null]))).catch(() => {});
      const st = await plan.query(planStatusQuery).catch(() => undefined);
      await plan.terminate('metrics test over').catch(() => {});
      for (const run of st?.waves.flatMap((w) => w.runs) ?? []) cli(['run', 'cancel', run]);
    }
  });
});
