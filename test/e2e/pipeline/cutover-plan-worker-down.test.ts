import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planStatusQuery, type PlanStatus } from '../../../domain/plan-messages';
import { planWorkflowId } from '../../../domain/workflow-ids';
import { cliSync } from '../../support/cli';
import { attempts, connectE2E, groundTruth, ownWorkers, seedAccounts, uniqueId, until, type E2E } from '../helpers';

let e: E2E;
const workers = ownWorkers(() => e);
beforeAll(async () => {
  e = await connectE2E();
});
afterAll(async () => {
  workers.stopAll();
  await e?.close();
});

/** The CLI as an operator runs it, against the e2e stack, on the test's own task queue. */
const cli = (args: string[], env: Record<string, string>) => cliSync(args, { env: { ...e.env, ...env } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const scheduledCount = async (accounts: string[]) =>
  (await e.pool.query<{ n: number }>(`select count(*)::int as n from sandbox.import_processes where external_identifier = any($1)`, [accounts])).rows[0].n;
async function kill9(w: ChildProcess): Promise<void> {
  w.kill('SIGKILL');
  if (w.exitCode === null && w.signalCode === null) await new Promise((r) => w.once('exit', r));
}

/**
 * The plan's durable time on the real stack, where time passes while no worker is up (the
 * time-skipping test server holds its clock then: test/unit/durable-time/cutover-plan.test.ts).
 * The plan and its run live on a task queue only this test's worker processes poll, so killing them
 * leaves the plan with no worker at all.
 */
describe('a cutover plan whose worker is down when its window opens', () => {
  it('the wave starts when a worker is back, inside its window; a kill -9 mid-wave loses and duplicates nothing', async () => {
    const queue = uniqueId('plan-down-q-');
    const accounts = (await seedAccounts(e, { accounts: 8, seed: 37, defectRate: 0, accountNumberPrefix: `${uniqueId('PD')}-` })).map(
      (t) => t.external_account_number,
    );
    const dir = path.join(e.config.DATA_DIR, 'plans', uniqueId('plan-down'));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'wave.txt'), accounts.join('\n') + '\n');
    // The worker first: its start-up (tens of seconds on a loaded machine) does not eat into the 45 s before the window.
    let worker = await workers.start(queue, 'plan-down-worker-1');
    const t0 = Date.now();
    const window = { start: t0 + 45_000, end: t0 + 15 * 60_000 };
    const planFile = path.join(dir, 'plan.yaml');
    fs.writeFileSync(
      planFile,
      `name: e2e-worker-down
timezone: Europe/London
waves:
  - name: only
    supplier: ${e.config.IMPORT_SUPPLIER_CODE}
    accounts: wave.txt
    concurrency: 2
    windows: [{ start: "${new Date(window.start).toISOString()}", end: "${new Date(window.end).toISOString()}" }]
`,
    );
    const env = { TEMPORAL_TASK_QUEUE: queue };
    const planId = uniqueId('plan-down-');
    const started = cli(['plan', 'start', planFile, '--plan-id', planId, '--poll-seconds', '2', '--json'], env);
    expect(started.code, started.stderr).toBe(0);
    const handle = e.client.workflow.getHandle(planWorkflowId(planId));
    const wave = async () => (await handle.query(planStatusQuery)).waves[0];
    try {
      await until('the wave waits for its window', async () => (await wave()).state === 'waiting_window', 60_000);
      // The only worker dies before the window opens and stays down until well after.
      expect(Date.now()).toBeLessThan(window.start - 5_000);
      await kill9(worker);
      // Past the window's opening, with no worker: nothing may be dispatched or scheduled meanwhile.
      await sleep(window.start + 8_000 - Date.now());
      expect(await scheduledCount(accounts)).toBe(0);
      expect((await attempts(e, `${planId}.only`)).size).toBe(0);

      worker = await workers.start(queue, 'plan-down-worker-2');
      const back = Date.now();
      // A kill -9 mid-wave: some accounts done, some in flight.
      await until('two accounts completed', async () => (await wave()).accounts.completed >= 2, 120_000);
      await kill9(worker);
      worker = await workers.start(queue, 'plan-down-worker-3');

      const result = (await handle.result()) as PlanStatus;
      expect(result.state).toBe('completed');
      expect(result.waves[0]).toMatchObject({ state: 'completed', accounts: { planned: 8, started: 8, completed: 8, failed: 0, not_attempted: 0 } });

      // Every account: one outcome in the ledger, created once on the platform, dispatched after the
      // worker came back and inside the window (the ledger's clock), scheduled inside it (the sandbox's).
      const rows = await attempts(e, `${planId}.only`);
      expect(rows.size).toBe(8);
      for (const r of rows.values()) expect(r.outcome, r.external_account_number).toBe('completed');
      const truth = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
      for (const a of accounts) expect(truth.get(a), a).toMatchObject({ created_count: 1 });
      const dispatched = await e.pool.query<{ started_at: Date }>(`select started_at from migrate.account_attempts where run_id = $1`, [`${planId}.only`]);
      for (const r of dispatched.rows) {
        expect(r.started_at.getTime()).toBeGreaterThanOrEqual(back - 1_000);
        expect(r.started_at.getTime()).toBeLessThan(window.end);
      }
      const scheduled = await e.pool.query<{ created_at: Date }>(`select created_at from sandbox.import_processes where external_identifier = any($1)`, [
        accounts,
      ]);
      expect(scheduled.rows.length).toBe(8);
      for (const r of scheduled.rows) {
        expect(r.created_at.getTime()).toBeGreaterThanOrEqual(back - 1_000);
        expect(r.created_at.getTime()).toBeLessThan(window.end);
      }
    } finally {
      await handle.executeUpdate('controlPlan', { args: [{ action: 'cancel' }] }).catch(() => {});
    }
  });
});
