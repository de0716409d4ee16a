import { execFileSync } from 'node:child_process';
import { codecWarnings } from '../../clients/temporal';
import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodec } from '../../codec/data-converter';
import { accountDeltaWorkflowId, deltaRunWorkflowId, planWorkflowId, runWorkflowId, supplyWorkflowId } from '../../domain/workflow-ids';
import { awaitDelta, startDelta } from '../../cli/post-import';
import { generateChangesForRun } from '../../harness/cli/post-import-changes';
import { runProgressQuery, supplierStatusSignal } from '../../domain/messages';
import { approveGate, controlPlan, planStatusQuery } from '../../domain/plan-messages';
import { planArgsOf } from '../../cli/actions/plan';
import { loadPlanFile } from '../../cli/plan-file';
import { accountsFile, connectE2E, type E2E, listOf, sandbox, seedAccounts, setSupplierEverywhere, startRun, uniqueId, until } from '../e2e/helpers';
import { CORPUS_DIR, decryptHistory, writeEntry } from './corpus';

// Records the replay corpus on the e2e stack: `npm run replay:record` (not part of npm test). Run it
// at release time, after the release's workflow code is final, and commit test/replay/histories/.

const ROOT = path.resolve(__dirname, '../..');
const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string;
const commit = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();

let e: E2E;
beforeAll(async () => {
  e = await connectE2E();
  // A new recording replaces the corpus; REPLAY_ADD=1 keeps it and adds the histories of the tests
  // picked with -t (a workflow type the corpus lacked), leaving the older code's histories as they are.
  if (process.env.REPLAY_ADD !== '1') fs.rmSync(CORPUS_DIR, { recursive: true, force: true });
});
afterAll(async () => {
  await e?.close();
});

async function record(file: string, scenario: string, workflowId: string, runId?: string) {
  const handle = e.client.workflow.getHandle(workflowId, runId);
  const desc = await handle.describe();
  const history = await handle.fetchHistory();
  const codec = createCodec(e.config, { logger: codecWarnings });
  await decryptHistory(history, (p) => codec.decode(p));
  writeEntry(file, { scenario, workflowType: desc.type, workflowId, recordedBy: `${version}+${commit}`, history });
}

/** The run's accounts that ended as `outcome` (ledger), first `n`. */
async function accountsWith(runId: string, outcome: string, n: number): Promise<string[]> {
  const r = await e.pool.query<{ a: string }>(
    `select external_account_number as a from migrate.account_attempts where run_id = $1 and outcome = $2 order by 1 limit $3`,
    [runId, outcome, n],
  );
  return r.rows.map((x) => x.a);
}

const accountId = (supplier: string, account: string) => `account-import/${supplier}/${account}`;

