import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformPace } from '../../../cli/pace';
import { paceLine } from '../../../domain/platform-pace';
import { REQUESTED_PRIORITY_KEY } from '../../../domain/priority';
import { accountWorkflowId } from '../../../domain/workflow-ids';
import { accountsFile, connectE2E, groundTruth, ownWorkers, sandbox, seedAccounts, startRun, uniqueId, until, type E2E } from '../helpers';

let e: E2E;
let faults: { concurrencyLimit: number; processingDelayMs: number; concurrencyRetryAfterSeconds: number | null };
const workers = ownWorkers(() => e);
beforeAll(async () => {
  e = await connectE2E();
  faults = await sandbox(e, 'GET', '/admin/faults');
});
afterAll(async () => {
  workers.stopAll();
  const { concurrencyLimit, processingDelayMs, concurrencyRetryAfterSeconds } = faults;
  await sandbox(e, 'PUT', '/admin/faults', { concurrencyLimit, processingDelayMs, concurrencyRetryAfterSeconds }).catch(() => undefined);
  await e?.close();
});

describe("the tenant's window of accounts in processing (PLATFORM_PACE=adaptive)", () => {
  // retry 1: in CI this test has refused 4-5 calls (bound 3) now and then, never on a developer's
  // machine (2 every time: alone, in the suite, serial, under load). Two causes found in the law
  // (domain/platform-pace.ts): a first round's acceptances recorded before its refusal widened the
  // window it was decreased from, so it probed again (seen here in this test's trace); a refusal in the
  // hold left a permit free while the tenant was full. A failure prints the window's trace.
  it(
    'keeps within a limit it is not told, every account completed once; the permits carry the priority the account workflow was started with',
    { retry: 1 },
    async () => {
      const taskQueue = uniqueId('window-');
      await workers.start(taskQueue, taskQueue, { PLATFORM_PACE: 'adaptive' });
      // The tenant's limit: 3 of this run's accounts in processing at once, 1.5 s each (capacity 2
      // accounts/s). The limit is tenant-wide: imports other files left in processing (a held window,
      // a long processing time) take places too, so the limit is set above them.
      const elsewhere = (
        await e.pool.query<{ n: number }>(`select count(*)::int as n from sandbox.import_processes where status in ('PENDING', 'IN_PROGRESS')`)
      ).rows[0].n;
      await sandbox(e, 'PUT', '/admin/faults', { concurrencyLimit: 3 + elsewhere, processingDelayMs: 1_500, concurrencyRetryAfterSeconds: null });
      await e.pool.query(
        'delete from migrate.platform_permit_waiters; delete from migrate.platform_permits; delete from migrate.platform_fair_shares; delete from migrate.platform_permit_holds; delete from migrate.platform_pace',
      );
      const truth = await seedAccounts(e, { accounts: 10, seed: 7, defectRate: 0, accountNumberPrefix: `${uniqueId('PW')}-` });
      const accounts = truth.map((t) => t.external_account_number);
      const before = (await sandbox(e, 'GET', '/admin/requests')).concurrencyLimited as number;
      const runId = uniqueId('run-window-');
      const handle = await startRun(
        e,
        { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: accountsFile(e, runId, accounts) }, concurrency: 10, weight: 3 },
        { taskQueue },
      );
      // While it runs: who holds and who waits for permits, as the platform activities asked for them.
      const holders = new Set(accounts.map((ext) => accountWorkflowId(e.config.IMPORT_SUPPLIER_CODE, ext, false, runId)));
      const seen = new Map<string, { fairness_key: string; priority_key: number; weight: number }>();
      let maxHeld = 0;
      // What the window and the tenant did, a line at each change (printed if the refusals are too many).
      const trace: string[] = [];
      let done = false;
      const result = handle.result().finally(() => (done = true));
      const startedAt = Date.now();
      while (!done) {
        const r = await e.pool.query<{ holder: string; fairness_key: string; priority_key: number; weight: number }>(
          `select holder, fairness_key, priority_key, weight from migrate.platform_permits
         union all select holder, fairness_key, priority_key, weight from migrate.platform_permit_waiters`,
        );
        const held = await e.pool.query<{ n: number }>('select count(*)::int as n from migrate.platform_permits');
        maxHeld = Math.max(maxHeld, held.rows[0].n);
        const t = await e.pool.query<{ line: string }>(
          `select format('window %s%s, %s accepted, %s refused; %s permits held; the tenant: %s of ours, %s others in processing',
                         round(window_size::numeric, 2), case when probing then ' (probing)' end, accepted, throttled,
                         (select count(*) from migrate.platform_permits),
                         (select count(*) from sandbox.import_processes where status in ('PENDING', 'IN_PROGRESS') and external_identifier = any($1)),
                         (select count(*) from sandbox.import_processes where status in ('PENDING', 'IN_PROGRESS') and external_identifier <> all($1))) as line
             from migrate.platform_pace`,
          [accounts],
        );
        const line = t.rows.map((x) => x.line).join(' | ');
        if (line !== trace.at(-1)?.replace(/^\+\d+ ms: /, '')) trace.push(`+${Date.now() - startedAt} ms: ${line}`);
        for (const x of r.rows) if (holders.has(x.holder)) seen.set(x.holder, x);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const progress = await result;
      expect(progress.totals.completed).toBe(10);
      // The run's page in the UI shows the window (its current details; counts only).
      const meta = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      expect(meta.currentDetails).toMatch(/^\*\*Platform window: adaptive, \d+ accounts in processing at once \(\d+ now; ceiling 500\)/);
      // Each account created and accepted once: a refusal cost a call, never a second import.
      const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
      for (const ext of accounts) expect(platform.get(ext)).toMatchObject({ created_count: 1, schedule_accepted_count: 1 });

      // Inherited from the account workflow's start (domain/priority.ts): the supplier as fairness key,
      // the run's weight, a named list's priority; the activity read them from its own Info.
      expect(seen.size).toBeGreaterThan(0);
      for (const x of seen.values()) expect(x).toMatchObject({ fairness_key: e.config.IMPORT_SUPPLIER_CODE, priority_key: REQUESTED_PRIORITY_KEY, weight: 3 });

      // The key's share of the window counts each account the tenant took once: a refused call's permit
      // was given back and not counted (domain/platform-pace.ts, capLeads).
      const shares = await e.pool.query<{ fairness_key: string; granted: number }>('select fairness_key, granted from migrate.platform_fair_shares');
      expect(shares.rows).toEqual([{ fairness_key: e.config.IMPORT_SUPPLIER_CODE, granted: 10 }]);

      // The window found the limit: what `run status` shows, and at most a few refusals.
      const view = await platformPace(e.pool, { ...e.config, PLATFORM_PACE: 'adaptive' });
      const refused = ((await sandbox(e, 'GET', '/admin/requests')).concurrencyLimited as number) - before;
      expect(view.calls).toBe(10 + refused);
      expect(view.held).toBe(0);
      expect(view.window).toBeGreaterThanOrEqual(1);
      expect(
        refused,
        `refused calls (${elsewhere} imports of other files were in processing at the start); the window:\n${trace.join('\n')}`,
      ).toBeLessThanOrEqual(3);
      expect(maxHeld).toBeLessThanOrEqual(Math.floor(view.window!) + 4);
      expect(paceLine(view)).toMatch(
        /^Platform window: adaptive, \d+ accounts in processing at once \(0 now; ceiling 500\), ≈ [\d.]+ accounts\/s at [\d.]+ s each, throttled/,
      );
    },
  );

  it('a permit whose account workflow was terminated mid-import comes back long before its lease ends', async () => {
    const taskQueue = uniqueId('window-sweep-');
    // A window of one account in processing: the terminated account's permit is the only one.
    await workers.start(taskQueue, taskQueue, { PLATFORM_PACE: 'adaptive', PLATFORM_MAX_IN_PROCESSING: '1' });
    await e.pool.query(
      'delete from migrate.platform_permit_waiters; delete from migrate.platform_permits; delete from migrate.platform_permit_holds; delete from migrate.platform_pace',
    );
    // The first account stays in processing at the tenant for 10 minutes: its terminal event would free its permit only then.
    await sandbox(e, 'PUT', '/admin/faults', { concurrencyLimit: 0, processingDelayMs: 600_000, concurrencyRetryAfterSeconds: null });
    const truth = await seedAccounts(e, { accounts: 2, seed: 11, defectRate: 0, accountNumberPrefix: `${uniqueId('PS')}-` });
    const [first, second] = truth.map((t) => t.external_account_number);
    const runA = uniqueId('run-sweep-a-');
    const handleA = await startRun(
      e,
      { runId: runA, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: accountsFile(e, runA, [first]) }, concurrency: 1 },
      { taskQueue },
    );
    const holder = accountWorkflowId(e.config.IMPORT_SUPPLIER_CODE, first, false, runA);
    const accepted = async () =>
      (await e.pool.query('select 1 from migrate.platform_permits where holder = $1 and accepted_at is not null', [holder])).rowCount === 1;
    await until('the first account accepted by the tenant, holding its permit', accepted);
    // Terminated from outside (the Temporal UI or CLI): it never records an outcome.
    await e.client.workflow.getHandle(holder).terminate('the operator stopped this account');
    await handleA.terminate('its account was terminated');
    await sandbox(e, 'PUT', '/admin/faults', { concurrencyLimit: 0, processingDelayMs: 1_500, concurrencyRetryAfterSeconds: null });

    const runB = uniqueId('run-sweep-b-');
    const handleB = await startRun(
      e,
      { runId: runB, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: accountsFile(e, runB, [second]) }, concurrency: 1 },
      { taskQueue },
    );
    // The lease is an hour and the tenant holds the first account for 10 minutes: only the sweep
    // (a long-held permit checked against Temporal) lets the second account through within this wait.
    let done = false;
    const result = handleB.result().finally(() => (done = true));
    await until('the second account through the window of one', async () => done, 150_000);
    expect((await result).totals.completed).toBe(1);
    expect(await accepted()).toBe(false);
    const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    expect(platform.get(second)).toMatchObject({ created_count: 1, schedule_accepted_count: 1 });
  });
});
