import { describe, expect, it } from 'vitest';
import { accountsFile, attempts, useE2E, expectOutcomesMatchGroundTruth, groundTruth, runToEnd, sandbox, seedAccounts, uniqueId } from '../helpers';

const e = useE2E();

describe('a migration run on the real stack', () => {
  it('ends every account with the outcome the generator expects, and creates each at most once', async () => {
    const prefix = uniqueId('HP');
    const truth = await seedAccounts(e, { accounts: 40, seed: 7, defectRate: 0.4, accountNumberPrefix: `${prefix}-` });
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const runId = uniqueId('run-hp-');
    const list = accountsFile(
      e,
      runId,
      truth.map((t) => t.external_account_number),
    );

    const result = await runToEnd(e, { runId, supplierCode: supplier, selection: { kind: 'list', path: list }, concurrency: 10 });

    expect(result.state).toBe('completed');
    expect(result.totals.completed + result.totals.failed + result.totals.notAttempted).toBe(truth.length);
    await expectOutcomesMatchGroundTruth(e, runId, supplier, truth);

    // Validation failures carry the platform's error shape in the ledger.
    const failed = truth.find((t) => t.expected.outcome === 'failed' && t.expected.stage === 'validate');
    expect(failed, 'the seeded data holds a validation defect').toBeDefined();
    if (failed?.expected.outcome !== 'failed') throw new Error('unreachable');
    const errs = await e.pool.query(`select code, attr, detail from migrate.account_errors where run_id = $1 and external_account_number = $2`, [
      runId,
      failed.external_account_number,
    ]);
    expect(errs.rows).toContainEqual(expect.objectContaining({ code: failed.expected.code, attr: failed.expected.attr }));

    // The failed accounts are Failed executions, findable by run and code in the UI.
    const failedInTemporal: string[] = [];
    for await (const wf of e.client.workflow.list({ query: `KmRunId = '${runId}' AND KmKind = 'account' AND ExecutionStatus = 'Failed'` }))
      failedInTemporal.push(wf.workflowId);
    expect(failedInTemporal.length).toBe(result.totals.failed);
  });

  it('a dry run validates on the platform and creates nothing; its failures, local and platform-side, are recorded', async () => {
    const prefix = uniqueId('DR');
    const truth = await seedAccounts(e, { accounts: 12, seed: 11, defectRate: 0.5, accountNumberPrefix: `${prefix}-` });
    const clean = truth.filter((t) => t.expected.outcome === 'completed').map((t) => t.external_account_number);
    const defective = truth.filter((t) => t.expected.outcome === 'failed');
    expect(clean.length).toBeGreaterThanOrEqual(3);
    expect(defective.length).toBeGreaterThan(0);
    // One clean account the platform refuses while processing: DRY_RUN_ERRORED.
    const refused = clean.pop()!;
    await sandbox(e, 'PUT', '/admin/forced-outcomes', {
      [refused]: { outcome: 'error', error_code: 'meter_point_with_no_agreement', error_detail: 'forced by the test' },
    });
    const runId = uniqueId('run-dry-');
    const list = accountsFile(
      e,
      runId,
      truth.map((t) => t.external_account_number),
    );
    const result = await runToEnd(e, { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: list }, dryRun: true });
    await sandbox(e, 'PUT', '/admin/forced-outcomes', { [refused]: null });
    expect(result.totals).toMatchObject({ completed: clean.length, failed: defective.length + 1 });
    const ledger = await attempts(e, runId);
    const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    // The platform saw every clean account (a dry-run process each) and created none.
    for (const ext of clean) {
      expect(ledger.get(ext)).toMatchObject({ outcome: 'completed' });
      expect(platform.get(ext)).toMatchObject({ created_count: 0, status: 'DRY_RUN_SUCCEEDED' });
      expect(platform.get(ext)!.schedule_accepted_count).toBeGreaterThanOrEqual(1);
    }
    expect(ledger.get(refused)).toMatchObject({ outcome: 'failed', stage: 'platform', error_code: 'meter_point_with_no_agreement' });
    expect(platform.get(refused)).toMatchObject({ created_count: 0, status: 'DRY_RUN_ERRORED' });
    for (const t of defective) {
      if (t.expected.outcome !== 'failed') continue;
      expect(ledger.get(t.external_account_number)).toMatchObject({ outcome: 'failed', stage: t.expected.stage, error_code: t.expected.code });
      expect(platform.get(t.external_account_number)).toBeUndefined();
    }
    // A rehearsal does not block the real import: its workflows live in their own ID space.
    const realList = accountsFile(e, `${runId}-real`, clean);
    const real = await runToEnd(e, {
      runId: uniqueId('run-after-dry-'),
      supplierCode: e.config.IMPORT_SUPPLIER_CODE,
      selection: { kind: 'list', path: realList },
    });
    expect(real.totals.completed).toBe(clean.length);
  });
});
