import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { awaitDelta, reconcileRun, reconciliationLine, startDelta } from '../../../cli/post-import';
import { generateChangesForRun } from '../../../harness/cli/post-import-changes';
import { loadReportData } from '../../../cli/report/data';
import { renderReportHtml } from '../../../cli/report/html';
import { createLedger } from '../../../ledger';
import { createReconciliationLedger } from '../../../ledger/reconciliation';
import { reportCsvRows } from '../../../ledger/report-csv';
import { isAltered } from '../../../harness/sandbox/post-import/account-record';
import type { GeneratedChanges } from '../../../harness/synthetic/generate-changes';
import { itemKey } from '../../../schemas/post-import';
import { accountDeltaWorkflowId, deltaRunWorkflowId } from '../../../domain/workflow-ids';
import { deltaRunInputSchema } from '../../../domain/post-import-inputs';
import { accountsFile, attempts, connectE2E, groundTruth, runToEnd, sandbox, seedAccounts, ownWorkers, uniqueId, type E2E } from '../helpers';

let e: E2E;
const workers = ownWorkers(() => e);
const startWorker = workers.start;
beforeAll(async () => {
  e = await connectE2E();
});
afterEach(async () => {
  await sandbox(e, 'PUT', '/admin/faults', { accountAlterRate: 0, accountOmitFields: [], postImportErrorRate: 0, latencyMs: 0, latencyJitterMs: 0 });
});
afterAll(async () => {
  workers.stopAll();
  await e?.close();
});

interface TruthItem {
  external_identifier: string;
  resource_type: string;
  source_key: string;
  created_count: number;
  request_count: number;
}
const KIND_OF: Record<string, string> = { NOTE: 'note', TRANSACTION: 'transaction', STATEMENT: 'statement', PAYMENT_INSTRUCTION: 'payment_instruction' };

async function platformItems(accounts: string[]): Promise<TruthItem[]> {
  const gt = await sandbox(e, 'GET', `/admin/ground-truth/post-import?supplier=${encodeURIComponent(e.config.IMPORT_SUPPLIER_CODE)}`);
  const set = new Set(accounts);
  return (gt.items as TruthItem[]).filter((i) => set.has(i.external_identifier));
}

/** Every generated change is on the platform exactly once, and nothing else is. */
function expectExactlyOnce(items: TruthItem[], g: GeneratedChanges) {
  const want = g.changes.map((c) => `${c.external_account_number}|${c.change.kind}|${itemKey(c.change)}`).sort();
  const created = items
    .flatMap((i) => Array.from({ length: i.created_count }, () => `${i.external_identifier}|${KIND_OF[i.resource_type]}|${i.source_key}`))
    .sort();
  expect(created).toEqual(want);
  // And per account and kind, the generator's own counts.
  const counts: Record<string, Record<string, number>> = {};
  for (const i of items)
    (counts[i.external_identifier] ??= {})[KIND_OF[i.resource_type]] =
      ((counts[i.external_identifier] ??= {})[KIND_OF[i.resource_type]] ?? 0) + i.created_count;
  expect(counts).toEqual(g.truth);
}

async function migrate(n: number, seed: number, prefix: string) {
  const truth = await seedAccounts(e, { accounts: n, seed, defectRate: 0, accountNumberPrefix: `${uniqueId(prefix)}-` });
  const accounts = truth.map((t) => t.external_account_number);
  const runId = uniqueId(`run-${prefix.toLowerCase()}-`);
  const result = await runToEnd(e, {
    runId,
    supplierCode: e.config.IMPORT_SUPPLIER_CODE,
    selection: { kind: 'list', path: accountsFile(e, runId, accounts) },
    concurrency: 20,
  });
  return { runId, accounts, result };
}

