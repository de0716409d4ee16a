import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSync } from '../../support/cli';
import { planStatusQuery, type PlanStatus, type WaveStatus } from '../../../domain/plan-messages';
import { planWorkflowId, runWorkflowId } from '../../../domain/workflow-ids';
import { attempts, useE2E, sandbox, seedPlanCohorts, uniqueId, until } from '../helpers';

const e = useE2E();

/** The CLI as an operator runs it, against the e2e stack. */
const cli = (args: string[]) => cliSync(args, { env: e.env });

describe('a cutover plan with trial loads and waves side by side, on the embedded stack', () => {
  it('dry_run_first holds the real run below its pass rate; after runs waves side by side; plan report and run compare', async () => {
    const {
      dir,
      cohorts: { alpha, beta, gamma },
    } = await seedPlanCohorts(e, 'T', 37, { alpha: 3, beta: 2, gamma: 2 });
    // One account of alpha fails at processing on the platform: its first trial load passes 2 of 3.
    const bad = alpha[1];
    await sandbox(e, 'PUT', '/admin/forced-outcomes', { [bad]: { outcome: 'error', error_code: 'agreement_product_not_found' } });

    const t0 = Date.now();
    const at = (s: number) => new Date(t0 + s * 1000).toISOString();
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const planFile = path.join(dir, 'plan.yaml');
    // beta and gamma both wait for alpha only: gamma finishes while beta is held by its cap (1 a day, 2 accounts).
    fs.writeFileSync(
      planFile,
      `name: e2e-trials
timezone: Europe/London
waves:
  - name: alpha
    supplier: ${supplier}
    accounts: alpha.txt
    concurrency: 3
    windows: [{ start: "${at(0)}", end: "${at(2 * 86_400)}" }]
    dry_run_first: true
    gates:
      entry: { min_dry_run_pass_rate: 1, sign_off: "cutover lead" }
  - name: beta
    supplier: ${supplier}
    after: [alpha]
    accounts: beta.txt
    concurrency: 2
    daily_cap: 1
    windows: [{ start: "${at(0)}", end: "${at(2 * 86_400)}" }]
  - name: gamma
    supplier: ${supplier}
    after: [alpha]
    accounts: gamma.txt
    concurrency: 2
    windows: [{ start: "${at(0)}", end: "${at(2 * 86_400)}" }]
`,
    );
    const validated = cli(['plan', 'validate', planFile, '--json']);
    expect(validated.code, validated.stderr).toBe(0);
    expect(JSON.parse(validated.stdout).waves.map((w: { name: string; after: string[] }) => [w.name, w.after])).toEqual([
      ['alpha', []],
      ['beta', ['alpha']],
      ['gamma', ['alpha']],
    ]);
    // A cycle is refused with the field.
    const cyclic = path.join(dir, 'cyclic.yaml');
    fs.writeFileSync(cyclic, fs.readFileSync(planFile, 'utf8').replace(/(- name: alpha\n)/, '$1    after: [gamma]\n'));
    const refused = cli(['plan', 'validate', cyclic]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('waves[0].after: the waves wait for each other in a cycle: alpha → gamma → alpha');

    const planId = uniqueId('plan-tr-');
    const started = cli(['plan', 'start', planFile, '--plan-id', planId, '--poll-seconds', '1', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const handle = e.client.workflow.getHandle(planWorkflowId(planId));
    const wave = async (name: string): Promise<WaveStatus> => (await handle.query(planStatusQuery)).waves.find((w) => w.name === name)!;
    const realAlpha = `${planId}.alpha`;
    const realRunExists = async () =>
      (await e.pool.query(`select 1 from migrate.runs where run_id = $1`, [realAlpha])).rowCount! > 0 ||
      (await e.client.workflow
        .getHandle(runWorkflowId(realAlpha))
        .describe()
        .then(() => true)
        .catch(() => false));

    try {
      // Trial load 1: a dry run of the whole wave; 2 of 3 pass, below the gate's 100 %.
      await until('alpha trial 1 below its pass rate', async () => (await wave('alpha')).state === 'dry_run_not_met', 180_000);
      let a = await wave('alpha');
      expect(a.dry_run).toMatchObject({ state: 'not_met', runs: [`${planId}.alpha.trial-1`], pass_rate: 2 / 3, min_pass_rate: 1 });
      expect(a.dry_run!.accounts).toMatchObject({ completed: 2, failed: 1 });
      expect(a.gates.entry).toMatchObject({ state: 'not_met', dry_run_pass_rate: 2 / 3 });
      const trialRows = await attempts(e, `${planId}.alpha.trial-1`);
      expect(trialRows.size).toBe(3);
      expect((await e.pool.query(`select dry_run from migrate.runs where run_id = $1`, [`${planId}.alpha.trial-1`])).rows).toEqual([{ dry_run: true }]);
      // A dry run creates nothing on the platform.
      expect((await e.pool.query(`select count(*)::int as n from sandbox.accounts where external_identifier = any($1)`, [alpha])).rows[0].n).toBe(0);
      // The sign-off is refused with the numbers; the real run has not started; beta and gamma wait.
      const early = cli(['plan', 'approve', planId, '--wave', 'alpha', '--gate', 'entry', '--by', 'Sam Lead']);
      expect(early.code).toBe(1);
      expect(early.stderr).toContain("wave alpha's entry gate is not met: dry-run pass rate 66.7% < min_dry_run_pass_rate 100.0%");
      expect(cli(['plan', 'status', planId]).stdout).toContain(`trial load 1 (run ${planId}.alpha.trial-1): not_met, pass rate 66.7% < min 100.0%`);
      expect(await realRunExists()).toBe(false);
      expect([(await wave('beta')).state, (await wave('gamma')).state]).toEqual(['pending', 'pending']);
      // Another trial is refused on a wave without one.
      const noTrial = cli(['plan', 'trial', planId, '--wave', 'beta']);
      expect(noTrial.code).toBe(1);
      expect(noTrial.stderr).toContain('wave beta has no trial load (dry_run_first is not set)');

      // The data is fixed (here: the platform's cause cleared); trial load 2 passes; the entry gate waits for its sign-off.
      await sandbox(e, 'PUT', '/admin/forced-outcomes', { [bad]: null });
      expect(cli(['plan', 'trial', planId, '--wave', 'alpha']).code).toBe(0);
      await until('alpha trial 2 passes', async () => (await wave('alpha')).state === 'waiting_entry_sign_off', 180_000);
      a = await wave('alpha');
      expect(a.dry_run).toMatchObject({ state: 'passed', runs: [`${planId}.alpha.trial-1`, `${planId}.alpha.trial-2`], pass_rate: 1 });
      expect(a.runs).toEqual([`${planId}.alpha.trial-1`, `${planId}.alpha.trial-2`, realAlpha]);
      expect(await realRunExists()).toBe(false);

      // run compare: the wave's trial loads, their defect counts, the account fixed.
      const cmp = cli(['run', 'compare', '--plan', planId, '--wave', 'alpha', '--json']);
      expect(cmp.code, cmp.stderr).toBe(0);
      const c = JSON.parse(cmp.stdout);
      expect(c.trials.map((t: { runId: string; failed: number }) => [t.runId, t.failed])).toEqual([
        [`${planId}.alpha.trial-1`, 1],
        [`${planId}.alpha.trial-2`, 0],
      ]);
      expect(c.last.counts).toMatchObject({ fixed: 1, newly_failing: 0, still_failing: 0, still_passing: 2 });
      expect(c.last.byCode).toEqual([{ class: 'fixed', code: 'agreement_product_not_found', n: 1 }]);
      const cmpText = cli(['run', 'compare', `${planId}.alpha.trial-1`, `${planId}.alpha.trial-2`]);
      expect(cmpText.stdout).toContain(`Run ${planId}.alpha.trial-2 against ${planId}.alpha.trial-1: defects 1 → 0`);
      expect(cmpText.stdout).toContain('fixed 1, newly failing 0, still failing 0');

      expect(cli(['plan', 'approve', planId, '--wave', 'alpha', '--gate', 'entry', '--by', 'Sam Lead', '--note', 'trial 2: 100%']).code).toBe(0);

      // After alpha, beta and gamma side by side: gamma completes while beta is held by its cap.
      // beta's one account of the day may still be in flight when gamma's two end (under load): wait for both.
      await until(
        'gamma completes, and beta its one account of the day',
        async () => (await wave('gamma')).state === 'completed' && (await wave('beta')).accounts.completed === 1,
        240_000,
      );
      const b = await wave('beta');
      expect(b.state).toBe('capped');
      expect(b.accounts).toMatchObject({ started: 1, completed: 1 });
      expect((await wave('alpha')).accounts).toMatchObject({ planned: 3, started: 3, completed: 3, failed: 0 });
      expect((await wave('gamma')).accounts).toMatchObject({ started: 2, completed: 2 });
      const st: PlanStatus = await handle.query(planStatusQuery);
      expect(st.waves.map((w) => w.after)).toEqual([[], ['alpha'], ['alpha']]);

      // plan report: planned against actual per wave and per day; files for the operator alone.
      const rep = cli(['plan', 'report', planId, '--out', path.join(dir, 'report'), '--json']);
      expect(rep.code, rep.stderr).toBe(0);
      const r = JSON.parse(rep.stdout);
      expect(fs.statSync(r.dir).mode & 0o777).toBe(0o700);
      for (const f of [r.html, r.wavesCsv, r.daysCsv]) expect(fs.statSync(f).mode & 0o777).toBe(0o600);
      expect(r.waves.find((w: { name: string }) => w.name === 'beta').accounts).toMatchObject({ planned: 2, started: 1 });
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' }).format(new Date());
      const days = fs.readFileSync(r.daysCsv, 'utf8');
      // beta: 2 accounts at 1 a day: planned 1 today, 1 tomorrow; 1 started today.
      expect(days).toContain(`beta,${today},1,1,1,0\r\n`);
      expect(days).toContain(`gamma,${today},2,2,2,0\r\n`);
      const wavesCsv = fs.readFileSync(r.wavesCsv, 'utf8');
      expect(wavesCsv).toContain('alpha,completed,3,3,3,0,0,2,1,1,1,,Sam Lead,,,,,,,,\r\n');
      const html = fs.readFileSync(r.html, 'utf8');
      expect(html).toContain(`<tr data-run="${planId}.alpha.trial-1">`);
      expect(html).toMatch(new RegExp(`<g data-day="${today}"><title>${today}: planned 1, started 1, completed 1, failed 0</title>`));
      expect(html).toContain('trial 2: 100%');

      const unknown = cli(['plan', 'report', `${planId}-none`]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain(`no plan ${planId}-none (workflow cutover-plan/${planId}-none)`);

      expect(cli(['plan', 'skip', planId, '--wave', 'beta']).code).toBe(0);
      expect((await handle.result()).state).toBe('completed');

      // Every account of every run: exactly one outcome; none created twice.
      for (const [runId, list] of [
        [`${planId}.alpha.trial-1`, alpha],
        [`${planId}.alpha.trial-2`, alpha],
        [realAlpha, alpha],
        [`${planId}.beta`, beta],
        [`${planId}.gamma`, gamma],
      ] as const) {
        await until(`${runId} closes`, async () => (await e.client.workflow.getHandle(runWorkflowId(runId)).describe()).status.name !== 'RUNNING', 120_000);
        const rows = await attempts(e, runId);
        expect(rows.size, runId).toBe(list.length);
        for (const x of rows.values()) expect(x.outcome, `${runId} ${x.external_account_number}`).not.toBeNull();
      }
      const created = await e.pool.query(
        `select external_identifier, count(*)::int as n from sandbox.accounts where external_identifier = any($1) group by 1`,
        [[...alpha, ...beta, ...gamma]],
      );
      expect(created.rows.every((x) => x.n === 1)).toBe(true);
      expect(created.rows.length).toBe(3 + 1 + 2);
    } finally {
      await sandbox(e, 'PUT', '/admin/forced-outcomes', { [bad]: null }).catch(() => {});
      await handle.executeUpdate('controlPlan', { args: [{ action: 'cancel' }] }).catch(() => {});
    }
  });
});
