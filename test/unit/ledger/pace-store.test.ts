import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PACE } from '../../../domain/platform-pace';
import { createPaceStore, type PermitRequest } from '../../../ledger/platform-pace';
import { startTestDb } from '../events/helpers';

let db: Awaited<ReturnType<typeof startTestDb>>;
const T = 'https://tenant.example/v2/';
const req = (holder: string): PermitRequest => ({ holder, priorityKey: 3, fairnessKey: 'OCTO', weight: 1 });
// A window of one account in processing.
const store = () => createPaceStore(db.pool, { ...DEFAULT_PACE, initialWindow: 1, maxWindow: 1 }, { leaseMs: 60 * 60_000 });
const permits = async () =>
  (
    await db.pool.query<{ holder: string; accepted: boolean }>(
      'select holder, accepted_at is not null as accepted from migrate.platform_permits order by holder',
    )
  ).rows;

beforeAll(async () => {
  db = await startTestDb('pace-store');
}, 120_000);
afterAll(async () => {
  await db?.stop();
});
beforeEach(async () => {
  await db.pool.query('delete from migrate.platform_permit_waiters; delete from migrate.platform_permits; delete from migrate.platform_pace');
});

describe("the tenant's permits in the ledger", () => {
  it('an account asking again while it holds a permit (its attempt ended: a worker killed, a timeout) gets it back, even in a full window', async () => {
    const s = store();
    expect([...(await s.grant(T, [req('a')])).keys()]).toEqual(['a']);
    await s.answered(T, 'a', { kind: 'accepted', latencyMs: 10, full: true }, true);
    // Another account waits: the window of one is full.
    expect((await s.grant(T, [req('b')])).size).toBe(0);
    // Account a's attempt died; its retry asks again: its own permit, not a wait on itself.
    expect([...(await s.grant(T, [req('a'), req('b')])).keys()]).toEqual(['a']);
    expect(await permits()).toEqual([{ holder: 'a', accepted: false }]);
    expect((await s.grant(T, [req('b')])).size).toBe(0);
  });

  it('long-held permits are listed oldest first; a release frees only the grant that was seen', async () => {
    const s = store();
    await s.grant(T, [req('a')]);
    expect(await s.longHeld(T, 60_000, 10)).toEqual([]);
    await db.pool.query(`update migrate.platform_permits set granted_at = clock_timestamp() - interval '2 minutes'`);
    const held = await s.longHeld(T, 60_000, 10);
    expect(held.map((p) => p.holder)).toEqual(['a']);
    // Given again since (another attempt of the account): the release of the old grant leaves it.
    await db.pool.query(`update migrate.platform_permits set granted_at = clock_timestamp()`);
    expect(await s.release(T, held)).toBe(0);
    expect(await permits()).toHaveLength(1);
    await db.pool.query(`update migrate.platform_permits set granted_at = clock_timestamp() - interval '2 minutes'`);
    expect(await s.release(T, await s.longHeld(T, 60_000, 10))).toBe(1);
    expect(await permits()).toEqual([]);
    expect([...(await s.grant(T, [req('b')])).keys()]).toEqual(['b']);
  });

  it('a permit is long-held only past three times the measured hold, if that is longer', async () => {
    const s = store();
    await s.grant(T, [req('a')]);
    await db.pool.query(`update migrate.platform_permits set granted_at = clock_timestamp() - interval '2 minutes'`);
    await db.pool.query(`update migrate.platform_pace set hold_ms = 60000`);
    expect(await s.longHeld(T, 30_000, 10)).toEqual([]);
    await db.pool.query(`update migrate.platform_pace set hold_ms = 30000`);
    expect((await s.longHeld(T, 30_000, 10)).map((p) => p.holder)).toEqual(['a']);
  });
});
