import type { Pool, PoolClient } from '../clients/db';
import {
  freePermits,
  grantRound,
  initialPace,
  nextPace,
  probesBeyondWindow,
  throttledShare,
  type PaceParams,
  type PaceSignal,
  type PaceState,
  type PaceView,
  type Waiter,
} from '../domain/platform-pace';

/** A tenant's shared window as stored (migrate.platform_pace) with the permits held now. */
export interface PaceRow extends PaceState {
  tenant: string;
  accepted: number;
  throttled: number;
  serverErrors: number;
  /** Permits held now (accounts being scheduled or in processing at the tenant). */
  held: number;
  /** How long an accepted account holds its permit (ms, moving average); null before one was given back. */
  holdMs: number | null;
  updatedAt: string;
}

/** An account of this worker waiting for a permit (what its workflow's start said: inherited priority). */
export type PermitRequest = Omit<Waiter, 'sinceMs'>;

/** A permit held now, as the sweep saw it (its grant time tells this grant from a later one to the same account). */
export interface HeldPermit {
  holder: string;
  grantedAt: string;
  /** How long it has been held, by the database's clock (when listed). */
  heldMs: number;
}

/** A permit given: `full` when it was the window, not the callers, that held accounts back; the window it was given under. */
export interface Grant {
  full: boolean;
  window: number;
}

/** The tenant's answer to one account's call (`keep`: the account is now in processing there). */
export interface Answer {
  holder: string;
  signal: PaceSignal | undefined;
  keep: boolean;
}

/**
 * The answered accounts' permits as CTEs ($1 tenant, $2 holders kept, $3 holders given back): kept
 * ones marked accepted (in processing), the others deleted, their keys' counts granted lowered by as
 * many (without the tenant taking the account, not a share of the window it had).
 */
function permitsSql(): string {
  return `kept as (update migrate.platform_permits set accepted_at = clock_timestamp() where tenant = $1 and holder = any($2::text[])),
    gone as (delete from migrate.platform_permits where tenant = $1 and holder = any($3::text[]) returning fairness_key),
    shares as (update migrate.platform_fair_shares s set granted = greatest(0, s.granted - g.n)
      from (select fairness_key, count(*) as n from gone group by fairness_key) g
     where s.tenant = $1 and s.fairness_key = g.fairness_key)`;
}

function permitParams(tenant: string, answers: readonly Answer[]): [string, string[], string[]] {
  return [tenant, answers.filter((a) => a.keep).map((a) => a.holder), answers.filter((a) => !a.keep).map((a) => a.holder)];
}

