import { createHash } from 'node:crypto';
import { openJson, SEALED } from '../../../ledger/sealing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ingestEvent } from '../../../events/ingest';
import { rematchPending } from '../../../events/router';
import { inboxSummary, outcomeSources } from '../../../ledger';
import type { EventsDeps } from '../../../events/types';
import { envelope, fakeSignaller, inboxRow, insertAttempt, insertRun, quietLogger, startTestDb, uniq } from './helpers';

const COMPLETE = 'data_import.import_process.complete';
const ERROR = 'data_import.import_process.error';
const DRY_COMPLETE = 'data_import.import_process.dry_run_complete';
const CANCELLED = 'data_import.import_process.cancelled';

let db: Awaited<ReturnType<typeof startTestDb>>;
let fake: ReturnType<typeof fakeSignaller>;
let deps: EventsDeps;

beforeAll(async () => {
  db = await startTestDb('ingest');
}, 120_000);
afterAll(async () => {
  await db?.stop();
}, 60_000);
beforeEach(() => {
  fake = fakeSignaller();
  deps = { pool: db.pool, ...fake.deliver, logger: quietLogger() };
});

const complete = (ext: string, identifier: string, id?: string) => envelope(COMPLETE, { resource_type: 'account', external_identifier: ext, identifier }, id);

async function scheduledAttempt(
  opts: { supplierCode?: string; dryRun?: boolean; scheduled?: boolean; outcome?: string; outcomeSource?: string; ext?: string; runId?: string } = {},
) {
  const runId = opts.runId ?? uniq('run');
  const ext = opts.ext ?? uniq('ACC');
  await insertRun(db.pool, runId, { supplierCode: opts.supplierCode, dryRun: opts.dryRun });
  const workflowId = `wf-${runId}-${ext}`;
  await insertAttempt(db.pool, { runId, ext, workflowId, ...opts });
  return { runId, ext, workflowId };
}

