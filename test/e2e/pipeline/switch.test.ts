import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { accountWorkflowId } from '../../../domain/workflow-ids';
import { cliSync } from '../../support/cli';
import { accountsFile, attempts, runToEnd, sandbox, seedAccounts, uniqueId, until, useE2E } from '../helpers';

/**
 * A switch end to end on the real stack (run start --send-registration-flows): the sandbox walks the
 * created accounts' meter points by cohort (some refuse the flow, some are objected to, some
 * rejected, the rest go on supply) and a third of its events, lifecycle ones included, are dropped.
 * `run supply --json` must give every point's final status exactly as the tenant holds it, no account
 * is called on supply while one of its points is not, and no flow is sent twice for a point.
 */

const e = useE2E();
// The faults are this fork's stack's own (test/e2e/helpers.ts): back to none before the next file on it.
afterAll(async () => {
  await sandbox(e, 'PUT', '/admin/faults', {
    eventDropRate: 0,
    supplyStepMs: 1000,
    registrationRefuseRate: 0,
    registrationObjectRate: 0,
    registrationRejectRate: 0,
  }).catch(() => {});
});

const cli = (args: string[]) => cliSync(args, { env: e.env });

describe('the switch end to end', () => {
  it('every meter point followed to the state the tenant holds; no account on supply short of a point; no flow twice', async () => {
    const accounts = (await seedAccounts(e, { accounts: 12, seed: 48, defectRate: 0, accountNumberPrefix: `${uniqueId('SW')}-` })).map(
      (t) => t.external_account_number,
    );
    await sandbox(e, 'PUT', '/admin/faults', {
      supplyStepMs: 400,
      registrationRefuseRate: 0.2,
      registrationObjectRate: 0.2,
      registrationRejectRate: 0.2,
      eventDropRate: 0.3,
    });
    const runId = uniqueId('run-switch-');
    const result = await runToEnd(e, {
      runId,
      supplierCode: e.config.IMPORT_SUPPLIER_CODE,
      selection: { kind: 'list', path: accountsFile(e, runId, accounts) },
      sendRegistrationFlows: true,
      timings: { eventWaitSeconds: 2, pollMaxSeconds: 600, supplierRecheckSeconds: 30, supplyPollMinSeconds: 1, supplyPollMaxSeconds: 3 },
    });
    expect(result.totals.completed).toBe(accounts.length);
    const numbers = new Set([...(await attempts(e, runId)).values()].map((a) => a.platform_account_number));

    // Every point of every created account left by the tool (a final status, or a refused flow).
    await until(
      'every meter point of the run to be final',
      async () => {
        const r = await e.pool.query(`select count(*)::int as waiting from migrate.supply_meter_points where run_id = $1 and outcome is null`, [runId]);
        const all = await e.pool.query(`select count(distinct external_account_number)::int as n from migrate.supply_meter_points where run_id = $1`, [runId]);
        return r.rows[0].waiting === 0 && all.rows[0].n === accounts.length;
      },
      90_000,
    );
    const view = JSON.parse(cli(['run', 'supply', runId, '--json']).stdout);
    const tenant = (await sandbox(e, 'GET', `/admin/ground-truth/supply?supplier=${e.config.IMPORT_SUPPLIER_CODE}`)).meterPoints.filter((p: any) =>
      numbers.has(p.account_number),
    );

    // Exactly as the tenant holds it: every point, its status; refused flows at PRE_REGISTRATION with their detail.
    const key = (account: string, mpxn: string) => `${account}/${mpxn}`;
    expect(Object.fromEntries(view.meterPoints.map((p: any) => [key(p.account, p.mpxn), p.status]))).toEqual(
      Object.fromEntries(tenant.map((p: any) => [key(p.external_identifier, p.mpxn), p.status])),
    );
    expect(view.meterPoints.every((p: any) => p.final)).toBe(true);
    const cohorts = new Set(tenant.map((p: any) => p.cohort));
    expect([...cohorts].sort()).toEqual(['object', 'refuse', 'reject', 'supply']);
    for (const p of view.meterPoints) {
      const t = tenant.find((x: any) => x.external_identifier === p.account && x.mpxn === p.mpxn);
      const expected = { refuse: 'flow_refused', object: 'objected', reject: 'rejected', supply: 'on_supply' }[t.cohort as string];
      expect([p.account, p.mpxn, p.outcome]).toEqual([p.account, p.mpxn, expected]);
      if (t.cohort === 'refuse') expect(p.detail).toBe('Current supplier not confirmed for this meter point.');
    }

    // No account called on supply while one of its points is not.
    const byAccount = new Map<string, string[]>();
    for (const p of tenant) byAccount.set(p.external_identifier, [...(byAccount.get(p.external_identifier) ?? []), p.status]);
    const onSupply = [...byAccount].filter(([, s]) => s.every((x) => x === 'ON_SUPPLY')).length;
    expect(view.funnel.accounts.on_supply).toBe(onSupply);
    expect(view.funnel.accounts.on_supply + view.funnel.accounts.ended).toBe(accounts.length);

    // One flow a point: the tenant was asked once for each (a second flow while in progress would count 2).
    expect(tenant.filter((p: any) => p.flow_requests !== 1).map((p: any) => key(p.external_identifier, p.mpxn))).toEqual([]);

    // Each account's page in the Temporal UI (its current details, as test/e2e/pipeline/account-step-in-ui.test.ts reads
    // them) names its meter points, as its follow first read them.
    for (const account of accounts) {
      const meta = await e.client.workflow.getHandle(accountWorkflowId(e.config.IMPORT_SUPPLIER_CODE, account, false, runId)).query(workflowMetadataQuery);
      const mine = tenant.filter((p: any) => p.external_identifier === account).map((p: any) => p.mpxn as string);
      expect(meta.currentDetails).toContain(`**Switch: waiting for `);
      expect(mine.filter((m: string) => !meta.currentDetails!.includes(`\`${m}\``))).toEqual([]);
    }

    // The report shows the same funnel: accounts, points by status, the refused ones with their detail.
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'switch-report-'));
    try {
      expect(cli(['report', runId, '--out', out]).code).toBe(0);
      const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
      const table = (id: string) => html.slice(html.indexOf(`id="${id}"`), html.indexOf('</table>', html.indexOf(`id="${id}"`)));
      const rows = (id: string) =>
        [...table(id).matchAll(/<tr><td>(.*?)<\/td>(.*?)<\/tr>/g)].map((m) => [m[1], ...[...m[2].matchAll(/<td>(.*?)<\/td>/g)].map((c) => c[1])]);
      expect(Object.fromEntries(rows('supply-by-status').map(([status, n]) => [status, Number(n)]))).toEqual(view.funnel.byStatus);
      expect(html).toContain(`<b>${onSupply}</b>accounts on supply`);
      const refused = view.meterPoints.filter((p: any) => ['objected', 'rejected', 'flow_refused'].includes(p.outcome));
      expect(refused.length).toBeGreaterThan(0);
      expect(rows('supply-refused').map((r) => `${r[0]}/${r[1].replace(/<\/?code>/g, '')}/${r[3]}/${r[5]}`)).toEqual(
        refused.map((p: any) => `${p.account}/${p.mpxn}/${p.outcome}/${p.detail ?? ''}`),
      );
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }, 240_000);
});
