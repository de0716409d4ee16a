import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliSync } from '../../support/cli';
import { listRetryingAccounts } from '../../../clients/retrying-accounts';
import { runProgressQuery } from '../../../domain/messages';
import { accountsFile, attempts, connectE2E, groundTruth, runToEnd, sandbox, seedAccounts, startRun, uniqueId, until, type E2E } from '../helpers';

let e: E2E;
beforeAll(async () => {
  e = await connectE2E();
});
afterAll(async () => {
  await sandbox(e, 'PUT', '/admin/faults', { eventDelayMs: 0, retryAfterSeconds: 1, scheduleLatencyMs: 0 }).catch(() => {});
  await e?.close();
});

/** The CLI as an operator runs it, against the e2e stack. */
const cli = (args: string[]) => cliSync(args, { env: e.env });

async function clean(prefix: string, n: number) {
  return (await seedAccounts(e, { accounts: n, seed: 17, defectRate: 0, accountNumberPrefix: `${prefix}-` })).map((t) => t.external_account_number);
}

describe('platform outcomes end to end', () => {
  it('an import the platform ERRORs fails the account at stage platform with its code; nothing is created', async () => {
    const [bad, good] = await clean(uniqueId('ER'), 2);
    await sandbox(e, 'PUT', '/admin/forced-outcomes', {
      [bad]: { outcome: 'error', error_code: 'gaps_or_overlaps_in_agreement_dates', error_detail: 'forced by the test' },
    });
    const runId = uniqueId('run-errored-');
    const result = await runToEnd(e, {
      runId,
      supplierCode: e.config.IMPORT_SUPPLIER_CODE,
      selection: { kind: 'list', path: accountsFile(e, runId, [bad, good]) },
    });
    await sandbox(e, 'PUT', '/admin/forced-outcomes', { [bad]: null });
    expect(result.totals).toMatchObject({ completed: 1, failed: 1 });
    const ledger = await attempts(e, runId);
    expect(ledger.get(bad)).toMatchObject({ outcome: 'failed', stage: 'platform', error_code: 'gaps_or_overlaps_in_agreement_dates' });
    const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    expect(platform.get(bad)).toMatchObject({ created_count: 0, status: 'ERRORED' });
    expect(platform.get(good)).toMatchObject({ created_count: 1 });
  });

  it("Retry-After is honoured: no request about a throttled account comes before the platform's Retry-After", async () => {
    const [ext] = await clean(uniqueId('RA'), 1);
    const before = await sandbox(e, 'GET', '/admin/requests');
    // Longer than the retry policy's first intervals (2 s, 4 s): a client that ignored it would come early.
    await sandbox(e, 'PUT', '/admin/faults', { retryAfterSeconds: 5 });
    await sandbox(e, 'PUT', '/admin/forced-outcomes', { [ext]: { fail_schedule_times: 2, status: 429 } });
    const runId = uniqueId('run-ra-');
    const result = await runToEnd(e, { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: accountsFile(e, runId, [ext]) } });
    await sandbox(e, 'PUT', '/admin/faults', { retryAfterSeconds: 1 });
    expect(result.totals.completed).toBe(1);
    const after = await sandbox(e, 'GET', '/admin/requests');
    expect(after.throttled - before.throttled).toBe(2);
    expect(after.early - before.early).toBe(0);
    expect((await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE)).get(ext)).toMatchObject({ created_count: 1, schedule_accepted_count: 1 });
  });

  it('a late event that arrives after polling recorded the outcome changes nothing', async () => {
    const [ext] = await clean(uniqueId('LT'), 1);
    // Later than the wait ends: its 1 s, then the events process's next sweep (every 15 s,
    // domain/event-wait.ts), then the status read.
    await sandbox(e, 'PUT', '/admin/faults', { eventDelayMs: 30_000 });
    const runId = uniqueId('run-late-');
    const result = await runToEnd(e, {
      runId,
      supplierCode: e.config.IMPORT_SUPPLIER_CODE,
      selection: { kind: 'list', path: accountsFile(e, runId, [ext]) },
      timings: { eventWaitSeconds: 1, pollMaxSeconds: 3600, supplierRecheckSeconds: 30 },
    });
    await sandbox(e, 'PUT', '/admin/faults', { eventDelayMs: 0 });
    expect(result.totals.completed).toBe(1);
    const recorded = (await attempts(e, runId)).get(ext)!;
    expect(recorded).toMatchObject({ outcome: 'completed', outcome_source: 'poll' });
    // The event comes later and is kept in the inbox; the recorded outcome stays as it was.
    await until(
      'the late event to reach the inbox',
      async () => (await e.pool.query(`select 1 from migrate.inbox where external_identifier = $1`, [ext])).rowCount === 1,
    );
    expect((await attempts(e, runId)).get(ext)).toEqual(recorded);
    expect((await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE)).get(ext)).toMatchObject({
      created_count: 1,
      account_number: recorded.platform_account_number,
    });
    const wf = await e.client.workflow.getHandle(`account-import/${e.config.IMPORT_SUPPLIER_CODE}/${ext}`).describe();
    expect(wf.status.name).toBe('COMPLETED');
  });

  it('an account whose platform call keeps failing is listed as retrying (attempt, code, next retry), and no longer once it succeeds', async () => {
    const [ext] = await clean(uniqueId('RT'), 1);
    // The platform answers 503 until both views have seen the account retrying, then takes it: what
    // is asserted does not race the backoff (retries after 2, 4, 8, 16 s …, workflows/activity-options.ts).
    // Four failures in a row gave the views 30 s, and beside three other stacks `run status` missed them.
    await sandbox(e, 'PUT', '/admin/forced-outcomes', { [ext]: { fail_schedule_times: 1_000, status: 503 } });
    const runId = uniqueId('run-retry-');
    const handle = await startRun(e, { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: accountsFile(e, runId, [ext]) } });
    try {
      let seen: Awaited<ReturnType<typeof listRetryingAccounts>> = [];
      await until('the account to be listed as retrying', async () => (seen = await listRetryingAccounts(e.client, runId)).length > 0, 60_000);
      expect(seen).toEqual([
        expect.objectContaining({
          account: ext,
          activity: 'scheduleAccount',
          lastFailureCode: 'platform_unavailable',
          lastFailureMessage: expect.stringMatching(/-> 503$/),
        }),
      ]);
      expect(seen[0].attempt).toBeGreaterThanOrEqual(2);
      expect(Date.parse(seen[0].nextRetryAt!)).toBeGreaterThan(0);
      // `run status` answers from the ledger alone when Temporal is slower than 3 s (cli/commands/run.ts),
      // as it can be beside three other stacks: asked again, as an operator would, while the account retries.
      let status = '';
      await until('`run status` to list the account as retrying', async () => (status = cli(['run', 'status', runId]).stdout).includes('Retrying (1)'), 90_000);
      expect(status).toContain(ext);
    } finally {
      await sandbox(e, 'PUT', '/admin/forced-outcomes', { [ext]: null });
    }
    expect((await handle.result()).totals.completed).toBe(1);
    expect(await listRetryingAccounts(e.client, runId)).toEqual([]);
  });

  it('a supplier paused and resumed mid-run with `kraken-migrate supplier set-status` only: accounts park, then all complete once', async () => {
    const code = e.config.IMPORT_SUPPLIER_CODE;
    const accounts = await clean(uniqueId('SP'), 16);
    // Slow enough (schedule calls held 1.5 s, one account at a time) that the run is still going
    // when the operator's command arrives.
    await sandbox(e, 'PUT', '/admin/faults', { scheduleLatencyMs: 1_500 });
    const runId = uniqueId('run-setstatus-');
    const handle = await startRun(e, {
      runId,
      supplierCode: code,
      selection: { kind: 'list', path: accountsFile(e, runId, accounts) },
      concurrency: 1,
      timings: { eventWaitSeconds: 10, pollMaxSeconds: 3600, supplierRecheckSeconds: 300 },
    });
    try {
      await until('the first outcome', async () => (await handle.query(runProgressQuery)).totals.completed >= 1);
      const paused = cli(['supplier', 'set-status', code, 'PAUSED', '--reason', 'e2e']);
      expect(paused.code).toBe(0);
      expect(paused.stdout).toContain(runId);
      await until('the run to wait on the supplier', async () => (await handle.query(runProgressQuery)).state === 'waiting_on_supplier');
      const parked = (await handle.query(runProgressQuery)).totals.completed;
      expect(parked).toBeLessThan(accounts.length);
    } finally {
      await sandbox(e, 'PUT', '/admin/faults', { scheduleLatencyMs: 0 });
      expect(cli(['supplier', 'set-status', code, 'ONGOING']).code).toBe(0);
    }
    const result = await handle.result();
    expect(result.totals).toMatchObject({ completed: 16, failed: 0, notAttempted: 0 });
    const platform = await groundTruth(e, code);
    for (const ext of accounts) expect(platform.get(ext)).toMatchObject({ created_count: 1 });
  });
});
