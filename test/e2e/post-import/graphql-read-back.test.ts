import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { balanceLine, reconcileRun, reconciliationLine } from '../../../cli/post-import';
import { loadReportData } from '../../../cli/report/data';
import { renderReportHtml } from '../../../cli/report/html';
import { createLedger } from '../../../ledger';
import { createReconciliationLedger } from '../../../ledger/reconciliation';
import { pickedByFault } from '../../../harness/sandbox/post-import/graphql-account';
import { accountsFile, attempts, connectE2E, groundTruth, runToEnd, sandbox, seedAccounts, ownWorkers, uniqueId, type E2E } from '../helpers';

let e: E2E;
const workers = ownWorkers(() => e);
beforeAll(async () => {
  e = await connectE2E();
});
afterEach(async () => {
  await sandbox(e, 'PUT', '/admin/faults', { graphqlFlipBalanceRate: 0, graphqlAlterNameRate: 0 });
});
afterAll(async () => {
  workers.stopAll();
  await e?.close();
});

const FLIP = 0.35;
const ALTER = 0.35;

/** Pence of a decimal string of pounds with at most two places (the generator's balances). */
const pence = (v: string | undefined) => (v === undefined ? 0 : Math.round(Number(v) * 100));

describe('read-back through the tenant GraphQL account: balances, customers and billing details', () => {
  it('a tenant that flips some balances and alters some names: exactly those accounts differ, at exactly those fields; run reconcile agrees once it is fixed', async () => {
    await sandbox(e, 'PUT', '/admin/faults', { graphqlFlipBalanceRate: FLIP, graphqlAlterNameRate: ALTER });
    const truth = await seedAccounts(e, { accounts: 24, seed: 4001, defectRate: 0, accountNumberPrefix: `${uniqueId('GQ')}-` });
    const accounts = truth.map((t) => t.external_account_number);
    const runId = uniqueId('run-gq-');
    const result = await runToEnd(e, {
      runId,
      supplierCode: e.config.IMPORT_SUPPLIER_CODE,
      selection: { kind: 'list', path: accountsFile(e, runId, accounts) },
      concurrency: 12,
    });
    expect(result.totals).toMatchObject({ completed: 24, failed: 0 });

    // What the sandbox does, worked out from its public rule and what was sent.
    const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    const ledger = createLedger(e.pool);
    const expectedFields = new Map<string, string[]>();
    let sentTotal = 0;
    let flippedTotal = 0;
    for (const a of accounts) {
      const number = platform.get(a)!.account_number!;
      const { request } = await ledger.loadPayload<any>({ runId, externalAccountNumber: a, supplierCode: e.config.IMPORT_SUPPLIER_CODE, dryRun: false });
      const sent = request.payload ?? request;
      const balance = pence(sent.transfer_balance);
      sentTotal += balance;
      const fields: string[] = [];
      // A flipped zero is still zero: only accounts with money differ.
      if (pickedByFault('flip_balance_sign', number, FLIP) && balance !== 0) {
        flippedTotal += balance;
        fields.push('balance', 'ledgers.*.balance');
      }
      if (pickedByFault('alter_customer_name', number, ALTER)) fields.push('users.*.familyName');
      if (fields.length) expectedFields.set(a, fields.sort());
    }
    // The seed picks both kinds and leaves clean accounts.
    expect([...expectedFields.values()].some((f) => f.includes('balance'))).toBe(true);
    expect([...expectedFields.values()].some((f) => f.includes('users.*.familyName'))).toBe(true);
    expect(expectedFields.size).toBeLessThan(24);

    const rows = [...(await attempts(e, runId)).values()];
    const differing = rows.filter((r) => r.outcome === 'completed_with_differences').map((r) => r.external_account_number);
    expect(differing.sort()).toEqual([...expectedFields.keys()].sort());
    expect(rows.filter((r) => r.outcome === 'completed').length).toBe(24 - expectedFields.size);

    const recon = createReconciliationLedger(e.pool);
    const found = new Map<string, Set<string>>();
    for (const d of await recon.differences(runId))
      (found.get(d.externalAccountNumber) ?? found.set(d.externalAccountNumber, new Set()).get(d.externalAccountNumber)!).add(d.field);
    expect(Object.fromEntries([...found].map(([a, f]) => [a, [...f].sort()]))).toEqual(Object.fromEntries(expectedFields));
    // Personal data leaves the activity masked: a name difference shows its first letter only.
    for (const d of await recon.differences(runId))
      if (d.field === 'users.*.familyName') {
        expect(String(d.expected)).toMatch(/^.\**$/);
        expect(String(d.found)).toMatch(/^.\**$/);
        expect(String(d.found).length).toBe(String(d.expected).length + '-ALTERED'.length);
      }

    const summary = await recon.summary(runId);
    expect(summary).toMatchObject({
      checked: 24,
      matched: 24 - expectedFields.size,
      differing: expectedFields.size,
      missing: 0,
      unverified: 0,
      unverifiedByField: {},
    });
    expect(summary.balances).toEqual({
      accounts: 24,
      sourcePence: String(sentTotal),
      platformPence: String(sentTotal - 2 * flippedTotal),
      differencePence: String(-2 * flippedTotal),
    });
    const line = reconciliationLine(summary);
    expect(line).toMatch(
      new RegExp(`^Reconciliation: checked 24, matched ${24 - expectedFields.size}, differing ${expectedFields.size}, unverified 0 \\(differing by field: `),
    );
    expect(line).not.toContain("not in the platform's record");
    expect(balanceLine(summary)).toBe(
      `Balances (pence, 24 accounts read back): source ${sentTotal}, platform ${sentTotal - 2 * flippedTotal}, difference ${-2 * flippedTotal}`,
    );

    // The checkpoint and the report carry the same evidence.
    const cp = await recon.checkpoint(runId, 5);
    expect(cp.counts).toEqual({ inSource: 24, sent: 24, created: 24, reconciled: 24, differing: expectedFields.size });
    expect(cp.reviewSample).toHaveLength(5);
    for (const s of cp.reviewSample) expect(accounts).toContain(s.externalAccountNumber);
    expect((await recon.checkpoint(runId, 5)).reviewSample).toEqual(cp.reviewSample);
    const data = await loadReportData(e.pool, runId, { temporalUiUrl: 'http://ui', namespace: 'default' });
    expect(data!.afterImport!.reconciliation.balances).toEqual(summary.balances);
    const html = renderReportHtml(data!);
    expect(html).toContain(`source <b>${sentTotal}</b>, platform <b>${sentTotal - 2 * flippedTotal}</b>, difference <b>${-2 * flippedTotal}</b>`);
    expect(html).toContain('<table id="review-sample">');
    expect(html).toContain('href="http://ui/namespaces/default/workflows/account-import%2F');

    // The tenant fixed: run reconcile re-reads every account (GETs and queries only) and finds none differing.
    await sandbox(e, 'PUT', '/admin/faults', { graphqlFlipBalanceRate: 0, graphqlAlterNameRate: 0 });
    const again = await reconcileRun(e.config, e.pool, runId, { concurrency: 4 });
    expect(again).toMatchObject({ checked: 24, matched: 24, differing: 0, unverified: 0, byField: {} });
    expect(again.balances).toEqual({ accounts: 24, sourcePence: String(sentTotal), platformPence: String(sentTotal), differencePence: '0' });
    expect(reconciliationLine(again)).toBe('Reconciliation: checked 24, matched 24, differing 0, unverified 0');
  });

  it('the GraphQL endpoint refuses a query without the token, and one with a field the tenant lacks', async () => {
    const url = `${e.sandboxUrl}/v1/graphql/`;
    const post = async (body: unknown, headers: Record<string, string> = {}) =>
      (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).json() as Promise<any>;
    const noToken = await post({ query: 'query { account(accountNumber: "A-1") { number } }' });
    expect(noToken.errors[0].extensions.errorCode).toBe('KT-CT-1112');
    const badToken = await post({ query: 'query { account(accountNumber: "A-1") { number } }' }, { authorization: 'not-a-token' });
    expect(badToken.errors[0].extensions.errorCode).toBe('KT-CT-1111');
    const issued = await post({
      query: 'mutation T($input: ObtainJSONWebTokenInput!) { obtainKrakenToken(input: $input) { token } }',
      variables: { input: { organizationSecretKey: e.config.PLATFORM_ORGANIZATION_SECRET_KEY } },
    });
    const token = issued.data.obtainKrakenToken.token as string;
    const unknown = await post({ query: 'query { account(accountNumber: "A-1") { number overdraft } }' }, { authorization: token });
    expect(JSON.stringify(unknown)).toContain('Cannot query field \\"overdraft\\" on type \\"AccountType\\".');
    const none = await post({ query: 'query { account(accountNumber: "NO-SUCH") { number } }' }, { authorization: token });
    expect(none).toEqual({ data: { account: null } });
  });
});
