import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PACE, PROBE_IDLE_MS } from '../../../domain/platform-pace';
import { createPaceStore, paceRows, paceView, type PermitRequest } from '../../../ledger/platform-pace';
import { startTestDb } from '../events/helpers';

let db: Awaited<ReturnType<typeof startTestDb>>;
/** The platform has finished with this workflow's account: what the events router's match and a recorded outcome run. */
const freePlatformPermit = async (pool: typeof db.pool, holder: string) => {
  await pool.query('select migrate.free_platform_permit($1)', [holder]);
};
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
  await db.pool.query(
    'delete from migrate.platform_permit_waiters; delete from migrate.platform_permits; delete from migrate.platform_permit_holds; delete from migrate.platform_pace',
  );
});

describe("the tenant's permits in the ledger", () => {
  it('a refusal that narrows the window to accounts the tenant keeps for long is asked again once idle, and the window grows back from the probe', async () => {
    // The default window (4 at first): two accounts accepted and held (imports kept to their window's end).
    const s = createPaceStore(db.pool, DEFAULT_PACE, { leaseMs: 60 * 60_000 });
    expect([...(await s.grant(T, [req('held1'), req('held2'), req('c')])).keys()].sort()).toEqual(['c', 'held1', 'held2']);
    await s.answered(T, 'held1', { kind: 'accepted', latencyMs: 10, full: false }, true);
    await s.answered(T, 'held2', { kind: 'accepted', latencyMs: 10, full: false }, true);
    // A 429 with those two in processing: the window is narrowed to them, and nothing is free.
    await s.answered(T, 'c', { kind: 'throttled' }, false);
    expect((await paceRows(db.pool, T))[0]).toMatchObject({ window: 2, held: 2 });
    expect((await s.grant(T, [req('c'), req('d')])).size).toBe(0);
    // Still nothing before the idle time has passed since the last answer.
    await db.pool.query(
      `update migrate.platform_pace set hold_until = clock_timestamp() - interval '1 second', updated_at = clock_timestamp() - interval '20 seconds'`,
    );
    expect((await s.grant(T, [req('c'), req('d')])).size).toBe(0);
    // Idle past it: one account goes through beyond the window, and only one while its call is unanswered.
    await db.pool.query(`update migrate.platform_pace set updated_at = clock_timestamp() - make_interval(secs => $1)`, [PROBE_IDLE_MS / 1000 + 1]);
    const probe = await s.grant(T, [req('c'), req('d')]);
    expect([...probe.keys()]).toEqual(['c']);
    expect(probe.get('c')).toEqual({ full: true, window: 2 });
    expect((await s.grant(T, [req('d')])).size).toBe(0);
    // Accepted: the window widens past the held accounts and grows by one per account from there.
    await s.answered(T, 'c', { kind: 'accepted', latencyMs: 10, full: true }, true);
    expect((await paceRows(db.pool, T))[0]).toMatchObject({ window: 3, probing: true });
    await freePlatformPermit(db.pool, 'c');
    expect([...(await s.grant(T, [req('d')])).keys()]).toEqual(['d']);
  });

  it('a window at its ceiling (PLATFORM_MAX_IN_PROCESSING) is never probed past it, however long it is idle', async () => {
    const s = store();
    expect([...(await s.grant(T, [req('a')])).keys()]).toEqual(['a']);
    await s.answered(T, 'a', { kind: 'accepted', latencyMs: 10, full: true }, true);
    await db.pool.query(`update migrate.platform_pace set hold_until = '-infinity', updated_at = clock_timestamp() - interval '1 hour'`);
    expect((await s.grant(T, [req('b')])).size).toBe(0);
  });

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

  it('held permits are listed with how long each has been held; a release frees only the grant that was seen', async () => {
    const s = store();
    expect(await s.heldPermits(T)).toEqual({ holdMs: null, permits: [] });
    await s.grant(T, [req('a')]);
    const fresh = await s.heldPermits(T);
    expect(fresh.permits.map((p) => p.holder)).toEqual(['a']);
    expect(fresh.permits[0].heldMs).toBeLessThan(60_000);
    await db.pool.query(`update migrate.platform_permits set granted_at = clock_timestamp() - interval '2 minutes'`);
    const { permits: held } = await s.heldPermits(T);
    expect(held[0].heldMs).toBeGreaterThanOrEqual(120_000);
    expect(held[0].heldMs).toBeLessThan(180_000);
    // Given again since (another attempt of the account): the release of the old grant leaves it.
    await db.pool.query(`update migrate.platform_permits set granted_at = clock_timestamp()`);
    expect(await s.release(T, held)).toBe(0);
    expect(await permits()).toHaveLength(1);
    await db.pool.query(`update migrate.platform_permits set granted_at = clock_timestamp() - interval '2 minutes'`);
    expect(await s.release(T, (await s.heldPermits(T)).permits)).toBe(1);
    expect(await permits()).toEqual([]);
    expect([...(await s.grant(T, [req('b')])).keys()]).toEqual(['b']);
  });

  it("one tenant's answers move its own window only: a throttled tenant leaves another tenant's window and counts as they were", async () => {
    const other = 'https://other-tenant.example/v2/';
    const s = createPaceStore(db.pool, { ...DEFAULT_PACE, initialWindow: 8, maxWindow: 16 }, { leaseMs: 60 * 60_000 });
    await s.grant(T, [req('a')]);
    await s.grant(other, [req('x')]);
    const before = (await paceRows(db.pool, other))[0];
    await s.answered(T, 'a', { kind: 'throttled' }, false);
    const [mine] = await paceRows(db.pool, T);
    expect(mine).toMatchObject({ throttled: 1 });
    expect(mine.window).toBeLessThan(8);
    expect((await paceRows(db.pool, other))[0]).toMatchObject({ window: before.window, throttled: 0, accepted: 0, serverErrors: 0 });
  });

  it("a fairness key's count of permits granted: kept while it holds one, however long since its last grant; forgotten once it has held and asked for nothing for ten minutes", async () => {
    await db.pool.query('delete from migrate.platform_fair_shares');
    const s = store();
    const shares = async () =>
      (await db.pool.query<{ fairness_key: string; granted: number }>('select fairness_key, granted from migrate.platform_fair_shares order by 1')).rows;
    // A run (key GONE) had one account through and left; another (key OCTO) holds the window of one.
    expect([...(await s.grant(T, [{ ...req('g'), fairnessKey: 'GONE' }])).keys()]).toEqual(['g']);
    await s.answered(T, 'g', { kind: 'accepted', latencyMs: 10, full: false }, true);
    await freePlatformPermit(db.pool, 'g');
    expect([...(await s.grant(T, [req('a')])).keys()]).toEqual(['a']);
    expect(await shares()).toEqual([
      { fairness_key: 'GONE', granted: 1 },
      { fairness_key: 'OCTO', granted: 1 },
    ]);
    // Eleven minutes on, a third run's round (the window full: nothing given): the key that left starts afresh;
    // the one still holding keeps its count, or it would be owed a share it already has.
    await db.pool.query(`update migrate.platform_fair_shares set updated_at = clock_timestamp() - interval '11 minutes'`);
    expect((await s.grant(T, [{ ...req('n'), fairnessKey: 'NEW' }])).size).toBe(0);
    expect(await shares()).toEqual([{ fairness_key: 'OCTO', granted: 1 }]);
  });

  it('a permit whose lease has passed is freed: a worker that died holding it does not shrink the window for good', async () => {
    const s = store();
    // Account a's worker took the window's one permit and died: no answer, no outcome, no release.
    expect([...(await s.grant(T, [req('a')])).keys()]).toEqual(['a']);
    const lease = await db.pool.query<{ s: number }>('select extract(epoch from expires_at - granted_at)::float8 as s from migrate.platform_permits');
    expect(lease.rows[0].s).toBeCloseTo(3600, 0);
    // Within its lease it is held: another account waits, and the window shows it held.
    expect((await s.grant(T, [req('b')])).size).toBe(0);
    expect((await paceRows(db.pool, T))[0].held).toBe(1);
    // The lease ran out a second ago: no longer held, and the next account gets the window's permit.
    await db.pool.query(
      `update migrate.platform_permits set granted_at = granted_at - interval '1 hour 1 second', expires_at = expires_at - interval '1 hour 1 second'`,
    );
    expect((await paceRows(db.pool, T))[0].held).toBe(0);
    expect([...(await s.grant(T, [req('b')])).keys()]).toEqual(['b']);
    expect(await permits()).toEqual([{ holder: 'b', accepted: false }]);
  });

  it('the measured hold time comes with the permits (the sweep waits three times it)', async () => {
    const s = store();
    await s.grant(T, [req('a')]);
    await db.pool.query(`update migrate.platform_pace set hold_ms = 60000`);
    expect((await s.heldPermits(T)).holdMs).toBe(60_000);
  });

  it('the measured hold time is the moving average of the holds freed, in order, before and after the next answer folds them into the window', async () => {
    const s = createPaceStore(db.pool, { ...DEFAULT_PACE, initialWindow: 8, maxWindow: 16 }, { leaseMs: 60 * 60_000 });
    await s.grant(T, [req('a'), req('b'), req('c'), req('d'), req('e')]);
    for (const h of ['a', 'b', 'c', 'd']) await s.answered(T, h, { kind: 'accepted', latencyMs: 10, full: false }, true);
    // Held 1, 11 and 21 seconds (by their acceptance): the first taken as it is, each after it weighing 0.1.
    // A few ms more each on a loaded machine: the figures are lower bounds within 250 ms.
    const near = (ms: number | null, expected: number) => {
      expect(ms).toBeGreaterThanOrEqual(expected);
      expect(ms).toBeLessThan(expected + 250);
    };
    const free = async (holder: string, heldS: number) => {
      await db.pool.query(`update migrate.platform_permits set accepted_at = clock_timestamp() - make_interval(secs => $2) where holder = $1`, [holder, heldS]);
      await freePlatformPermit(db.pool, holder);
    };
    await free('a', 1);
    await free('b', 11);
    const twoFreed = 1000 * 0.9 + 11_000 * 0.1;
    near((await s.heldPermits(T)).holdMs, twoFreed);
    // An answer folds them into the stored average; the reads show the same figure after it.
    await s.answered(T, 'd', { kind: 'accepted', latencyMs: 10, full: false }, true);
    expect((await db.pool.query('select count(*)::int as n from migrate.platform_permit_holds')).rows[0].n).toBe(0);
    near((await paceRows(db.pool, T))[0].holdMs, twoFreed);
    await free('c', 21);
    const threeFreed = twoFreed * 0.9 + 21_000 * 0.1;
    near((await s.heldPermits(T)).holdMs, threeFreed);
    near((await paceView(db.pool, { mode: 'adaptive', tenant: T, ceiling: 16 })).holdMs, threeFreed);
    // A permit given back before the tenant took its account measures nothing.
    await db.pool.query(`update migrate.platform_permits set granted_at = clock_timestamp() - interval '1 minute' where holder = 'e'`);
    await freePlatformPermit(db.pool, 'e');
    expect((await permits()).map((p) => p.holder)).toEqual(['d']);
    near((await s.heldPermits(T)).holdMs, threeFreed);
  });

  it('a round waits out twice the measured hold before probing, the holds freed since the last answer included', async () => {
    const s = createPaceStore(db.pool, { ...DEFAULT_PACE, initialWindow: 1, maxWindow: 16 }, { leaseMs: 60 * 60_000 });
    expect([...(await s.grant(T, [req('a')])).keys()]).toEqual(['a']);
    await s.answered(T, 'a', { kind: 'accepted', latencyMs: 10, full: false }, true);
    expect((await paceRows(db.pool, T))[0]).toMatchObject({ window: 1, held: 1 });
    // After that answer, another worker's account freed a permit it held for a minute: not yet folded in.
    await db.pool.query(
      `insert into migrate.platform_permits (tenant, holder, fairness_key, priority_key, weight, accepted_at, expires_at)
       values ($1, 'gone', 'OCTO', 3, 1, clock_timestamp() - interval '60 seconds', clock_timestamp() + interval '1 hour')`,
      [T],
    );
    await freePlatformPermit(db.pool, 'gone');
    // Idle past the probe's 30 s but not twice that minute: the full window is not probed.
    const idle = (s: number) =>
      db.pool.query(`update migrate.platform_pace set hold_until = '-infinity', updated_at = clock_timestamp() - make_interval(secs => $1)`, [s]);
    await idle(PROBE_IDLE_MS / 1000 + 1);
    expect((await s.grant(T, [req('b')])).size).toBe(0);
    await idle(121);
    expect([...(await s.grant(T, [req('b')])).keys()]).toEqual(['b']);
  });

  it('the window as shown (`run status`, the watch line, the run page) is the tenant’s stored window, with its permits held and its calls', async () => {
    const view = (mode: 'fixed' | 'adaptive') => paceView(db.pool, { mode, tenant: T, ceiling: 16 });
    // Before the tenant's first schedule call there is no window to show.
    expect(await view('adaptive')).toEqual({ mode: 'adaptive', window: null, held: 0, ceiling: 16, calls: 0, throttledShare: 0, holdMs: null });
    const s = createPaceStore(db.pool, { ...DEFAULT_PACE, initialWindow: 8, maxWindow: 16 }, { leaseMs: 60 * 60_000 });
    await s.grant(T, [req('a'), req('b')]);
    await s.answered(T, 'a', { kind: 'throttled' }, false);
    const shown = await view('adaptive');
    const [stored] = await paceRows(db.pool, T);
    // A throttle shrinks the window below its start; the view shows that window, not the start or the ceiling.
    expect(stored.window).toBeLessThan(8);
    expect(shown).toMatchObject({ window: stored.window, held: 1, calls: 1, throttledShare: 1 });
    // Fixed pace has no window.
    expect(await view('fixed')).toMatchObject({ mode: 'fixed', window: null, held: 0, calls: 0 });
  });

  it("a worker's answers written together move the window, the permits and the keys' counts as the same answers one after the other", async () => {
    await db.pool.query('delete from migrate.platform_fair_shares');
    const apart = 'https://apart.example/v2/';
    const s = createPaceStore(db.pool, { ...DEFAULT_PACE, initialWindow: 8, maxWindow: 16 }, { leaseMs: 60 * 60_000 });
    const holders = ['a', 'b', 'c', 'd', 'e', 'f'];
    // Two accepted in a full window, one given back unanswered, a 429 (it counts the two accepted before
    // it as in processing and the two still unanswered), a 5xx, one more accepted.
    const answers = [
      { holder: 'a', signal: { kind: 'accepted', latencyMs: 10, full: true }, keep: true },
      { holder: 'b', signal: { kind: 'accepted', latencyMs: 10, full: true }, keep: true },
      { holder: 'c', signal: undefined, keep: false },
      { holder: 'd', signal: { kind: 'throttled' }, keep: false },
      { holder: 'e', signal: { kind: 'server_error' }, keep: false },
      { holder: 'f', signal: { kind: 'accepted', latencyMs: 10, full: true }, keep: true },
    ] as const;
    for (const tenant of [T, apart]) expect((await s.grant(tenant, holders.map(req))).size).toBe(6);
    for (const a of answers) await s.answered(apart, a.holder, a.signal, a.keep);
    await s.answeredAll(T, answers);
    const state = async (tenant: string) => {
      const [row] = await paceRows(db.pool, tenant);
      const held = await db.pool.query('select holder, accepted_at is not null as accepted from migrate.platform_permits where tenant = $1 order by holder', [
        tenant,
      ]);
      const shares = await db.pool.query('select fairness_key, granted from migrate.platform_fair_shares where tenant = $1', [tenant]);
      const { window, probing, accepted, throttled, serverErrors } = row;
      return { window, probing, accepted, throttled, serverErrors, permits: held.rows, shares: shares.rows };
    };
    const together = await state(T);
    expect(together).toEqual(await state(apart));
    // Narrowed to the two in processing, probing again, and widened by the last accepted; three given back.
    expect(together).toMatchObject({ window: 3, probing: true, accepted: 3, throttled: 1, serverErrors: 1 });
    expect(together.permits).toEqual(['a', 'b', 'f'].map((holder) => ({ holder, accepted: true })));
    expect(together.shares).toEqual([{ fairness_key: 'OCTO', granted: 3 }]);
  });

  it('an account answered twice in one write (an attempt timed out while its call went on): its answers apply in order', async () => {
    const s = store();
    expect([...(await s.grant(T, [req('a')])).keys()]).toEqual(['a']);
    // The old attempt's late acceptance, then the new attempt's call failing otherwise (its permit given back).
    await s.answeredAll(T, [
      { holder: 'a', signal: { kind: 'accepted', latencyMs: 10, full: false }, keep: true },
      { holder: 'a', signal: undefined, keep: false },
    ]);
    expect(await permits()).toEqual([]);
    expect((await paceRows(db.pool, T))[0]).toMatchObject({ accepted: 1, held: 0 });
  });
});