describe('after creation: reconciliation and changes carried over', () => {
  it('50 accounts with changes after extraction: every change lands exactly once, a second delta sends nothing, failures retry alone', async () => {
    const { runId, accounts, result } = await migrate(50, 1501, 'PI');
    expect(result.totals).toMatchObject({ completed: 50, failed: 0 });
    // Every account was read back and matched what was sent: the REST record's properties and the
    // GraphQL account's balances, customers and billing details; nothing unverified.
    const clean = await createReconciliationLedger(e.pool).summary(runId);
    expect(clean).toMatchObject({ checked: 50, matched: 50, differing: 0, missing: 0, unverified: 0, byField: {}, unverifiedByField: {} });
    for (const f of ['balance', 'users.*.givenName', 'users.*.familyName'])
      expect(clean.fields.find((x) => x.field === f)).toEqual({ field: f, matched: 50, differing: 0, unverified: 0 });
    expect(clean.balances).toMatchObject({ accounts: 50, differencePence: '0' });
    expect(clean.balances.sourcePence).toBe(clean.balances.platformPence);
    expect(clean.fields.find((f) => f.field === 'properties.*.electricity_meter_points.*.agreements.*.tariff_code')).toMatchObject({
      differing: 0,
      unverified: 0,
    });
    expect(clean.fields.find((f) => f.field === 'properties.*.electricity_meter_points.*.agreements.*.tariff_code')?.matched).toBeGreaterThan(0);

    const g = await generateChangesForRun(e.pool, { runId, source: { kind: 'postgres' }, share: 0.6, seed: 11, documentsDir: e.config.SOURCE_DOCUMENTS_DIR });
    expect(g.changes.length).toBeGreaterThan(30);
    expect(new Set(g.changes.map((c) => c.change.kind)).size).toBe(4);

    const first = await startDelta(e.client, e.config, {
      runId,
      supplierCode: e.config.IMPORT_SUPPLIER_CODE,
      source: { kind: 'postgres' },
      accounts: 'completed',
    });
    const r1 = await awaitDelta(e.client, first.deltaId);
    expect(r1).toMatchObject({ accounts: 50, items: g.changes.length, completed: g.changes.length, failed: 0 });
    const after1 = await platformItems(accounts);
    expectExactlyOnce(after1, g);
    const sources = await e.pool.query(`select outcome_source, count(*)::int as n from migrate.post_import_items where run_id = $1 group by 1`, [runId]);
    expect(sources.rows.find((x) => x.outcome_source === 'event')?.n).toBeGreaterThan(0);

    // A second delta finds every item completed in the ledger: it sends nothing at all.
    const r2 = await awaitDelta(
      e.client,
      (await startDelta(e.client, e.config, { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, source: { kind: 'postgres' }, accounts: 'completed' }))
        .deltaId,
    );
    expect(r2).toMatchObject({ accounts: 50, items: 0, failed: 0 });
    expect(await platformItems(accounts)).toEqual(after1);

    // Another day of changes, refused by the platform after acceptance: post_import_failed, the accounts untouched.
    const g2 = await generateChangesForRun(e.pool, { runId, source: { kind: 'postgres' }, share: 0.2, seed: 12, documentsDir: e.config.SOURCE_DOCUMENTS_DIR });
    await sandbox(e, 'PUT', '/admin/faults', { postImportErrorRate: 1 });
    const r3 = await awaitDelta(
      e.client,
      (await startDelta(e.client, e.config, { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, source: { kind: 'postgres' }, accounts: 'completed' }))
        .deltaId,
    );
    const hasInstruction = new Set(g.changes.filter((c) => c.change.kind === 'payment_instruction').map((c) => c.external_account_number));
    const conflicting = g2.changes.filter((c) => c.change.kind === 'payment_instruction' && hasInstruction.has(c.external_account_number));
    expect(r3.failed).toBe(g2.changes.length);
    expect(r3.failedByCode).toEqual({
      post_import_forced_error: g2.changes.length - conflicting.length,
      ...(conflicting.length ? { payment_instruction_already_active: conflicting.length } : {}),
    });
    const failed = await e.pool.query(
      `select kind, error_code, error_attr from migrate.post_import_items where run_id = $1 and status = 'post_import_failed'`,
      [runId],
    );
    expect(failed.rowCount).toBe(g2.changes.length);
    for (const row of failed.rows)
      if (row.error_code === 'post_import_forced_error')
        expect(row.error_attr).toBe(
          { note: 'notes.0', transaction: 'transactions.0', statement: 'statements.0', payment_instruction: 'non_field_errors' }[row.kind as string],
        );
    const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    for (const a of accounts) expect(platform.get(a)).toMatchObject({ created_count: 1, schedule_accepted_count: 1 });

    // rerun-failed --stage post-import: only those items, now accepted — except a second payment
    // instruction for an account that has one (the platform keeps one active instruction).
    await sandbox(e, 'PUT', '/admin/faults', { postImportErrorRate: 0 });
    const r4 = await awaitDelta(
      e.client,
      (await startDelta(e.client, e.config, { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, source: { kind: 'postgres' }, accounts: 'failed_items' }))
        .deltaId,
    );
    expect(r4).toMatchObject({ items: g2.changes.length, completed: g2.changes.length - conflicting.length, failed: conflicting.length });
    if (conflicting.length) expect(r4.failedByCode).toEqual({ payment_instruction_already_active: conflicting.length });
    const landed = [...g.changes, ...g2.changes.filter((c) => !conflicting.includes(c))];
    expectExactlyOnce(
      (await platformItems(accounts)).filter((i) => i.created_count > 0),
      { changes: landed, documents: [], truth: truthOf(landed) },
    );
  });

  it('a run that carries changes over reads each account back before the carry-over and records differences the same way', async () => {
    await sandbox(e, 'PUT', '/admin/faults', { accountAlterRate: 0.5, accountAlterField: 'properties.0.address_line_1' });
    const truth = await seedAccounts(e, { accounts: 12, seed: 1503, defectRate: 0, accountNumberPrefix: `${uniqueId('CO')}-` });
    const accounts = truth.map((t) => t.external_account_number);
    const runId = uniqueId('run-co-');
    const result = await runToEnd(e, {
      runId,
      supplierCode: e.config.IMPORT_SUPPLIER_CODE,
      selection: { kind: 'list', path: accountsFile(e, runId, accounts) },
      concurrency: 6,
      carryOverChanges: true,
    });
    const rows = [...(await attempts(e, runId)).values()];
    const differing = rows.filter((r) => r.outcome === 'completed_with_differences');
    expect(differing.map((r) => r.external_account_number).sort()).toEqual(await alteredBySandbox(accounts, 0.5));
    expect(rows.filter((r) => r.outcome === 'completed').length).toBe(12 - differing.length);
    for (const r of differing) expect({ stage: r.stage, attr: r.error_attr }).toEqual({ stage: 'reconcile', attr: 'properties.*.address_line_1' });
    expect(result.totals).toMatchObject({ completed: 12, failed: 0, completedWithDifferences: differing.length });
    expect(await createReconciliationLedger(e.pool).summary(runId)).toMatchObject({ checked: 12, matched: 12 - differing.length, differing: differing.length });
    // The carry-over ran for every account (nothing changed since extraction, so it sent nothing) and
    // created nothing twice.
    for (const a of accounts) {
      const delta = await e.client.workflow.getHandle(accountDeltaWorkflowId(e.config.IMPORT_SUPPLIER_CODE, a, runId)).describe();
      expect(delta.status.name).toBe('COMPLETED');
    }
    expect(await platformItems(accounts)).toEqual([]);
    const gt = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    for (const a of accounts) expect(gt.get(a)?.created_count).toBe(1);
  });

  it('a tariff code the tenant changed shows in the report at its agreement and nothing else; a record without a section is unverified; run reconcile re-checks and changes nothing on the platform', async () => {
    const TARIFF = 'properties.0.electricity_meter_points.0.agreements.0.tariff_code';
    await sandbox(e, 'PUT', '/admin/faults', { accountAlterRate: 0.4, accountAlterField: TARIFF });
    const { runId, accounts } = await migrate(20, 1502, 'RC');
    // The sandbox alters the accounts it picks whose first address has an electricity meter point.
    const ledger = createLedger(e.pool);
    const withElectricity = new Set<string>();
    let anyElectricity = 0;
    let anyGas = 0;
    const electric = (address: any) => address.meter_points.some((m: any) => m.supply_type === 'ELECTRICITY');
    const gas = (address: any) => address.meter_points.some((m: any) => m.supply_type === 'GAS');
    for (const a of accounts) {
      const { request: sent } = await ledger.loadPayload<any>({ runId, externalAccountNumber: a, supplierCode: e.config.IMPORT_SUPPLIER_CODE, dryRun: false });
      if (electric(sent.supply_addresses[0])) withElectricity.add(a);
      if (sent.supply_addresses.some(electric)) anyElectricity++;
      if (sent.supply_addresses.some(gas)) anyGas++;
    }
    const expected = (await alteredBySandbox(accounts, 0.4)).filter((a) => withElectricity.has(a));
    const rows = [...(await attempts(e, runId)).values()];
    const differing = rows.filter((r) => r.outcome === 'completed_with_differences');
    expect(differing.map((r) => r.external_account_number).sort()).toEqual(expected);
    expect(rows.filter((r) => r.outcome === 'completed').length).toBe(20 - differing.length);
    for (const r of differing)
      expect({ stage: r.stage, attr: r.error_attr }).toEqual({ stage: 'reconcile', attr: 'properties.*.electricity_meter_points.*.agreements.*.tariff_code' });

    const data = await loadReportData(e.pool, runId, { temporalUiUrl: 'http://ui', namespace: 'default' });
    const rec = data!.afterImport!.reconciliation;
    expect(rec).toMatchObject({ checked: 20, matched: 20 - differing.length, differing: differing.length });
    expect(rec.byField).toEqual([{ label: 'properties.*.electricity_meter_points.*.agreements.*.tariff_code', count: differing.length }]);
    expect(rec.differences.map((d) => [d.externalAccountNumber, d.path])).toEqual(expected.map((a) => [a, TARIFF]));
    for (const d of rec.differences) expect(d.found).toBe(`${String(d.expected)}-ALTERED`);
    expect(rec.fields.find((f) => f.field === 'properties.*.electricity_meter_points.*.agreements.*.tariff_code')).toEqual({
      field: 'properties.*.electricity_meter_points.*.agreements.*.tariff_code',
      matched: anyElectricity - differing.length,
      differing: differing.length,
      unverified: 0,
    });
    expect(data!.totals.completed).toBe(20);
    const csv: string[][] = [];
    for await (const row of reportCsvRows(e.pool, runId, 7)) csv.push(row);
    expect(csv.filter((r) => r[3] === 'reconciliation_difference').map((r) => [r[0], r[4]])).toEqual(expected.map((a) => [a, TARIFF]));
    // Balances and customers are read back through GraphQL: no account has a field left unverified.
    const unverifiedRows = csv.filter((r) => r[3] === 'reconciliation_unverified');
    expect(unverifiedRows).toEqual([]);
    expect(rec.fields.filter((f) => f.unverified > 0)).toEqual([]);
    const html = renderReportHtml(data!);
    expect(html).toContain('<h2>Reconciliation</h2>');
    expect(html).toContain(`checked <b>20</b>, matched <b>${20 - differing.length}</b>, differing <b>${differing.length}</b>, unverified <b>0</b>`);
    expect(html).toContain('<code>properties.*.electricity_meter_points.*.agreements.*.tariff_code</code>');

    // The platform is fixed (fault off) but its record leaves out the gas meter points: a re-check
    // finds every account matching, the gas fields unverified, and creates nothing.
    const before = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    await sandbox(e, 'PUT', '/admin/faults', { accountAlterRate: 0, accountOmitFields: ['properties.*.gas_meter_points'] });
    const summary = await reconcileRun(e.config, e.pool, runId, { concurrency: 4 });
    expect(summary).toMatchObject({ checked: 20, matched: 20, differing: 0, byField: {} });
    expect(summary.unverifiedByField['properties.*.gas_meter_points.*.mprn']).toBeGreaterThan(0);
    expect(summary.fields.filter((f) => f.differing > 0)).toEqual([]);
    // The demo-like summary: only what no record carries stays unverified (here the gas points the
    // fault leaves out); balances and the customers' names are verified on every account.
    expect(anyGas).toBeGreaterThan(0);
    const line = reconciliationLine(summary);
    expect(line).toMatch(
      new RegExp(
        `^Reconciliation: checked 20, matched 20, differing 0, unverified ${anyGas} \\(not in the platform's record: .*properties\\.\\*\\.gas_meter_points\\.\\*\\.mprn ${anyGas}\\)$`,
      ),
    );
    expect(line).not.toMatch(/balance|customers|users/);
    for (const f of ['balance', 'ledgers.*.balance', 'users.*.givenName', 'users.*.familyName'])
      expect(summary.fields.find((x) => x.field === f)).toMatchObject({ differing: 0, unverified: 0 });
    expect(summary.fields.find((x) => x.field === 'users.*.familyName')!.matched).toBe(20);
    const after = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    for (const a of accounts) expect(after.get(a)).toEqual(before.get(a));
  });

  it('a worker killed during the delta creates nothing twice', async () => {
    const { runId, accounts } = await migrate(20, 1503, 'KD');
    const g = await generateChangesForRun(e.pool, { runId, source: { kind: 'postgres' }, share: 1, seed: 21, documentsDir: e.config.SOURCE_DOCUMENTS_DIR });
    const queue = uniqueId('delta-crash-q-');
    await sandbox(e, 'PUT', '/admin/faults', { latencyMs: 150, latencyJitterMs: 100 });
    const first = await startWorker(queue, 'delta-crash-worker-1');
    const deltaId = uniqueId('delta-crash-');
    const handle = await e.client.workflow.start('deltaRunWorkflow', {
      taskQueue: queue,
      workflowId: deltaRunWorkflowId(deltaId),
      args: [deltaRunInputSchema.parse({ deltaId, runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, source: { kind: 'postgres' }, concurrency: 10 })],
    });
    for (;;) {
      const r = await e.pool.query(`select count(*)::int as n from migrate.post_import_items where run_id = $1 and status = 'completed'`, [runId]);
      if (r.rows[0].n >= 5) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    first.kill('SIGKILL');
    await new Promise((res) => first.once('exit', res));
    await startWorker(queue, 'delta-crash-worker-2');
    const result = await handle.result();
    expect(result).toMatchObject({ accounts: 20, items: g.changes.length, completed: g.changes.length, failed: 0 });
    const items = await platformItems(accounts);
    expect(items.filter((i) => i.created_count > 1)).toEqual([]);
    expectExactlyOnce(items, g);
  });
});

/**
 * The accounts whose record the sandbox alters at `rate`: its own choice (a hash of the platform
 * account number, `sandbox/post-import/account-record.ts`), so the test expects exactly those.
 */
async function alteredBySandbox(accounts: string[], rate: number): Promise<string[]> {
  const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
  return accounts.filter((a) => isAltered(platform.get(a)!.account_number!, rate)).sort();
}

function truthOf(changes: GeneratedChanges['changes']): GeneratedChanges['truth'] {
  const out: GeneratedChanges['truth'] = {};
  for (const c of changes) {
    const t = (out[c.external_account_number] ??= {});
    t[c.change.kind] = (t[c.change.kind] ?? 0) + 1;
  }
  return out;
}
