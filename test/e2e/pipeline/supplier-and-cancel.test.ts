import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorkflowId } from '../../../domain/workflow-ids';
import { cancelRun, runProgressQuery, supplierStatusSignal } from '../../../domain/messages';
import { attempts, connectE2E, type E2E, groundTruth, listOf, sandbox, seedAccounts, setSupplierEverywhere, startRun, uniqueId } from '../helpers';

let e: E2E;
beforeAll(async () => {
  e = await connectE2E();
});
afterAll(async () => {
  await sandbox(e, 'PUT', '/admin/faults', { latencyMs: 0, latencyJitterMs: 0 }).catch(() => {});
  await e?.close();
});

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('supplier guard and operator controls', () => {
  it('a supplier paused on the platform mid-run parks accounts, and resuming completes them all (none failed)', async () => {
    const supplier = uniqueId('PAUSE-');
    await setSupplierEverywhere(e, supplier, 'ONGOING');
    const truth = await seedAccounts(e, { accounts: 12, seed: 5, defectRate: 0, accountNumberPrefix: `${supplier}-` });
    const runId = uniqueId('run-pause-');
    // The platform operator pauses the supplier before our accounts reach it.
    await sandbox(e, 'PUT', `/admin/suppliers/${supplier}`, { status: 'PAUSED' });
    const handle = await startRun(e, {
      runId,
      supplierCode: supplier,
      selection: listOf(e, runId, truth),
      concurrency: 4,
      timings: { eventWaitSeconds: 10, pollMaxSeconds: 3600, supplierRecheckSeconds: 5 },
    });
    // The platform's refusal pauses our mirror of the supplier, and the run waits on it.
    await until(
      'the ledger to learn the pause',
      async () => (await e.pool.query(`select status from migrate.supplier_status where supplier_code = $1`, [supplier])).rows[0]?.status === 'PAUSED',
    );
    await until('the run to wait on the supplier', async () => (await handle.query(runProgressQuery)).state === 'waiting_on_supplier');
    const during = await attempts(e, runId);
    expect([...during.values()].filter((a) => a.outcome === 'failed')).toEqual([]);

    // The operator resumes: platform side, then our mirror, and the run is told.
    await setSupplierEverywhere(e, supplier, 'ONGOING');
    await handle.signal(supplierStatusSignal, { status: 'ONGOING' });
    const result = await handle.result();
    expect(result.totals).toMatchObject({ completed: 12, failed: 0, notAttempted: 0 });
    const platform = await groundTruth(e, supplier);
    for (const t of truth) expect(platform.get(t.external_account_number)?.created_count).toBe(1);
  });

  it('a Complete supplier takes no new accounts: the run records them as not attempted', async () => {
    const supplier = uniqueId('DONE-');
    await setSupplierEverywhere(e, supplier, 'COMPLETE');
    const truth = await seedAccounts(e, { accounts: 5, seed: 9, defectRate: 0, accountNumberPrefix: `${supplier}-` });
    const runId = uniqueId('run-complete-');
    const handle = await startRun(e, {
      runId,
      supplierCode: supplier,
      selection: listOf(e, runId, truth),
    });
    const result = await handle.result();
    expect(result.totals).toMatchObject({ completed: 0, failed: 0, notAttempted: 5 });
    const rows = [...(await attempts(e, runId)).values()];
    expect(rows.map((r) => [r.outcome, r.error_code])).toEqual(Array(5).fill(['not_attempted', 'import_supplier_migration_not_ongoing']));
    expect((await groundTruth(e, supplier)).size).toBe(0);
  });

  it('cancel lets in-flight accounts finish and leaves none half-done', async () => {
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const truth = await seedAccounts(e, { accounts: 20, seed: 13, defectRate: 0, accountNumberPrefix: `${uniqueId('CX')}-` });
    const runId = uniqueId('run-cancel-');
    await sandbox(e, 'PUT', '/admin/faults', { latencyMs: 300, latencyJitterMs: 0 });
    const handle = await startRun(e, {
      runId,
      supplierCode: supplier,
      selection: listOf(e, runId, truth),
      concurrency: 3,
    });
    await until('some accounts to be dispatched', async () => (await handle.query(runProgressQuery)).totals.dispatched >= 3);
    await handle.executeUpdate(cancelRun, { args: [{ reason: 'test' }] });
    const result = await handle.result();
    await sandbox(e, 'PUT', '/admin/faults', { latencyMs: 0, latencyJitterMs: 0 });
    expect(result.state).toBe('cancelled');
    const rows = [...(await attempts(e, runId)).values()];
    expect(rows).toHaveLength(20);
    expect(rows.filter((r) => r.outcome === null)).toEqual([]);
    const notAttempted = rows.filter((r) => r.outcome === 'not_attempted');
    expect(notAttempted.length).toBeGreaterThan(0);
    expect(notAttempted.every((r) => r.error_code === 'run_cancelled')).toBe(true);
    const platform = await groundTruth(e, supplier);
    for (const r of notAttempted) expect(platform.get(r.external_account_number)).toBeUndefined();
    for (const r of rows.filter((x) => x.outcome === 'completed')) expect(platform.get(r.external_account_number)?.created_count).toBe(1);
    expect(runWorkflowId(runId)).toBe(handle.workflowId);
  });
});