/** A waiter not seen for this long has left (its activity attempt ended): passed over until it asks again. */
const WAITER_FRESH_MS = 1_500;
/** A waiter gone for this long is forgotten (its place in the queue with it). */
const WAITER_FORGOTTEN_MS = 10 * 60_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toRow(r: any): PaceRow {
  const ms = (d: Date | string) => {
    const t = new Date(d).getTime();
    return Number.isFinite(t) ? t : 0;
  };
  return {
    tenant: r.tenant,
    window: Number(r.window_size),
    probing: r.probing,
    holdUntilMs: ms(r.hold_until),
    accepted: Number(r.accepted),
    throttled: Number(r.throttled),
    serverErrors: Number(r.server_errors),
    held: Number(r.held ?? 0),
    // The stored average with the holds not yet folded into it (migrate.platform_hold_ms).
    holdMs: r.measured_hold_ms === null || r.measured_hold_ms === undefined ? null : Number(r.measured_hold_ms),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

/**
 * The window of accounts in processing per tenant, shared through the ledger: every worker and run
 * of a tenant takes its permits from one row and feeds the tenant's answers back into it, each under
 * the row's lock (a read, the control law in TypeScript, a write: one short transaction).
 */
export function createPaceStore(pool: Pool, params: PaceParams, opts: { leaseMs: number }) {
  /**
   * `fn` under the tenant's row lock. `hold`: the measured hold time with the samples not yet folded
   * (a round's probe reads it), or the stored average (an answer does not read it, and folds them).
   */
  async function locked<T>(tenant: string, hold: 'measured' | 'stored', fn: (c: PoolClient, row: PaceRow, nowMs: number) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const holdMs = hold === 'measured' ? 'migrate.platform_hold_ms(p)' : 'p.hold_ms';
      const lock = () =>
        client.query(`select p.*, ${holdMs} as measured_hold_ms, clock_timestamp() as now from migrate.platform_pace p where tenant = $1 for update`, [tenant]);
      let r = await lock();
      // The tenant's row is made once, by the first round that finds none (not one upsert a round).
      if (r.rows.length === 0) {
        const init = initialPace(params);
        await client.query(`insert into migrate.platform_pace (tenant, window_size, probing) values ($1, $2, $3) on conflict (tenant) do nothing`, [
          tenant,
          init.window,
          init.probing,
        ]);
        r = await lock();
      }
      const result = await fn(client, toRow(r.rows[0]), new Date(r.rows[0].now).getTime());
      await client.query('commit');
      return result;
    } catch (e) {
      await client.query('rollback').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  /**
   * Answers of several accounts' calls (a worker's, gathered: activities/platform-permits.ts), fed
   * into the control law in their order under one lock: the window's state is the law folded over
   * them (as many answers one after the other), written once with their permits and the counts.
   */
  function answeredAll(tenant: string, answers: readonly Answer[]): Promise<void> {
    if (answers.length === 0) return Promise.resolve();
    return locked(tenant, 'stored', async (c, row, now) => {
      let state: PaceState = row;
      const counts = [0, 0, 0];
      let pending: Answer[] = [];
      for (const a of answers) {
        let signal = a.signal;
        // A refusal counts the permits as they stand after the answers before it; an account answered
        // twice (an attempt timed out while its call went on) has its earlier answer written first (one
        // statement may not change a row twice).
        if ((signal?.kind === 'throttled' || pending.some((p) => p.holder === a.holder)) && pending.length > 0) {
          await c.query(`with ${permitsSql()} select 1`, permitParams(tenant, pending));
          pending = [];
        }
        if (signal?.kind === 'throttled') {
          const n = await c.query<{ n: number; unanswered: number }>(
            `select count(*) filter (where accepted_at is not null)::int as n,
                    count(*) filter (where accepted_at is null and holder <> $2)::int as unanswered
               from migrate.platform_permits where tenant = $1 and expires_at >= clock_timestamp()`,
            [tenant, a.holder],
          );
          signal = { ...signal, inProcessing: n.rows[0].n, unanswered: n.rows[0].unanswered };
        }
        if (signal) {
          state = nextPace(state, signal, params, now);
          counts[signal.kind === 'accepted' ? 0 : signal.kind === 'throttled' ? 1 : 2] += 1;
        }
        pending.push(a);
      }
      const signalled = answers.some((a) => a.signal);
      if (!signalled) {
        await c.query(`with ${permitsSql()} select 1`, permitParams(tenant, pending));
        return;
      }
      // The permits and the window's update: one round trip. The holds of permits freed since the
      // last answer folded into the moving average under this lock (1798100000000_platform_hold_samples.sql:
      // freeing a permit does not wait on the row).
      await c.query(
        `with ${permitsSql()},
           folded as (delete from migrate.platform_permit_holds where tenant = $1 returning id, held_ms)
         update migrate.platform_pace set window_size = $4, probing = $5, hold_until = to_timestamp($6::float8 / 1000),
                accepted = accepted + $7, throttled = throttled + $8, server_errors = server_errors + $9, updated_at = now(),
                hold_ms = migrate.platform_hold_fold(hold_ms, (select array_agg(held_ms order by id) from folded))
          where tenant = $1`,
        [...permitParams(tenant, pending), state.window, state.probing, state.holdUntilMs, ...counts],
      );
    });
  }

  return {
    /**
     * One round for this worker's waiting accounts: they are (re)registered as waiting, and the
     * permits the window allows beyond those held go to the waiters of every worker by priority and
     * weight (domain/platform-pace.ts). Returns the permits this worker's waiters got.
     */
    grant(tenant: string, waiting: readonly PermitRequest[]): Promise<Map<string, Grant>> {
      return locked(tenant, 'measured', async (c, row, nowMs) => {
        // Permits whose lease has passed and waiters long gone, in one statement (two tables, no row in both).
        await c.query(
          `with expired as (delete from migrate.platform_permits where tenant = $1 and expires_at < clock_timestamp())
           delete from migrate.platform_permit_waiters where tenant = $1 and seen_at < clock_timestamp() - make_interval(secs => $2)`,
          [tenant, WAITER_FORGOTTEN_MS / 1000],
        );
        // The waiters (re)registered, and an account asking while it holds a permit: the attempt it
        // was given to has ended (a worker killed, an attempt timed out) and the account is the same
        // one: it is its permit again. Not counted as held against it, which with a narrow window would
        // have it wait on itself until the lease ends. One statement (two tables).
        const own =
          waiting.length === 0
            ? []
            : (
                await c.query<{ holder: string }>(
                  `with seen as (
                     insert into migrate.platform_permit_waiters (tenant, holder, fairness_key, priority_key, weight)
                     select $1, * from unnest($2::text[], $3::text[], $4::int[], $5::float8[])
                     on conflict (tenant, holder) do update set seen_at = clock_timestamp(), fairness_key = excluded.fairness_key,
                        priority_key = excluded.priority_key, weight = excluded.weight)
                   update migrate.platform_permits set granted_at = clock_timestamp(), accepted_at = null, expires_at = clock_timestamp() + make_interval(secs => $6)
                    where tenant = $1 and holder = any($2) returning holder`,
                  [
                    tenant,
                    waiting.map((w) => w.holder),
                    waiting.map((w) => w.fairnessKey),
                    waiting.map((w) => w.priorityKey),
                    waiting.map((w) => w.weight),
                    opts.leaseMs / 1000,
                  ],
                )
              ).rows.map((r) => r.holder);
        if (own.length > 0) {
          await c.query(`delete from migrate.platform_permit_waiters where tenant = $1 and holder = any($2)`, [tenant, own]);
          return new Map(own.map((h) => [h, { full: false, window: row.window }]));
        }
        // What the round decides on, read in one statement: the permits held, the fresh waiters (every
        // worker's) and each fairness key's count granted. Waiters and counts go unused when nothing is free.
        // A key no longer waiting nor holding anything for as long as a waiter is remembered starts
        // afresh, deleted by the same statement: its reads still see that key's count, which the round
        // leaves alone (a key not waiting does not compete: domain `capLeads`), so it is never written back.
        const read = await c.query<{ n: number; unanswered: number; waiters: Waiter[]; shares: Record<string, number> }>(
          `with forgotten as (
             delete from migrate.platform_fair_shares s where tenant = $1 and updated_at < clock_timestamp() - make_interval(secs => $3)
                and not exists (select from migrate.platform_permit_waiters w where w.tenant = s.tenant and w.fairness_key = s.fairness_key)
                and not exists (select from migrate.platform_permits p where p.tenant = s.tenant and p.fairness_key = s.fairness_key))
           select (select count(*)::int from migrate.platform_permits where tenant = $1) as n,
                  (select count(*)::int from migrate.platform_permits where tenant = $1 and accepted_at is null) as unanswered,
                  (select coalesce(json_agg(json_build_object('holder', holder, 'fairnessKey', fairness_key, 'priorityKey', priority_key,
                            'weight', weight, 'sinceMs', extract(epoch from since) * 1000)), '[]')
                     from migrate.platform_permit_waiters where tenant = $1 and seen_at >= clock_timestamp() - make_interval(secs => $2)) as waiters,
                  (select coalesce(json_object_agg(fairness_key, granted), '{}') from migrate.platform_fair_shares where tenant = $1) as shares`,
          [tenant, WAITER_FRESH_MS / 1000, WAITER_FORGOTTEN_MS / 1000],
        );
        const held = read.rows[0];
        const inWindow = freePermits(row.window, held.n);
        const probe = probesBeyondWindow({
          free: inWindow,
          held: held.n,
          ceiling: params.maxWindow,
          unanswered: held.unanswered,
          nowMs,
          holdUntilMs: row.holdUntilMs,
          lastAnswerMs: Date.parse(row.updatedAt),
          holdMs: row.holdMs,
        });
        const free = probe ? 1 : inWindow;
        if (free === 0) return new Map();
        // After a long idle the window starts probing again (as TCP restarts after idle): accepted,
        // the probe widens it by one account, and each account accepted in a full window after it by one more.
        if (probe) await c.query(`update migrate.platform_pace set probing = true where tenant = $1`, [tenant]);
        const waiters: Waiter[] = held.waiters.map((r) => ({ ...r, weight: Number(r.weight), sinceMs: Number(r.sinceMs) }));
        const stored = new Map(Object.entries(held.shares).map(([k, n]) => [k, Number(n)]));
        const mine = new Map(waiting.map((x) => [x.holder, x]));
        const { given, changed, full } = grantRound({
          free,
          window: row.window,
          waiters,
          shares: stored,
          mine: new Map(waiting.map((x) => [x.holder, x.fairnessKey])),
        });
        if (changed.length === 0 && given.length === 0) return new Map();
        // The keys' new counts, the permits given and their waiters gone: one statement (three tables, no row in two).
        await c.query(
          `with shares as (
             insert into migrate.platform_fair_shares (tenant, fairness_key, granted) select $1, * from unnest($7::text[], $8::float8[])
             on conflict (tenant, fairness_key) do update set granted = excluded.granted, updated_at = clock_timestamp()),
           given as (
             insert into migrate.platform_permits (tenant, holder, fairness_key, priority_key, weight, expires_at)
             select $1, x.holder, x.fairness_key, x.priority_key, x.weight, clock_timestamp() + make_interval(secs => $6)
               from unnest($2::text[], $3::text[], $4::int[], $5::float8[]) as x (holder, fairness_key, priority_key, weight)
             on conflict (tenant, holder) do update set granted_at = clock_timestamp(), accepted_at = null, expires_at = excluded.expires_at)
           delete from migrate.platform_permit_waiters where tenant = $1 and holder = any($2)`,
          [
            tenant,
            given,
            given.map((h) => mine.get(h)!.fairnessKey),
            given.map((h) => mine.get(h)!.priorityKey),
            given.map((h) => mine.get(h)!.weight),
            opts.leaseMs / 1000,
            changed.map(([k]) => k),
            changed.map(([, n]) => n),
          ],
        );
        return new Map(given.map((h) => [h, { full, window: row.window }]));
      });
    },

    /**
     * The tenant's answer to an account's call, fed into the control law. `keep`: the account is now
     * in processing there (its permit stays until its outcome is recorded); otherwise the permit is
     * given back at once.
     */
    answered(tenant: string, holder: string, signal: PaceSignal | undefined, keep: boolean): Promise<void> {
      return answeredAll(tenant, [{ holder, signal, keep }]);
    },

    answeredAll,

    /**
     * The tenant's permits held now, with how long each has been held (by the database's clock), and
     * the measured hold time: the sweep picks the long-held ones to check (domain `permitsToCheck`).
     */
    async heldPermits(tenant: string): Promise<{ holdMs: number | null; permits: HeldPermit[] }> {
      // As text: a JS Date would drop the microseconds the release matches on.
      const [pace, held] = await Promise.all([
        pool.query<{ hold_ms: number | null }>('select migrate.platform_hold_ms(p) as hold_ms from migrate.platform_pace p where tenant = $1', [tenant]),
        pool.query<{ holder: string; granted_at: string; held_ms: number }>(
          `select holder, granted_at::text as granted_at, (extract(epoch from clock_timestamp() - granted_at) * 1000)::float8 as held_ms
             from migrate.platform_permits where tenant = $1`,
          [tenant],
        ),
      ]);
      const h = pace.rows[0]?.hold_ms;
      return {
        holdMs: h === null || h === undefined ? null : Number(h),
        permits: held.rows.map((x) => ({ holder: x.holder, grantedAt: x.granted_at, heldMs: Number(x.held_ms) })),
      };
    },

    /**
     * Gives back permits whose account workflows have closed without an outcome (terminated, timed
     * out): the platform's time for them says nothing of its processing time, so the moving average
     * is left alone. Only the grant seen is freed (a later grant to the same id is another attempt).
     */
    async release(tenant: string, permits: readonly Pick<HeldPermit, 'holder' | 'grantedAt'>[]): Promise<number> {
      if (permits.length === 0) return 0;
      const r = await pool.query(
        `delete from migrate.platform_permits q using unnest($2::text[], $3::timestamptz[]) as x (holder, granted_at)
          where q.tenant = $1 and q.holder = x.holder and q.granted_at = x.granted_at`,
        [tenant, permits.map((p) => p.holder), permits.map((p) => p.grantedAt)],
      );
      return r.rowCount ?? 0;
    },
  };
}

export type PaceStore = ReturnType<typeof createPaceStore>;

/** Every tenant's window as stored (`run status`, the watch line), or one tenant's, with the permits held now. */
export async function paceRows(pool: Pool, tenant?: string): Promise<PaceRow[]> {
  const r = await pool.query(
    `select p.*, migrate.platform_hold_ms(p) as measured_hold_ms, (select count(*) from migrate.platform_permits q where q.tenant = p.tenant and q.expires_at >= now()) as held
       from migrate.platform_pace p where $1::text is null or p.tenant = $1 order by p.tenant`,
    [tenant ?? null],
  );
  return r.rows.map(toRow);
}

/** The tenant's window as shown (`run status`, the watch line, the run's UI page). */
export async function paceView(pool: Pool, opts: { mode: 'fixed' | 'adaptive'; tenant: string; ceiling: number }): Promise<PaceView> {
  const [row] = opts.mode === 'adaptive' ? await paceRows(pool, opts.tenant) : [];
  return {
    mode: opts.mode,
    window: row ? row.window : null,
    held: row?.held ?? 0,
    ceiling: opts.ceiling,
    calls: row ? row.accepted + row.throttled : 0,
    throttledShare: row ? throttledShare(row.accepted, row.throttled) : 0,
    holdMs: row?.holdMs ?? null,
  };
}
