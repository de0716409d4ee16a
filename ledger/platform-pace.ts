import type { Pool } from '../clients/db';
import { initialPace, nextPace, takeTurn, type PaceParams, type PaceSignal, type PaceState } from '../domain/platform-pace';

/** A tenant's shared pace as stored (migrate.platform_pace). */
export interface PaceRow extends PaceState {
  tenant: string;
  nextFreeAtMs: number;
  accepted: number;
  throttled: number;
  serverErrors: number;
  updatedAt: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toRow(r: any): PaceRow {
  const ms = (d: Date | string) => {
    const t = new Date(d).getTime();
    return Number.isFinite(t) ? t : 0;
  };
  return {
    tenant: r.tenant,
    rate: Number(r.rate),
    probing: r.probing,
    holdUntilMs: ms(r.hold_until),
    nextFreeAtMs: ms(r.next_free_at),
    accepted: Number(r.accepted),
    throttled: Number(r.throttled),
    serverErrors: Number(r.server_errors),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

/**
 * The pace of schedule calls per tenant, shared through the ledger: every worker and run of a
 * tenant takes its turns from one row and feeds the tenant's answers back into it, each under the
 * row's lock (a read, the control law in TypeScript, a write: one short transaction).
 */
export function createPaceStore(pool: Pool, params: PaceParams) {
  async function locked<T>(
    tenant: string,
    fn: (row: PaceRow, nowMs: number) => { next?: Partial<PaceRow>; counts?: Partial<Record<'accepted' | 'throttled' | 'server_errors', number>>; result: T },
  ): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const init = initialPace(params);
      await client.query(`insert into migrate.platform_pace (tenant, rate, probing) values ($1, $2, $3) on conflict (tenant) do nothing`, [
        tenant,
        init.rate,
        init.probing,
      ]);
      const r = await client.query(`select *, clock_timestamp() as now from migrate.platform_pace where tenant = $1 for update`, [tenant]);
      const row = toRow(r.rows[0]);
      const { next, counts, result } = fn(row, new Date(r.rows[0].now).getTime());
      if (next || counts) {
        const n = { ...row, ...next };
        await client.query(
          `update migrate.platform_pace set rate = $2, probing = $3, hold_until = to_timestamp($4::float8 / 1000), next_free_at = to_timestamp($5::float8 / 1000),
                  accepted = accepted + $6, throttled = throttled + $7, server_errors = server_errors + $8, updated_at = now()
            where tenant = $1`,
          [tenant, n.rate, n.probing, n.holdUntilMs, n.nextFreeAtMs, counts?.accepted ?? 0, counts?.throttled ?? 0, counts?.server_errors ?? 0],
        );
      }
      await client.query('commit');
      return result;
    } catch (e) {
      await client.query('rollback').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  return {
    /** A turn to call the tenant: ms to wait for it, or null when it is more than `maxWaitMs` away (come back later). */
    takeTurn(tenant: string, maxWaitMs: number): Promise<Turn> {
      return locked<Turn>(tenant, (row, now) => {
        const turn = takeTurn(row.nextFreeAtMs, row.rate, now, maxWaitMs);
        if (!turn) return { result: { retryInMs: Math.max(0, row.nextFreeAtMs - now - maxWaitMs) + 1 } };
        return { next: { nextFreeAtMs: turn.nextFreeAtMs }, result: { waitMs: turn.waitMs } };
      });
    },

    /** The tenant's answer to a call, fed into the control law; returns ms until the next free turn at the new rate. */
    answered(tenant: string, signal: PaceSignal): Promise<number> {
      return locked(tenant, (row, now) => {
        const next = nextPace(row, signal, params, now);
        return {
          next,
          counts: signal.kind === 'accepted' ? { accepted: 1 } : signal.kind === 'throttled' ? { throttled: 1 } : { server_errors: 1 },
          result: Math.max(row.nextFreeAtMs - now, 0) + 1000 / next.rate,
        };
      });
    },
  };
}

export type PaceStore = ReturnType<typeof createPaceStore>;

/** Go after `waitMs`, or (the next turn too far away) try again in `retryInMs`. */
export type Turn = { waitMs: number } | { retryInMs: number };

/** Every tenant's pace as stored (`run status`, the watch line), or one tenant's. */
export async function paceRows(pool: Pool, tenant?: string): Promise<PaceRow[]> {
  const r = await pool.query(`select * from migrate.platform_pace where $1::text is null or tenant = $1 order by tenant`, [tenant ?? null]);
  return r.rows.map(toRow);
}
