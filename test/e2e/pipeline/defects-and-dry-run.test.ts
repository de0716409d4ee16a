import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsFile, connectE2E, expectOutcomesMatchGroundTruth, groundTruth, runToEnd, seedAccounts, uniqueId, type E2E } from '../helpers';

let e: E2E;
beforeAll(async () => {
  e = await connectE2E();
});
afterAll(async () => {
  await e?.close();
});

describe('a migration run on the real stack', () => {
  it('ends every account with the outcome the generator expects, and creates each at most once', async () => {
    const prefix = uniqueId('HP');
    const truth = await seedAccounts(e, { accounts: 40, seed: 7, defectRate: 0.4, accountNumberPrefix: `${prefix}-` });
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const runId = uniqueId('run-hp-');
    const list = accountsFile(e, runId, truth.map((t) => t.external_account_number));

    const result = await runToEnd(e, { runId, supplierCode: supplier, selection: { kind: 'list', path: list }, concurrency: 10 });

    expect(result.state).toBe('completed');
    expect(result.totals.completed + result.totals.failed + result.totals.notAttempted).toBe(truth.length);
    await expectOutcomesMatchGroundTruth(e, runId, supplier, truth);

    // Validation failures carry the platform's error shape in the ledger.
    const failed = truth.find((t) => t.expected.outcome === 'failed' && t.expected.stage === 'validate');
    if (failed && failed.expected.outcome === 'failed') {
      const errs = await e.pool.query(`select code, attr, detail from migrate.account_errors where run_id = $1 and external_account_number = $2`, [runId, failed.external_account_number]);
      expect(errs.rows).toContainEqual(expect.objectContaining({ code: failed.expected.code, attr: failed.expected.attr }));
    }

    // The failed accounts are Failed executions, findable by run and code in the UI.
    const failedInTemporal: string[] = [];
    for await (const wf of e.client.workflow.list({ query: `KmRunId = '${runId}' AND KmKind = 'account' AND ExecutionStatus = 'Failed'` })) failedInTemporal.push(wf.workflowId);
    expect(failedInTemporal.length).toBe(result.totals.failed);
  });

  it('a dry run validates on the platform and creates nothing', async () => {
    const prefix = uniqueId('DR');
    const truth = await seedAccounts(e, { accounts: 6, seed: 11, defectRate: 0, accountNumberPrefix: `${prefix}-` });
    const runId = uniqueId('run-dry-');
    const list = accountsFile(e, runId, truth.map((t) => t.external_account_number));
    const result = await runToEnd(e, { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: list }, dryRun: true });
    expect(result.totals.completed).toBe(6);
    const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    for (const t of truth) expect(platform.get(t.external_account_number)?.created_count ?? 0).toBe(0);
    // A rehearsal does not block the real import: its workflows live in their own ID space.
    const real = await runToEnd(e, { runId: uniqueId('run-after-dry-'), supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: list } });
    expect(real.totals.completed).toBe(6);
  });
});