describe('ingestEvent: recording', () => {
  it('routes a completion to the one waiting workflow and marks the row matched', async () => {
    const a = await scheduledAttempt();
    const id = uniq('evt');
    const r = await ingestEvent(deps, JSON.stringify(complete(a.ext, 'A-1234ABCD', id)), 'test');
    expect(r).toEqual({ status: 'recorded', eventId: id, matchStatus: 'matched', workflowId: a.workflowId });
    expect(fake.calls).toEqual([{ workflowId: a.workflowId, signal: { eventId: id, type: COMPLETE, identifier: 'A-1234ABCD' } }]);
    const row = await inboxRow(db.pool, id);
    expect(row).toMatchObject({
      match_status: 'matched',
      matched_workflow_id: a.workflowId,
      matched_run_id: a.runId,
      event_type: COMPLETE,
      payload_version: 'v1',
      external_identifier: a.ext,
      identifier: 'A-1234ABCD',
      received_via: 'test',
      deliveries: 1,
    });
    // The delivery is kept sealed (ledger/sealing.ts) and opens through the ledger.
    expect(row.raw).toMatch(/^\$sealed:v1:/);
    expect(openJson<{ detail: { identifier: string } }>(db.pool, SEALED.inboxRaw, row.raw).detail.identifier).toBe('A-1234ABCD');
  });

  it('records a redelivery of the same envelope id once, with deliveries = 2', async () => {
    const a = await scheduledAttempt();
    const id = uniq('evt');
    const body = JSON.stringify(complete(a.ext, 'A-0001', id));
    expect((await ingestEvent(deps, body, 'webhook')).status).toBe('recorded');
    expect(await ingestEvent(deps, body, 'sqs')).toEqual({ status: 'duplicate', eventId: id, deliveries: 2 });
    const rows = await db.pool.query(`select deliveries, received_via from migrate.inbox where external_identifier = $1`, [a.ext]);
    expect(rows.rows).toEqual([{ deliveries: 2, received_via: 'webhook' }]);
    expect(fake.calls).toHaveLength(1);
  });

  it('dedupes the same event under a different id by type + external_identifier + identifier', async () => {
    const a = await scheduledAttempt();
    const first = uniq('evt');
    await ingestEvent(deps, complete(a.ext, 'A-0002', first), 'test');
    const r = await ingestEvent(deps, complete(a.ext, 'A-0002', uniq('evt')), 'test');
    expect(r).toEqual({ status: 'duplicate', eventId: first, deliveries: 2 });
    const n = await db.pool.query(`select count(*)::int as n from migrate.inbox where external_identifier = $1`, [a.ext]);
    expect(n.rows[0].n).toBe(1);
  });

  it('keeps two different outcomes for the same account (identifier / error_code differ)', async () => {
    const ext = uniq('ACC');
    await ingestEvent(deps, envelope(ERROR, { resource_type: 'account', external_identifier: ext, error_code: 'e1', error_detail: 'x' }, uniq('evt')), 'test');
    await ingestEvent(deps, envelope(ERROR, { resource_type: 'account', external_identifier: ext, error_code: 'e2', error_detail: 'x' }, uniq('evt')), 'test');
    const n = await db.pool.query(`select error_code from migrate.inbox where external_identifier = $1 order by error_code`, [ext]);
    expect(n.rows.map((r) => r.error_code)).toEqual(['e1', 'e2']);
  });

  it('keeps unknown event types as unknown_type, and data_import events with missing fields too', async () => {
    const foreign = uniq('evt');
    expect(await ingestEvent(deps, envelope('billing.statement.issued', { account_number: 'A-1' }, foreign), 'test')).toEqual({
      status: 'recorded',
      eventId: foreign,
      matchStatus: 'unknown_type',
    });
    expect(await inboxRow(db.pool, foreign)).toMatchObject({
      match_status: 'unknown_type',
      event_type: 'billing.statement.issued',
      note: 'unknown_type: foreign_type',
    });

    const broken = uniq('evt');
    const ext = uniq('ACC');
    await ingestEvent(deps, envelope(COMPLETE, { resource_type: 'account', external_identifier: ext }, broken), 'test');
    expect(await inboxRow(db.pool, broken)).toMatchObject({
      match_status: 'unknown_type',
      event_type: COMPLETE,
      external_identifier: ext,
      note: 'unknown_type: invalid_detail',
    });
    expect(fake.calls).toEqual([]);
  });

  it('gives an envelope without id the sha256 of its body, so a redelivery dedupes', async () => {
    const ext = uniq('ACC');
    const body = JSON.stringify(complete(ext, 'A-0003'));
    const expectedId = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    const r = await ingestEvent(deps, body, 'sqs');
    expect(r).toMatchObject({ status: 'recorded', eventId: expectedId });
    expect(await ingestEvent(deps, body, 'sqs')).toEqual({ status: 'duplicate', eventId: expectedId, deliveries: 2 });
  });

  it('rejects a body that is not JSON: recorded in rejected_deliveries by hash and size, not in the inbox', async () => {
    const body = `{"id": "${uniq('evt')}", not json`;
    const before = await db.pool.query(`select count(*)::int as n from migrate.inbox`);
    expect(await ingestEvent(deps, body, 'sqs')).toEqual({ status: 'rejected', code: 'malformed_json' });
    const after = await db.pool.query(`select count(*)::int as n from migrate.inbox`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
    const rej = await db.pool.query(`select * from migrate.rejected_deliveries where body_sha256 = $1`, [createHash('sha256').update(body).digest('hex')]);
    expect(rej.rows).toHaveLength(1);
    expect(rej.rows[0]).toMatchObject({ received_via: 'sqs', reason: 'malformed_json', body_bytes: Buffer.byteLength(body) });
  });
});

describe('routing', () => {
  it('keeps an event with no attempt as unmatched; rematch signals once the attempt is scheduled', async () => {
    const ext = uniq('ACC');
    const id = uniq('evt');
    expect(await ingestEvent(deps, complete(ext, 'A-0004', id), 'test')).toMatchObject({ matchStatus: 'unmatched' });
    expect(await inboxRow(db.pool, id)).toMatchObject({ match_status: 'unmatched', note: 'unmatched: no attempt for this account' });

    // The attempt row exists but the schedule call is not recorded yet: still unmatched.
    const runId = uniq('run');
    await insertRun(db.pool, runId);
    await insertAttempt(db.pool, { runId, ext, workflowId: `wf-${ext}`, scheduled: false });
    await rematchPending(deps);
    expect(await inboxRow(db.pool, id)).toMatchObject({ match_status: 'unmatched', note: 'unmatched: attempt not scheduled yet' });
    expect(fake.calls).toEqual([]);

    await db.pool.query(`update migrate.account_attempts set scheduled_at = now() where run_id = $1`, [runId]);
    const r = await rematchPending(deps);
    expect(r.matched).toBeGreaterThanOrEqual(1);
    expect(await inboxRow(db.pool, id)).toMatchObject({ match_status: 'matched', matched_workflow_id: `wf-${ext}`, matched_run_id: runId });
    expect(fake.calls).toEqual([{ workflowId: `wf-${ext}`, signal: { eventId: id, type: COMPLETE, identifier: 'A-0004' } }]);
  });

  it('signals nobody when the account is in flight for two suppliers (ambiguous)', async () => {
    const ext = uniq('ACC');
    await scheduledAttempt({ ext, supplierCode: 'SUP-A' });
    await scheduledAttempt({ ext, supplierCode: 'SUP-B' });
    const id = uniq('evt');
    expect(await ingestEvent(deps, complete(ext, 'A-0005', id), 'test')).toMatchObject({ matchStatus: 'ambiguous' });
    const row = await inboxRow(db.pool, id);
    expect(row.match_status).toBe('ambiguous');
    expect(row.matched_workflow_id).toBeNull();
    expect(row.note).toMatch(/SUP-A.*SUP-B|SUP-B.*SUP-A/);
    expect(fake.calls).toEqual([]);
    // Not retried by the rematch timer either.
    await rematchPending(deps);
    expect(fake.calls).toEqual([]);
  });

  it('notes an event whose outcome was already recorded as late, without signalling', async () => {
    const a = await scheduledAttempt({ outcome: 'completed', outcomeSource: 'poll' });
    const id = uniq('evt');
    expect(await ingestEvent(deps, complete(a.ext, 'A-0006', id), 'test')).toMatchObject({ matchStatus: 'late' });
    expect(await inboxRow(db.pool, id)).toMatchObject({
      match_status: 'late',
      matched_run_id: a.runId,
      note: 'late: outcome completed already recorded (poll); ignored',
    });
    expect(fake.calls).toEqual([]);
  });

  it('marks the event late when the workflow is gone, and pending (retried) when Temporal fails', async () => {
    const a = await scheduledAttempt();
    fake.state.failWith = 'workflow_gone';
    const gone = uniq('evt');
    expect(await ingestEvent(deps, complete(a.ext, 'A-0007', gone), 'test')).toMatchObject({ matchStatus: 'late' });
    expect(await inboxRow(db.pool, gone)).toMatchObject({ match_status: 'late', matched_workflow_id: a.workflowId, note: 'late: workflow already closed' });

    const b = await scheduledAttempt();
    fake.state.failWith = 'signal_failed';
    const retry = uniq('evt');
    expect(await ingestEvent(deps, complete(b.ext, 'A-0008', retry), 'test')).toMatchObject({ status: 'recorded', matchStatus: 'pending' });
    fake.state.failWith = undefined;
    await rematchPending(deps);
    expect(await inboxRow(db.pool, retry)).toMatchObject({ match_status: 'matched', matched_workflow_id: b.workflowId });
    expect(fake.calls.map((c) => c.signal.eventId)).toEqual([retry]);
  });

  it("an account's terminal event frees its permit in the tenant's window: signalled, its workflow closed, or Temporal away; others' permits stay", async () => {
    const [a, b, c, d] = [await scheduledAttempt(), await scheduledAttempt(), await scheduledAttempt(), await scheduledAttempt()];
    const tenant = uniq('tenant');
    await db.pool.query(
      `insert into migrate.platform_permits (tenant, holder, fairness_key, priority_key, weight, accepted_at, expires_at)
       select $1, h, '', 3, 1, clock_timestamp(), clock_timestamp() + interval '1 hour' from unnest($2::text[]) as h`,
      [tenant, [a, b, c, d].map((x) => x.workflowId)],
    );
    const held = async () =>
      (await db.pool.query<{ holder: string }>('select holder from migrate.platform_permits where tenant = $1 order by holder', [tenant])).rows.map(
        (r) => r.holder,
      );
    expect(await ingestEvent(deps, complete(a.ext, 'A-0011'), 'test')).toMatchObject({ matchStatus: 'matched' });
    fake.state.failWith = 'workflow_gone';
    expect(await ingestEvent(deps, complete(b.ext, 'A-0014'), 'test')).toMatchObject({ matchStatus: 'late' });
    fake.state.failWith = 'signal_failed';
    expect(await ingestEvent(deps, complete(c.ext, 'A-0012'), 'test')).toMatchObject({ matchStatus: 'pending' });
    fake.state.failWith = undefined;
    // An event for an account nobody runs: nothing is freed.
    expect(await ingestEvent(deps, complete(uniq('ACC'), 'A-0013'), 'test')).toMatchObject({ matchStatus: 'unmatched' });
    expect(await held()).toEqual([d.workflowId]);
  });

  it('routes dry_run_* only to dry-run attempts', async () => {
    const ext = uniq('ACC');
    const real = await scheduledAttempt({ ext, dryRun: false });
    const dry = await scheduledAttempt({ ext, dryRun: true });
    const id = uniq('evt');
    const r = await ingestEvent(deps, envelope(DRY_COMPLETE, { resource_type: 'account', external_identifier: ext }, id), 'test');
    expect(r).toMatchObject({ matchStatus: 'matched', workflowId: dry.workflowId });
    expect(fake.calls.map((c) => c.workflowId)).toEqual([dry.workflowId]);
    expect(fake.calls[0].workflowId).not.toBe(real.workflowId);
  });

  it('routes a cancelled window to whichever attempt (dry run or real) is waiting', async () => {
    const dry = await scheduledAttempt({ dryRun: true });
    const id = uniq('evt');
    const r = await ingestEvent(
      deps,
      envelope(CANCELLED, { resource_type: 'account', external_identifier: dry.ext, expiry_window_end: '2026-01-05T00:00:00Z' }, id),
      'test',
    );
    expect(r).toMatchObject({ matchStatus: 'matched', workflowId: dry.workflowId });
    expect(fake.calls).toEqual([{ workflowId: dry.workflowId, signal: { eventId: id, type: CANCELLED } }]);
  });

  it('routes an identical dry_run_complete of a later dry run to that run, not as a duplicate', async () => {
    const ext = uniq('ACC');
    const first = await scheduledAttempt({ ext, dryRun: true });
    const detail = { resource_type: 'account', external_identifier: ext };
    await ingestEvent(deps, envelope(DRY_COMPLETE, detail, uniq('evt')), 'test');
    await db.pool.query(`update migrate.account_attempts set outcome = 'completed', outcome_source = 'event' where run_id = $1`, [first.runId]);
    // A redelivery under a new id before the next run: still a duplicate.
    expect((await ingestEvent(deps, envelope(DRY_COMPLETE, detail, uniq('evt')), 'test')).status).toBe('duplicate');

    const second = await scheduledAttempt({ ext, dryRun: true });
    const id = uniq('evt');
    expect(await ingestEvent(deps, envelope(DRY_COMPLETE, detail, id), 'test')).toMatchObject({
      status: 'recorded',
      matchStatus: 'matched',
      workflowId: second.workflowId,
    });
  });
});

describe('report', () => {
  it('summarises the inbox of a run and where its outcomes came from', async () => {
    const runId = uniq('run');
    await insertRun(db.pool, runId);
    const done = uniq('ACC');
    const polled = uniq('ACC');
    const waiting = uniq('ACC');
    await insertAttempt(db.pool, { runId, ext: done, workflowId: `wf-${done}`, outcome: 'completed', outcomeSource: 'event' });
    await insertAttempt(db.pool, { runId, ext: polled, workflowId: `wf-${polled}`, outcome: 'failed', outcomeSource: 'poll' });
    await insertAttempt(db.pool, { runId, ext: waiting, workflowId: `wf-${waiting}` });

    await ingestEvent(deps, complete(waiting, 'A-0010', uniq('evt')), 'test');
    const lateId = uniq('evt');
    await ingestEvent(deps, complete(done, 'A-0011', lateId), 'test');
    const strayId = uniq('evt');
    await ingestEvent(deps, complete(uniq('STRAY'), 'A-0012', strayId), 'test');
    const unknownId = uniq('evt');
    await ingestEvent(deps, envelope('something.else', {}, unknownId), 'test');

    const s = await inboxSummary(db.pool, { runId });
    expect(s.byStatus.matched).toBe(1);
    expect(s.byStatus.late).toBe(1);
    expect(s.byStatus.unmatched).toBeGreaterThanOrEqual(1);
    expect(s.unmatched.map((e) => e.eventId)).toContain(strayId);
    expect(s.unknown.map((e) => e.eventId)).toContain(unknownId);
    expect(s.byType).toContainEqual({ eventType: COMPLETE, matchStatus: 'matched', count: 1 });
    expect(s.total).toBe(Object.values(s.byStatus).reduce((a, b) => a + b, 0));

    expect(await outcomeSources(db.pool, runId)).toEqual({ bySource: { event: 1, poll: 1 }, fromEvents: 1, fromPolling: 1, total: 2 });
  });
});
