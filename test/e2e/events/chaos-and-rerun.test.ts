import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountsFile,
  attempts,
  connectE2E,
  expectOutcomesMatchGroundTruth,
  expectSummaryExact,
  runToEnd,
  sandbox,
  seedAccounts,
  uniqueId,
  type E2E,
} from '../helpers';
import { loadReportData } from '../../../ledger/report-data';

let e: E2E;
beforeAll(async () => {
  e = await connectE2E();
});
afterAll(async () => {
  await sandbox(e, 'PUT', '/admin/faults', { eventDropRate: 0, eventDuplicateRate: 0, eventReorder: false }).catch(() => {});
  await e?.close();
});

describe('events dropped, duplicated and reordered', () => {
  it('every account still ends correct, nothing is created twice, the inbox holds every delivered event; a rerun of fixed accounts touches no other', async () => {
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const prefix = uniqueId('EV');
    const truth = await seedAccounts(e, { accounts: 300, seed: 31, defectRate: 0.2, accountNumberPrefix: `${prefix}-` });
    const accounts = truth.map((t) => t.external_account_number);
    await sandbox(e, 'PUT', '/admin/faults', { eventDropRate: 0.2, eventDuplicateRate: 0.2, eventReorder: true });

    const runId = uniqueId('run-chaos-');
    const result = await runToEnd(e, {
      runId,
      supplierCode: supplier,
      selection: { kind: 'list', path: accountsFile(e, runId, accounts) },
      concurrency: 50,
      timings: { eventWaitSeconds: 10, pollMaxSeconds: 3600, supplierRecheckSeconds: 30 },
    });
    await sandbox(e, 'PUT', '/admin/faults', { eventDropRate: 0, eventDuplicateRate: 0, eventReorder: false });
    expect(result.totals.completed + result.totals.failed).toBe(300);
    await expectOutcomesMatchGroundTruth(e, runId, supplier, truth);

    // Outcomes came from both paths: events where delivered, status polling where dropped.
    expect(result.totals.outcomeSources.event ?? 0).toBeGreaterThan(0);
    expect(result.totals.outcomeSources.poll ?? 0).toBeGreaterThan(0);

    // Every event the platform delivered for these accounts is in the inbox, once.
    const ours = new Set(accounts);
    // Copies delivered per event: one per target per copy (a duplicated event goes out twice).
    const copies = new Map<string, { copies: number; duplicated: boolean }>();
    let after = 0;
    for (;;) {
      const page = await sandbox(e, 'GET', `/admin/events?limit=500&after=${after}`);
      for (const ev of page.events) {
        if (ev.dropped || !ours.has(ev.external_identifier) || ev.delivered_to.length === 0) continue;
        copies.set(ev.id, { copies: ev.delivered_to.length, duplicated: ev.duplicated });
      }
      if (page.events.length < 500) break;
      after = page.last_seq;
    }
    expect(copies.size).toBeGreaterThan(0);
    expect([...copies.values()].some((c) => c.duplicated)).toBe(true);
    const inbox = await e.pool.query<{ event_id: string; deliveries: number }>(`select event_id, deliveries from migrate.inbox where event_id = any($1)`, [
      [...copies.keys()],
    ]);
    // One inbox row per event, however many copies arrived; every copy counted on that row.
    expect(inbox.rows.map((r) => r.event_id).sort()).toEqual([...copies.keys()].sort());
    for (const r of inbox.rows)
      expect({ id: r.event_id, deliveries: r.deliveries >= copies.get(r.event_id)!.copies }).toEqual({ id: r.event_id, deliveries: true });
    expect(inbox.rows.filter((r) => copies.get(r.event_id)!.duplicated).every((r) => r.deliveries >= 2)).toBe(true);

    // A forged delivery (a wrong API key, as the stack's webhook expects an EventBridge connection's
    // header) is refused and recorded as refused, not as an event.
    const forged = JSON.stringify({
      version: '0',
      id: uniqueId('forged-'),
      'detail-type': 'data_import.import_process.complete',
      detail: { resource_type: 'ACCOUNT', external_identifier: accounts[0], identifier: 'A-FORGED01' },
    });
    const res = await fetch(`http://127.0.0.1:${e.config.EVENTS_PORT}/events/eventbridge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [e.config.EVENTS_WEBHOOK_API_KEY_HEADER]: `forged-${'0'.repeat(32)}` },
      body: forged,
    });
    expect(res.status).toBe(401);
    // Counted, not stored one row each: the receiver adds its counts to the ledger every few seconds.
    const counted = async () =>
      Number((await e.pool.query(`select coalesce(sum(count), 0) as n from migrate.rejection_counts where reason = 'api_key_mismatch'`)).rows[0].n);
    const deadline = Date.now() + 30_000;
    while ((await counted()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    expect(await counted()).toBeGreaterThanOrEqual(1);
    expect((await e.pool.query(`select 1 from migrate.inbox where identifier = 'A-FORGED01'`)).rowCount).toBe(0);

    // The source-data team fixes the bad phone numbers; the rerun takes exactly those accounts.
    const badPhones = truth.filter((t) => t.expected.outcome === 'failed' && t.expected.code === 'invalid_phone_number').map((t) => t.external_account_number);
    expect(badPhones.length).toBeGreaterThan(0);
    await e.pool.query(
      `update legacy.contacts c set mobile_phone = '07123 456789'
         from legacy.accounts a where a.account_id = c.account_id and a.account_number = any($1)`,
      [badPhones],
    );
    const rerunId = uniqueId('run-rerun-');
    const rerun = await runToEnd(e, { runId: rerunId, supplierCode: supplier, selection: { kind: 'failed_of_run', runId, codes: ['invalid_phone_number'] } });
    expect(rerun.totals.completed).toBe(badPhones.length);
    const rerunRows = await attempts(e, rerunId);
    expect([...rerunRows.keys()].sort()).toEqual([...badPhones].sort());
    expect([...rerunRows.values()].every((r) => r.outcome === 'completed' && r.platform_account_number?.startsWith('A-'))).toBe(true);
    const runRow = await e.pool.query(`select parent_run_id from migrate.runs where run_id = $1`, [rerunId]);
    expect(runRow.rows[0].parent_run_id).toBe(runId);

    // What `run status` and `report` read (the ledger's per-run counters) is a full count of both runs' attempts.
    await expectSummaryExact(e.pool, runId);
    await expectSummaryExact(e.pool, rerunId);
    const report = await loadReportData(e.pool, runId, { temporalUiUrl: 'ui', namespace: 'ns' });
    expect(report?.totals).toEqual({ accounts: 300, completed: result.totals.completed, failed: result.totals.failed, notAttempted: 0, inProgress: 0 });
    const byCode = Object.entries(result.totals.failedByCode).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    expect(report?.failuresByCode.map((c) => [c.label, c.count])).toEqual(byCode);
  });
});