describe('record the replay corpus', () => {
  it('a finished run (continued as new), its completed and failed accounts, and a dry run', async () => {
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const truth = await seedAccounts(e, { accounts: 30, seed: 31, defectRate: 0.4, accountNumberPrefix: `${uniqueId('RPL')}-` });
    const runId = uniqueId('run-replay-');
    const handle = await startRun(e, {
      runId,
      supplierCode: supplier,
      selection: listOf(e, runId, truth),
      concurrency: 4,
      pageSize: 25,
      continueAsNewAtEvents: 50,
    });
    await handle.result();
    let segments: string[] = [];
    await until(
      'visibility to list the run segments',
      async () => {
        segments = [];
        for await (const wf of e.client.workflow.list({ query: `WorkflowId = '${runWorkflowId(runId)}'` })) segments.push(wf.runId);
        return segments.length > 1;
      },
      30_000,
    );
    // The first segment ends in continue-as-new; the latest one completes the run.
    const first = segments[segments.length - 1];
    await record('run-continued-as-new.json', 'a run segment that ended in continue-as-new', runWorkflowId(runId), first);
    await record('run-completed.json', 'the last segment of a run, completed', runWorkflowId(runId), segments[0]);
    const [completed] = await accountsWith(runId, 'completed', 1);
    const failed = await accountsWith(runId, 'failed', 2);
    expect(completed).toBeDefined();
    expect(failed.length).toBe(2);
    await record('account-completed.json', 'an account created, its event received, read back', accountId(supplier, completed));
    for (const [i, a] of failed.entries()) await record(`account-failed-${i + 1}.json`, 'an account that failed (planted defect)', accountId(supplier, a));

    const dry = uniqueId('run-replay-dry-');
    await (
      await startRun(e, {
        runId: dry,
        supplierCode: supplier,
        dryRun: true,
        selection: {
          kind: 'list',
          path: accountsFile(
            e,
            dry,
            truth.slice(0, 3).map((t) => t.external_account_number),
          ),
        },
      })
    ).result();
    await record('dry-run.json', 'a dry run, completed', runWorkflowId(dry));
  });

  it('an account whose prepare staged its documents (one local activity), created and read back', async () => {
    // Beside account-completed.json (prepare, then stageDocuments): both shapes replay.
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const truth = await seedAccounts(e, { accounts: 1, seed: 53, defectRate: 0, accountNumberPrefix: `${uniqueId('RPLONE')}-` });
    const runId = uniqueId('run-replay-one-step-');
    expect((await (await startRun(e, { runId, supplierCode: supplier, selection: listOf(e, runId, truth) })).result()).totals).toMatchObject({ completed: 1 });
    const staged = await e.pool.query(`select count(*)::int as n from migrate.documents_staged where run_id = $1`, [runId]);
    expect(staged.rows[0].n, 'the seeded account has documents').toBeGreaterThan(0);
    await record(
      'account-completed-one-step.json',
      'an account prepared and its documents staged in one local activity, created, read back',
      accountId(supplier, truth[0].external_account_number),
    );
  });

  it('a run and its accounts parked on a paused supplier (still running when recorded)', async () => {
    const supplier = uniqueId('RPLPAUSE-');
    await setSupplierEverywhere(e, supplier, 'ONGOING');
    const truth = await seedAccounts(e, { accounts: 3, seed: 7, defectRate: 0, accountNumberPrefix: `${supplier}-` });
    const runId = uniqueId('run-replay-pause-');
    // Paused on the platform only: the sandbox refuses the schedule, the run learns it and waits.
    await sandbox(e, 'PUT', `/admin/suppliers/${supplier}`, { status: 'PAUSED' });
    const handle: WorkflowHandle = await startRun(e, {
      runId,
      supplierCode: supplier,
      selection: listOf(e, runId, truth),
      concurrency: 3,
      timings: { eventWaitSeconds: 10, pollMaxSeconds: 3600, supplierRecheckSeconds: 5 },
    });
    await until('the run to wait on the supplier', async () => (await handle.query(runProgressQuery)).state === 'waiting_on_supplier');
    await new Promise((r) => setTimeout(r, 2_000));
    await record('run-waiting-on-supplier.json', 'a run waiting on a paused supplier', runWorkflowId(runId));
    await record('account-parked-on-supplier.json', 'an account parked on a paused supplier', accountId(supplier, truth[0].external_account_number));
    await setSupplierEverywhere(e, supplier, 'ONGOING');
    await handle.signal(supplierStatusSignal, { status: 'ONGOING' });
    await handle.result();
  });

  it('a delta run (`run delta`) and one account carry-over, completed', async () => {
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const truth = await seedAccounts(e, { accounts: 4, seed: 41, defectRate: 0, accountNumberPrefix: `${uniqueId('RPLD')}-` });
    const runId = uniqueId('run-replay-delta-');
    const accounts = truth.map((t) => t.external_account_number);
    const run = await (
      await startRun(e, { runId, supplierCode: supplier, selection: { kind: 'list', path: accountsFile(e, runId, accounts) }, concurrency: 4 })
    ).result();
    expect(run.totals).toMatchObject({ completed: 4 });
    const changes = await generateChangesForRun(e.pool, {
      runId,
      source: { kind: 'postgres' },
      share: 1,
      seed: 43,
      documentsDir: e.config.SOURCE_DOCUMENTS_DIR,
    });
    expect(changes.changes.length).toBeGreaterThan(0);
    const { deltaId } = await startDelta(e.client, e.config, {
      runId,
      supplierCode: supplier,
      source: { kind: 'postgres' },
      accounts: 'completed',
      concurrency: 2,
    });
    const result = await awaitDelta(e.client, deltaId);
    expect(result).toMatchObject({ accounts: 4, failed: 0 });
    await record('delta-run-completed.json', 'a delta run (run delta) over a finished run, completed', deltaRunWorkflowId(deltaId));
    const withChanges = changes.changes[0].external_account_number;
    await record('account-delta-completed.json', "an account's changes carried over after import", accountDeltaWorkflowId(supplier, withChanges, deltaId));
  });

  /** A plan file of `waves` (YAML lines after `waves:`), its cohorts seeded; the plan's args as `plan start` builds them. */
  async function planOf(tag: string, cohorts: Record<string, number>, waves: (files: Record<string, string>) => string) {
    const dir = path.join(e.config.DATA_DIR, 'plans', uniqueId(tag));
    fs.mkdirSync(dir, { recursive: true });
    const files: Record<string, string> = {};
    for (const [name, n] of Object.entries(cohorts)) {
      const truth = await seedAccounts(e, { accounts: n, seed: 41, defectRate: 0, accountNumberPrefix: `${uniqueId(tag)}-${name}-` });
      files[name] = path.join(dir, `${name}.txt`);
      fs.writeFileSync(files[name], truth.map((t) => t.external_account_number).join('\n') + '\n');
    }
    const file = path.join(dir, 'plan.yaml');
    fs.writeFileSync(file, `name: replay-plan\ntimezone: Europe/London\nwaves:\n${waves(files)}`);
    const planId = uniqueId(`${tag}-`);
    return { planId, args: await planArgsOf(loadPlanFile(file), e.config, planId, 1) };
  }
  const window = () => `[{ start: "${new Date(Date.now() - 60_000).toISOString()}", end: "${new Date(Date.now() + 86_400_000).toISOString()}" }]`;
  const planWaveStatus = async (planId: string, wave: string) =>
    (await e.client.workflow.getHandle(planWorkflowId(planId)).query(planStatusQuery)).waves.find((w) => w.name === wave)!;

  it('a cutover plan, waves in file order with an entry sign-off and a daily cap, completed', async () => {
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const { planId, args } = await planOf('replay-plan', { a: 2, b: 3 }, (f) =>
      [
        `  - { name: a, supplier: ${supplier}, accounts: ${f.a}, concurrency: 2, windows: ${window()}, gates: { entry: { sign_off: true } } }`,
        `  - { name: b, supplier: ${supplier}, accounts: ${f.b}, concurrency: 2, daily_cap: 5, windows: ${window()} }`,
        '',
      ].join('\n'),
    );
    const h = await e.client.workflow.start('cutoverPlanWorkflow', {
      workflowId: planWorkflowId(planId),
      taskQueue: e.config.TEMPORAL_TASK_QUEUE,
      args: [args],
    });
    await until('the entry gate waits', async () => (await planWaveStatus(planId, 'a')).state === 'waiting_entry_sign_off', 60_000);
    await h.executeUpdate(approveGate, { args: [{ wave: 'a', gate: 'entry', by: 'Replay Lead' }] });
    expect(await h.result()).toMatchObject({ state: 'completed' });
    await record('plan-in-file-order.json', 'a cutover plan of two waves in file order (entry sign-off, daily cap), completed', planWorkflowId(planId));
  });

  it('a cutover plan with a trial load below its pass rate, another trial, waves side by side, continued as new', async () => {
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const { planId, args } = await planOf('replay-plan-trials', { a: 2, b: 2, c: 2 }, (f) =>
      [
        `  - { name: a, supplier: ${supplier}, accounts: ${f.a}, concurrency: 2, windows: ${window()}, dry_run_first: true, gates: { entry: { min_dry_run_pass_rate: 1, sign_off: true } } }`,
        `  - { name: b, supplier: ${supplier}, accounts: ${f.b}, concurrency: 2, daily_cap: 5, windows: ${window()}, after: [a] }`,
        `  - { name: c, supplier: ${supplier}, accounts: ${f.c}, concurrency: 2, windows: ${window()}, after: [a] }`,
        '',
      ].join('\n'),
    );
    const bad = fs.readFileSync(args.waves[0].run.selection.kind === 'list' ? args.waves[0].run.selection.path : '', 'utf8').split('\n')[0];
    await sandbox(e, 'PUT', '/admin/forced-outcomes', { [bad]: { outcome: 'error', error_code: 'agreement_product_not_found' } });
    const workflowId = planWorkflowId(planId);
    try {
      const h = await e.client.workflow.start('cutoverPlanWorkflow', {
        workflowId,
        taskQueue: e.config.TEMPORAL_TASK_QUEUE,
        args: [{ ...args, continueAsNewAtEvents: 60 }],
      });
      await until('the trial load is below its pass rate', async () => (await planWaveStatus(planId, 'a')).state === 'dry_run_not_met', 120_000);
      await sandbox(e, 'PUT', '/admin/forced-outcomes', { [bad]: null });
      await h.executeUpdate(controlPlan, { args: [{ action: 'trial', wave: 'a' }] });
      await until('the entry gate waits', async () => (await planWaveStatus(planId, 'a')).state === 'waiting_entry_sign_off', 120_000);
      await h.executeUpdate(approveGate, { args: [{ wave: 'a', gate: 'entry', by: 'Replay Lead' }] });
      expect(await e.client.workflow.getHandle(workflowId).result()).toMatchObject({ state: 'completed' });
    } finally {
      await sandbox(e, 'PUT', '/admin/forced-outcomes', { [bad]: null }).catch(() => {});
    }
    const segments: string[] = [];
    for await (const wf of e.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) segments.push(wf.runId);
    expect(segments.length).toBeGreaterThan(1);
    await record(
      'plan-trials-continued-as-new.json',
      'a plan segment (trial load, another trial) that ended in continue-as-new',
      workflowId,
      segments[segments.length - 1],
    );
    await record('plan-trials-completed.json', 'the last segment of a plan with waves side by side, completed', workflowId, segments[0]);
  });

  it('a switch: an account that started its follow, and the follow of its meter points read to supply', async () => {
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    // Every point goes on supply, a step every 300 ms, no event dropped (the follow reads on its timer and on events).
    const faults = { eventDropRate: 0, registrationRefuseRate: 0, registrationObjectRate: 0, registrationRejectRate: 0 };
    await sandbox(e, 'PUT', '/admin/faults', { ...faults, supplyStepMs: 300 });
    try {
      const truth = await seedAccounts(e, { accounts: 2, seed: 48, defectRate: 0, accountNumberPrefix: `${uniqueId('RPLSW')}-` });
      const runId = uniqueId('run-replay-switch-');
      const handle = await startRun(e, {
        runId,
        supplierCode: supplier,
        selection: listOf(e, runId, truth),
        concurrency: 2,
        sendRegistrationFlows: true,
        timings: { supplyPollMinSeconds: 1, supplyPollMaxSeconds: 2 },
      });
      expect((await handle.result()).totals).toMatchObject({ completed: 2 });
      const account = truth[0].external_account_number;
      expect(await e.client.workflow.getHandle(supplyWorkflowId(supplier, account)).result()).toMatchObject({ supply: 'on_supply' });
      await record(
        'supply-followed-to-supply.json',
        "an account's meter points followed to supply (reads, a flow sent, timers, events)",
        supplyWorkflowId(supplier, account),
      );
      await record('account-switch-completed.json', 'an account of a switch: created, read back, its follow started', accountId(supplier, account));
    } finally {
      await sandbox(e, 'PUT', '/admin/faults', { ...faults, supplyStepMs: 1000 }).catch(() => {});
    }
  });
});
