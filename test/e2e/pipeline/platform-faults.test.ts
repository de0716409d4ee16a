import { afterEach, describe, expect, it } from 'vitest';
import { createPlatformClient } from '../../../clients/platform';
import { taskParams } from '../../../activities/schedule';
import { createSourceAdapter } from '../../../source/adapter';
import { defaultMapping } from '../../../source/mapping';
import { transformAccount } from '../../../source/transform';
import { KmKind, KmRunId, KmSupplier } from '../../../domain/search-attributes';
import { accountWorkflowId } from '../../../domain/workflow-ids';
import { accountsFile, attempts, useE2E, groundTruth, runToEnd, sandbox, seedAccounts, startRun, uniqueId, until } from '../helpers';

const e = useE2E();

/** Longer than the schedule activity's first retry backoff (2 s) with room for a loaded machine. */
const BLIND_RESEND_TRAP_MS = 12_000;

async function cleanAccounts(prefix: string, n: number) {
  const truth = await seedAccounts(e, { accounts: n, seed: 3, defectRate: 0, accountNumberPrefix: `${prefix}-` });
  return truth.map((t) => t.external_account_number);
}

// A test that times out leaves its body running: its faults are undone here, before the next test.
afterEach(async () => {
  await sandbox(e, 'PUT', '/admin/faults', { responseLostRate: 0, blindResendTrapMs: 0 });
});

