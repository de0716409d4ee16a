import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { createPlatformClient } from '../../../clients/platform';
import { accountWorkflowId } from '../../../domain/workflow-ids';
import { attempts, accountsFile, sandbox, seedAccounts, setSupplierEverywhere, startRun, uniqueId, until, useE2E } from '../helpers';

const e = useE2E();

/**
 * The supplier census against the sandbox's real state: a run of three accounts completes two and
 * leaves the third pending at the tenant (a window it never meets); then the tenant gains two
 * accounts no run imported and loses one the run completed. `supplier census --json` names exactly those.
 */
describe('supplier census', () => {
  it('names the accounts imported elsewhere, the completed one the tenant lost, and the one stuck pending', async () => {
    const supplier = uniqueId('CENSUS-');
    await setSupplierEverywhere(e, supplier, 'ONGOING');
    const accounts = (await seedAccounts(e, { accounts: 3, seed: 48, defectRate: 0, accountNumberPrefix: `${supplier}-` })).map(
      (t) => t.external_account_number,
    );
    const [lost, kept, held] = accounts;
    await sandbox(e, 'PUT', '/admin/forced-outcomes', { [held]: { hold: true } });
    const runId = uniqueId('run-census-');
    const run = await startRun(e, {
      runId,
      supplierCode: supplier,
      selection: { kind: 'list', path: accountsFile(e, runId, accounts) },
      concurrency: 3,
      reconcile: false,
      timings: { eventWaitSeconds: 5, pollMaxSeconds: 3600, supplierRecheckSeconds: 60 },
    });
    try {
      await until('two accounts completed and the third scheduled', async () => {
        const a = await attempts(e, runId);
        return a.get(lost)?.outcome === 'completed' && a.get(kept)?.outcome === 'completed' && a.get(held)?.outcome === null && (await scheduled(held));
      });
      const elsewhere = [`${supplier}-ELSEWHERE-1`, `${supplier}-ELSEWHERE-2`];
      expect(await sandbox(e, 'POST', '/admin/import-processes/plant', { supplier, state: 'imported', external_account_numbers: [elsewhere[0]] })).toEqual({
        planted: 1,
      });
      expect(await sandbox(e, 'POST', '/admin/import-processes/plant', { supplier, state: 'pending', external_account_numbers: [elsewhere[1]] })).toEqual({
        planted: 1,
      });
      expect(await sandbox(e, 'DELETE', `/admin/accounts/${supplier}/${lost}`)).toEqual({ removed: true });

      // The transfer status agrees with the lists (read by the product's own client).
      const platform = createPlatformClient(e.config);
      expect((await platform.getAccountTransferStatus(supplier, kept))?.status).toBe('COMPLETED');
      expect((await platform.getAccountTransferStatus(supplier, held))?.status).toBe('IN_PROGRESS');
      expect((await platform.getAccountTransferStatus(supplier, lost))?.status).toBe('UNKNOWN');
      expect(await platform.getAccountTransferStatus(supplier, `${supplier}-NEVER`)).toBeUndefined();

      // Stuck means pending longer than the threshold since our schedule call: on a quick machine the
      // steps above take less than the 1 s threshold, so wait past it.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const r = await cli(['supplier', 'census', supplier, '--json', '--stuck-after-seconds', '1'], { env: e.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(1);
      const census = JSON.parse(r.stdout);
      expect({ platformOnly: census.platformOnly, ledgerOnly: census.ledgerOnly, stuckPending: census.stuckPending }).toEqual({
        platformOnly: [...elsewhere].sort(),
        ledgerOnly: [lost],
        stuckPending: [held],
      });
      expect(census.counts).toEqual({
        tenantImported: 2,
        tenantPending: 2,
        ledgerCompleted: 2,
        matched: 1,
        inFlight: 0,
        platformOnly: 2,
        ledgerOnly: 1,
        stuckPending: 1,
      });

      // With a threshold the held account has not reached, it is in flight, not stuck.
      const patient = JSON.parse((await cli(['supplier', 'census', supplier, '--json'], { env: e.env })).stdout);
      expect([patient.stuckPending, patient.counts.inFlight]).toEqual([[], 1]);

      // The sandbox runs in strict mode: the lists and the transfer status were asked for as the contract says.
      const { violations } = await sandbox(e, 'GET', '/admin/violations');
      expect(violations.filter((v: { path: string }) => /import-processes|account-transfer-status/.test(v.path))).toEqual([]);

      // The report of the run shows the latest census of its supplier.
      const report = await cli(['report', runId, '--summary', '--json'], { env: e.env });
      expect(JSON.parse(report.stdout).census).toMatchObject({ supplierCode: supplier, stuckAfterSeconds: 86400, counts: patient.counts });
    } finally {
      await run.terminate('test over').catch(() => {});
      await e.client.workflow
        .getHandle(accountWorkflowId(supplier, held, false, runId))
        .terminate('test over')
        .catch(() => {});
      await sandbox(e, 'PUT', '/admin/forced-outcomes', { [held]: null }).catch(() => {});
    }
  });
});

async function scheduled(account: string): Promise<boolean> {
  const r = await e.pool.query(`select 1 from migrate.account_attempts where external_account_number = $1 and scheduled_at is not null`, [account]);
  return (r.rowCount ?? 0) > 0;
}
