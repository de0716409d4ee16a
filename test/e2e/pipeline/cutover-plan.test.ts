import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSync } from '../../support/cli';
import { planStatusQuery, type PlanStatus, type WaveStatus } from '../../../domain/plan-messages';
import { planWorkflowId } from '../../../domain/workflow-ids';
import { attempts, useE2E, sandbox, seedPlanCohorts, uniqueId, until } from '../helpers';

const e = useE2E();

/** The CLI as an operator runs it, against the e2e stack. */
const cli = (args: string[]) => cliSync(args, { env: e.env });

describe('a cutover plan of three waves on the embedded stack', () => {
  it('windows, a daily cap, sign-offs and stop the line; every account one outcome', async () => {
    const {
      dir,
      cohorts: { alpha, beta, gamma },
    } = await seedPlanCohorts(e, 'P', 31, { alpha: 3, beta: 5, gamma: 4 });
    // The third wave's cohort fails at processing on the platform (an import supplier set up wrong).
    await sandbox(
      e,
      'PUT',
      '/admin/forced-outcomes',
      Object.fromEntries(gamma.map((a) => [a, { outcome: 'error', error_code: 'agreement_product_not_found' }])),
    );

    const t0 = Date.now();
    const at = (s: number) => new Date(t0 + s * 1000).toISOString();
    // Beta's and gamma's windows last two days, so beta's cap waits for the next local midnight inside one.
    // Alpha's window opens 20 s from now: its entry is signed before, and nothing may start before it.
    const windows = { alpha: { start: t0 + 20_000, end: t0 + 120_000 }, later: { start: t0 + 20_000, end: t0 + 2 * 86_400_000 } };
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const planFile = path.join(dir, 'plan.yaml');
    fs.writeFileSync(
      planFile,
      `name: e2e-cutover
timezone: Europe/London
waves:
  - name: alpha
    supplier: ${supplier}
    accounts: alpha.txt
    concurrency: 2
    windows: [{ start: "${at(20)}", end: "${at(120)}" }]
    gates:
      entry: { sign_off: "cutover lead" }
      exit: { min_reconciled_rate: 1, sign_off: true }
  - name: beta
    supplier: ${supplier}
    after: [alpha]
    accounts: beta.txt
    concurrency: 5
    daily_cap: 2
    windows: [{ start: "${at(20)}", end: "${at(2 * 86_400)}" }]
  - name: gamma
    supplier: ${supplier}
    accounts: gamma.txt
    concurrency: 1
    windows: [{ start: "${at(20)}", end: "${at(2 * 86_400)}" }]
    gates:
      stop_line: { max_same_code: 2 }
`,
    );
    expect(cli(['plan', 'validate', planFile]).code).toBe(0);
    const planId = uniqueId('plan-e2e-');
    const started = cli(['plan', 'start', planFile, '--plan-id', planId, '--poll-seconds', '1', '--json']);
    expect(started.code, started.stderr).toBe(0);
    expect(JSON.parse(started.stdout).runs).toEqual([`${planId}.alpha`, `${planId}.beta`, `${planId}.gamma`]);
    const handle = e.client.workflow.getHandle(planWorkflowId(planId));
    const status = () => handle.query(planStatusQuery);
    const wave = async (name: string): Promise<WaveStatus> => (await status()).waves.find((w) => w.name === name)!;

    try {
      // Alpha waits for its entry sign-off; its exit cannot be signed yet.
      await until('alpha waits for its entry sign-off', async () => (await wave('alpha')).state === 'waiting_entry_sign_off', 60_000);
      const early = cli(['plan', 'approve', planId, '--wave', 'alpha', '--gate', 'exit', '--by', 'Sam Lead']);
      expect(early.code).toBe(1);
      expect(early.stderr).toContain("wave alpha's exit gate does not wait for a sign-off now");
      const approved = cli(['plan', 'approve', planId, '--wave', 'alpha', '--gate', 'entry', '--by', 'Sam Lead', '--note', 'dry run clean']);
      expect(approved.code, approved.stderr).toBe(0);

      // Alpha runs in its window, then waits for its exit sign-off (its numbers are met: all created).
      await until('alpha waits for its exit sign-off', async () => (await wave('alpha')).state === 'waiting_exit_sign_off', 180_000);
      const a = await wave('alpha');
      expect(a.accounts).toMatchObject({ planned: 3, started: 3, completed: 3, failed: 0 });
      expect(a.gates.entry).toMatchObject({ state: 'approved', approved_by: 'Sam Lead', note: 'dry run clean' });
      expect((await wave('beta')).state).toBe('pending');
      expect(cli(['plan', 'approve', planId, '--wave', 'alpha', '--gate', 'exit', '--by', 'Ops Manager']).code).toBe(0);

      // Beta: the cap of 2 a local day holds; the rest wait for the next day (none failed for it).
      await until(
        'beta is capped',
        async () => {
          const b = await wave('beta');
          return b.state === 'capped' && b.accounts.in_flight === 0 && b.accounts.completed === 2;
        },
        180_000,
      );
      await new Promise((r) => setTimeout(r, 3000));
      const b = await wave('beta');
      expect(b.accounts).toMatchObject({ planned: 5, started: 2, completed: 2, failed: 0, not_attempted: 0 });
      expect(b.started_today).toBe(2);
      expect([...(await attempts(e, `${planId}.beta`)).values()].length).toBe(2);
      // The operator moves on: beta's run is cancelled, its three waiting accounts recorded not attempted.
      expect(cli(['plan', 'skip', planId, '--wave', 'beta']).code).toBe(0);

      // Gamma: the platform fails every account; the line stops within max_same_code (2) and waits.
      await until(
        'gamma stops the line',
        async () => {
          const g = await wave('gamma');
          return g.state === 'stopped_line' && g.accounts.in_flight === 0;
        },
        180_000,
      );
      const g = await wave('gamma');
      expect(g.stop_line.tripped).toBe(true);
      expect(g.stop_line.reason).toContain('2 platform-side failures in a row with code agreement_product_not_found');
      expect(g.accounts).toMatchObject({ started: 2, failed: 2, completed: 0 });
      const text = cli(['plan', 'status', planId]);
      expect(text.stdout).toContain('STOPPED THE LINE');
      const json = JSON.parse(cli(['plan', 'status', planId, '--json']).stdout) as PlanStatus;
      expect(json.waves.map((w) => [w.name, w.state])).toEqual([
        ['alpha', 'completed'],
        ['beta', 'skipped'],
        ['gamma', 'stopped_line'],
      ]);
      expect(json.waves[0].gates.exit).toMatchObject({ state: 'approved', approved_by: 'Ops Manager', reconciled_rate: 1 });

      expect(cli(['plan', 'cancel', planId]).code).toBe(0);
      expect((await handle.result()).state).toBe('cancelled');

      // Sign-offs are in the ledger, who and when.
      const so = await e.pool.query(`select wave, gate, signed_by, note from migrate.plan_sign_offs where plan_id = $1 order by signed_at`, [planId]);
      expect(so.rows).toEqual([
        { wave: 'alpha', gate: 'entry', signed_by: 'Sam Lead', note: 'dry run clean' },
        { wave: 'alpha', gate: 'exit', signed_by: 'Ops Manager', note: null },
      ]);

      // Every account: exactly one outcome once the runs end.
      for (const [name, list] of Object.entries({ alpha, beta, gamma })) {
        const runId = `${planId}.${name}`;
        await until(`${runId} closes`, async () => (await e.client.workflow.getHandle(`migration-run/${runId}`).describe()).status.name !== 'RUNNING', 120_000);
        const rows = await attempts(e, runId);
        expect(rows.size, runId).toBe(list.length);
        for (const r of rows.values()) expect(r.outcome, `${runId} ${r.external_account_number}`).not.toBeNull();
      }
      expect([...(await attempts(e, `${planId}.beta`)).values()].filter((r) => r.outcome === 'not_attempted').length).toBe(3);
      expect([...(await attempts(e, `${planId}.gamma`)).values()].map((r) => r.outcome).sort()).toEqual(['failed', 'failed', 'not_attempted', 'not_attempted']);

      // No account was dispatched outside its wave's window, nor scheduled with the platform before it opened (the sandbox's own clock).
      const all = [...alpha, ...beta, ...gamma];
      const dispatched = await e.pool.query<{ run_id: string; started_at: Date }>(
        `select run_id, started_at from migrate.account_attempts where run_id like $1 and outcome <> 'not_attempted'`,
        [`${planId}.%`],
      );
      expect(dispatched.rows.length).toBe(7);
      for (const r of dispatched.rows) {
        const w = r.run_id.endsWith('.alpha') ? windows.alpha : windows.later;
        expect(r.started_at.getTime()).toBeGreaterThanOrEqual(w.start);
        expect(r.started_at.getTime()).toBeLessThan(w.end);
      }
      const scheduled = await e.pool.query<{ external_identifier: string; created_at: Date }>(
        `select external_identifier, created_at from sandbox.import_processes where external_identifier = any($1)`,
        [all],
      );
      expect(scheduled.rows.length).toBe(7);
      for (const r of scheduled.rows) expect(r.created_at.getTime()).toBeGreaterThanOrEqual(windows.alpha.start);
    } finally {
      await sandbox(e, 'PUT', '/admin/forced-outcomes', Object.fromEntries(gamma.map((a) => [a, null]))).catch(() => {});
      await handle.executeUpdate('controlPlan', { args: [{ action: 'cancel' }] }).catch(() => {});
    }
  });
});