describe('platform faults', () => {
  it('retries 5xx, and 429 after the Retry-After the platform asked for, then succeeds without a second creation', async () => {
    const [a5xx, a429, plain] = await cleanAccounts(uniqueId('PF'), 3);
    await sandbox(e, 'PUT', '/admin/forced-outcomes', {
      [a5xx]: { fail_schedule_times: 2, status: 500 },
      [a429]: { fail_schedule_times: 1, status: 429 },
    });
    const runId = uniqueId('run-faults-');
    const result = await runToEnd(e, {
      runId,
      supplierCode: e.config.IMPORT_SUPPLIER_CODE,
      selection: { kind: 'list', path: accountsFile(e, runId, [a5xx, a429, plain]) },
    });
    expect(result.totals.completed).toBe(3);
    const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    for (const ext of [a5xx, a429, plain]) {
      expect(platform.get(ext)?.created_count).toBe(1);
      expect(platform.get(ext)?.schedule_accepted_count).toBe(1);
    }
    // The retries are visible in the account's history: the schedule activity ran more than once.
    const history = await e.client.workflow.getHandle(`account-import/${e.config.IMPORT_SUPPLIER_CODE}/${a5xx}`).fetchHistory();
    const scheduled = history.events!.filter((ev) => ev.activityTaskStartedEventAttributes?.attempt && ev.activityTaskStartedEventAttributes.attempt >= 3);
    expect(scheduled.length).toBeGreaterThanOrEqual(1);
  });

  it('accepted, response lost: the client reads the status instead of scheduling again; each account created and scheduled once', async () => {
    const accounts = await cleanAccounts(uniqueId('RL'), 8);
    // The blind-resend trap: an import whose answer was lost stays pending well past the schedule
    // activity's first retry, and a repeated schedule would open a second import beside it.
    await sandbox(e, 'PUT', '/admin/faults', { responseLostRate: 1, blindResendTrapMs: BLIND_RESEND_TRAP_MS });
    const before = (await sandbox(e, 'GET', '/admin/requests')).responseLost;
    try {
      const runId = uniqueId('run-lost-');
      const result = await runToEnd(e, {
        runId,
        supplierCode: e.config.IMPORT_SUPPLIER_CODE,
        selection: { kind: 'list', path: accountsFile(e, runId, accounts) },
      });
      expect(result.totals.completed).toBe(8);
    } finally {
      await sandbox(e, 'PUT', '/admin/faults', { responseLostRate: 0, blindResendTrapMs: 0 });
    }
    // The platform saw exactly one schedule per account and opened one import for it (a blind retry
    // would show a second schedule and, under the trap, a second import); every first answer was lost.
    const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    for (const ext of accounts) expect(platform.get(ext)).toMatchObject({ created_count: 1, schedule_accepted_count: 1, import_process_count: 1 });
    expect((await sandbox(e, 'GET', '/admin/requests')).responseLost - before).toBe(8);
  });

  it('an account the platform already imported completes with the platform account number, not a failure', async () => {
    const [ext] = await cleanAccounts(uniqueId('AI'), 1);
    // Someone imported it outside this tool (an earlier tool, a manual import): schedule it directly.
    const platform = createPlatformClient(e.config);
    const src = await createSourceAdapter({ kind: 'postgres' }, { pool: e.pool }).getAccount(ext);
    const t = transformAccount(src!, { importSupplierCode: e.config.IMPORT_SUPPLIER_CODE, mapping: defaultMapping() });
    if (!t.ok) throw new Error(JSON.stringify(t.errors));
    // Without its documents (nobody staged them for this import).
    const { notes: _n, statements: _s, ...payload } = t.payload;
    const direct = { task_params: taskParams({ hours: 24 }, false, new Date()), payload: payload as typeof t.payload };
    expect((await platform.scheduleAccountCreation(direct)).kind).toBe('accepted');
    let accountNumber: string | undefined;
    for (let i = 0; i < 100 && !accountNumber; i++) {
      await new Promise((r) => setTimeout(r, 200));
      accountNumber = (await platform.getImportStatus(e.config.IMPORT_SUPPLIER_CODE, ext))?.kraken_identifier ?? undefined;
    }
    expect(accountNumber).toMatch(/^A-/);

    const runId = uniqueId('run-already-');
    const result = await runToEnd(e, { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: accountsFile(e, runId, [ext]) } });
    expect(result.totals.completed).toBe(1);
    const row = (await attempts(e, runId)).get(ext)!;
    expect(row).toMatchObject({ outcome: 'completed', outcome_source: 'already_imported', platform_account_number: accountNumber });
    expect((await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE)).get(ext)?.created_count).toBe(1);
  });

  it('a 429 while the only accounts in processing are ones the tenant keeps for long does not stall the tenant: it is asked again once idle', async () => {
    const [held1, held2, refused] = await cleanAccounts(uniqueId('HS'), 3);
    // Two imports the tenant keeps pending to their window's end, holding their permits all that time.
    await sandbox(e, 'PUT', '/admin/forced-outcomes', { [held1]: { hold: true }, [held2]: { hold: true }, [refused]: { fail_schedule_times: 1, status: 429 } });
    const runA = uniqueId('run-held-');
    const holding = await startRun(e, {
      runId: runA,
      supplierCode: e.config.IMPORT_SUPPLIER_CODE,
      selection: { kind: 'list', path: accountsFile(e, runA, [held1, held2]) },
    });
    const holders = [held1, held2].map((ext) => accountWorkflowId(e.config.IMPORT_SUPPLIER_CODE, ext, false, runA));
    try {
      await until('both held accounts accepted by the tenant, holding their permits', async () => {
        const r = await e.pool.query('select 1 from migrate.platform_permits where holder = any($1) and accepted_at is not null', [holders]);
        return r.rowCount === 2;
      });
      // The refusal narrows the window to the two held accounts: none is free, and no call would be
      // made to widen it again until they end (ledger/platform-pace.ts, probesBeyondWindow).
      const runB = uniqueId('run-after-429-');
      const handle = await startRun(e, {
        runId: runB,
        supplierCode: e.config.IMPORT_SUPPLIER_CODE,
        selection: { kind: 'list', path: accountsFile(e, runB, [refused]) },
      });
      let done = false;
      const result = handle.result().finally(() => (done = true));
      await until('the refused account through, while the held ones still hold their permits', async () => done, 150_000);
      expect((await result).totals.completed).toBe(1);
      expect((await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE)).get(refused)).toMatchObject({ created_count: 1, schedule_accepted_count: 1 });
      // Started without search attributes (as from the Temporal CLI or UI), the run sets its own: the UI finds it (docs/operator-guide.md).
      const attrs = (await handle.describe()).typedSearchAttributes;
      expect([attrs.get(KmKind), attrs.get(KmRunId), attrs.get(KmSupplier)]).toEqual(['run', runB, e.config.IMPORT_SUPPLIER_CODE]);
    } finally {
      await sandbox(e, 'PUT', '/admin/forced-outcomes', { [held1]: null, [held2]: null, [refused]: null }).catch(() => {});
      for (const id of holders)
        await e.client.workflow
          .getHandle(id)
          .terminate('test over')
          .catch(() => {});
      await holding.terminate('test over').catch(() => {});
      // Their permits are given back now rather than when the sweep finds their workflows closed.
      await e.pool.query('delete from migrate.platform_permits where holder = any($1)', [holders]);
    }
  });
});
