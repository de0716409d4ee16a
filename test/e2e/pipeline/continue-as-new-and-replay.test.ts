import { Worker } from '@temporalio/worker';
import { codecWarnings } from '../../../clients/temporal';
import { describe, expect, it } from 'vitest';
import { createDataConverter } from '../../../codec/data-converter';
import { workflowBundle } from '../../../workers/workflow-bundle';
import { runWorkflowId } from '../../../domain/workflow-ids';
import { useE2E, expectOutcomesMatchGroundTruth, listOf, runToEnd, seedAccounts, uniqueId } from '../helpers';

const e = useE2E();

describe('long runs', () => {
  it('continue as new with accounts in flight and lose none; every history replays deterministically', async () => {
    const truth = await seedAccounts(e, { accounts: 60, seed: 17, defectRate: 0.2, accountNumberPrefix: `${uniqueId('CAN')}-` });
    const runId = uniqueId('run-can-');
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    // A tiny history budget forces several continue-as-new while accounts are in flight (the run
    // costs a few events per tick, not per account, so the budget is the schema's minimum).
    const result = await runToEnd(e, {
      runId,
      supplierCode: supplier,
      selection: listOf(e, runId, truth),
      concurrency: 4,
      pageSize: 25,
      continueAsNewAtEvents: 50,
    });
    expect(result.totals.completed + result.totals.failed).toBe(60);
    expect(result.totals.enumerated).toBe(60);
    await expectOutcomesMatchGroundTruth(e, runId, supplier, truth);

    const segments: string[] = [];
    for await (const wf of e.client.workflow.list({ query: `WorkflowId = '${runWorkflowId(runId)}'` })) segments.push(wf.runId);
    expect(segments.length).toBeGreaterThan(2);

    // Determinism: today's workflow code replays every segment of the run and a sample of accounts.
    const histories = [];
    for (const seg of segments)
      histories.push({ workflowId: runWorkflowId(runId), history: await e.client.workflow.getHandle(runWorkflowId(runId), seg).fetchHistory() });
    for (const t of truth.slice(0, 8)) {
      const id = `account-import/${supplier}/${t.external_account_number}`;
      histories.push({ workflowId: id, history: await e.client.workflow.getHandle(id).fetchHistory() });
    }
    const replay = { workflowBundle: await workflowBundle(), dataConverter: createDataConverter(e.config, { logger: codecWarnings }) };
    for (const h of histories) await expect(Worker.runReplayHistory(replay, h.history, h.workflowId)).resolves.toBeUndefined();
  });
});
