import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSync } from '../../support/cli';
import { runWorkflowId } from '../../../domain/workflow-ids';
import { accountsFile, attempts, useE2E, groundTruth, sandbox, seedAccounts, uniqueId, until } from '../helpers';

const e = useE2E();

/** The CLI as an operator runs it, against the e2e stack. */
const cli = (args: string[]) => cliSync(args, { env: e.env });
const status = (runId: string) => {
  const r = cli(['run', 'status', runId, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('stop the line on a plain run start', () => {
  it('a platform failing every account at processing pauses the run within max_same_code; run resume continues; one outcome each', async () => {
    const accounts = (await seedAccounts(e, { accounts: 8, seed: 23, defectRate: 0, accountNumberPrefix: `${uniqueId('SL')}-` })).map(
      (t) => t.external_account_number,
    );
    // The platform accepts each schedule, then ERRORs the import while processing it (an import
    // supplier set up wrong on the tenant looks like this from here).
    const fail = Object.fromEntries(accounts.map((a) => [a, { outcome: 'error', error_code: 'agreement_product_not_found' }]));
    await sandbox(e, 'PUT', '/admin/forced-outcomes', fail);
    const runId = uniqueId('run-stopline-');
    try {
      const start = cli([
        'run',
        'start',
        '--run-id',
        runId,
        '--accounts',
        accountsFile(e, runId, accounts),
        '--concurrency',
        '1',
        '--max-same-code',
        '3',
        '--json',
      ]);
      expect(start.code, start.stderr).toBe(0);

      await until('the run stops the line and its account in flight finishes', async () => {
        const p = await e.client.workflow
          .getHandle(runWorkflowId(runId))
          .query<{ state: string; inFlight: number; stopLine?: { state: { tripped?: unknown } } }>('progress');
        return p.state === 'paused' && p.inFlight === 0 && p.stopLine?.state.tripped !== undefined;
      });
      // Nothing more is dispatched while it waits.
      await new Promise((r) => setTimeout(r, 3000));

      const st = status(runId);
      expect(st.state).toBe('paused');
      expect(st.stopLine).toMatchObject({
        enabled: true,
        tripped: true,
        thresholds: { maxSameCode: 3 },
        reason: { rule: 'max_same_code', code: 'agreement_product_not_found', count: 3 },
        dataErrors: 0,
      });
      expect(st.stopLine.reason.message).toContain('3 platform-side failures in a row with code agreement_product_not_found');
      // The sample accounts are the three that failed (in the order their outcomes came), each with a link to its workflow page.
      expect(st.stopLine.reason.samples.map((x: { externalAccountNumber: string }) => x.externalAccountNumber).sort()).toEqual(accounts.slice(0, 3).sort());
      for (const x of st.stopLine.reason.samples)
        expect(x.url).toContain(encodeURIComponent(`account-import/${e.config.IMPORT_SUPPLIER_CODE}/${x.externalAccountNumber}`));
      expect(st.progress.totals).toMatchObject({ dispatched: 3, failed: 3, notAttempted: 0 });

      // The ledger: three failures at stage platform; nothing else recorded, nothing marked failed by the pause.
      // (Rows in account order: the ledger's query has none, and an updated row moves in the table.)
      const before = await attempts(e, runId);
      const byAccount = (x: [string, ...unknown[]], y: [string, ...unknown[]]) => x[0].localeCompare(y[0]);
      expect(
        [...before.values()]
          .filter((r) => r.outcome !== null)
          .map((r): [string, ...unknown[]] => [r.external_account_number, r.outcome, r.error_code])
          .sort(byAccount),
      ).toEqual(accounts.slice(0, 3).map((a) => [a, 'failed', 'agreement_product_not_found']));
      expect([...before.values()].every((r) => r.outcome !== null)).toBe(true);
      // The platform's own record: only the first three were ever scheduled.
      const truthBefore = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
      expect(accounts.filter((a) => truthBefore.has(a))).toEqual(accounts.slice(0, 3));

      // The text form says why, and how to go on.
      const text = cli(['run', 'status', runId]);
      expect(text.stdout).toContain('STOPPED THE LINE: stop the line: 3 platform-side failures in a row with code agreement_product_not_found');
      expect(text.stdout).toContain(`kraken-migrate run resume ${runId}`);

      // The Temporal UI: the run's memo and its current details.
      const handle = e.client.workflow.getHandle(runWorkflowId(runId));
      const desc = await handle.describe();
      expect(desc.memo?.stopLine).toMatchObject({ rule: 'max_same_code', code: 'agreement_product_not_found', count: 3, sampleAccounts: accounts.slice(0, 3) });
      const meta = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      expect(meta.currentDetails).toContain('Paused: stop the line');

      // The worker's log: one warn line that says why (the code, how many, the sample accounts).
      const stopLogs = () =>
        fs
          .readFileSync(path.join(e.config.DATA_DIR, 'logs', 'worker-1.log'), 'utf8')
          .split('\n')
          .filter((l) => l.includes(runId) && l.includes('stop the line:'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      await until('the stop-the-line log line', async () => stopLogs().length > 0, 10_000);
      expect(stopLogs()).toEqual([
        expect.objectContaining({
          level: 40,
          msg: 'stop the line: 3 platform-side failures in a row with code agreement_product_not_found (max_same_code 3)',
          runId,
          rule: 'max_same_code',
          code: 'agreement_product_not_found',
          count: 3,
          sampleAccounts: accounts.slice(0, 3),
        }),
      ]);

      // The cause is fixed on the tenant; the operator resumes.
      await sandbox(e, 'PUT', '/admin/forced-outcomes', Object.fromEntries(accounts.map((a) => [a, null])));
      const resumed = cli(['run', 'resume', runId, '--json']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const result = await handle.result();
      expect(result.state).toBe('completed');
      expect(result.totals).toMatchObject({ completed: 5, failed: 3, notAttempted: 0 });

      const after = await attempts(e, runId);
      expect(after.size).toBe(8);
      for (const a of accounts.slice(3)) expect(after.get(a)).toMatchObject({ outcome: 'completed' });
      const truth = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
      for (const a of accounts.slice(3)) expect(truth.get(a)).toMatchObject({ created_count: 1, schedule_accepted_count: 1 });
      for (const a of accounts.slice(0, 3)) expect(truth.get(a)).toMatchObject({ created_count: 0 });
      expect((await handle.describe()).memo?.stopLine).toBeUndefined();
    } finally {
      await sandbox(e, 'PUT', '/admin/forced-outcomes', Object.fromEntries(accounts.map((a) => [a, null]))).catch(() => {});
    }
  });
});
