import type pino from 'pino';
import type { Grant, PaceStore, PermitRequest } from '../ledger/platform-pace';
import type { PaceSignal } from '../domain/platform-pace';

/**
 * A worker's waiting accounts, asking for permits together: one ledger round a tick for all of them
 * (not one per account), at once when an account starts waiting and every `tickMs` while any waits.
 */
export function createPermitGate(store: PaceStore, tenant: string, opts: { tickMs: number; logger?: Pick<pino.Logger, 'warn'> }) {
  const waiting = new Map<string, { request: PermitRequest; deadline: number; resolve: (g: Grant | null) => void }>();
  let looping = false;
  let wake: (() => void) | undefined;

  async function loop(): Promise<void> {
    looping = true;
    try {
      while (waiting.size > 0) {
        try {
          const granted = await store.grant(
            tenant,
            [...waiting.values()].map((w) => w.request),
          );
          for (const [holder, g] of granted) settle(holder, g);
        } catch (e) {
          // The ledger is away: the accounts wait on, and give up at their deadline (the attempt is retried).
          opts.logger?.warn({ err: (e as Error).message }, 'platform permits: the ledger did not answer; retrying');
        }
        const now = Date.now();
        for (const [holder, w] of waiting) if (w.deadline <= now) settle(holder, null);
        if (waiting.size === 0) break;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, opts.tickMs);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        wake = undefined;
      }
    } finally {
      looping = false;
    }
  }

  function settle(holder: string, g: Grant | null): void {
    const w = waiting.get(holder);
    if (!w) return;
    waiting.delete(holder);
    w.resolve(g);
  }

  return {
    /** A permit for this account, or null when none came within `maxWaitMs`. */
    acquire(request: PermitRequest, maxWaitMs: number): Promise<Grant | null> {
      return new Promise((resolve) => {
        settle(request.holder, null); // the same account asking again replaces its earlier ask
        waiting.set(request.holder, { request, deadline: Date.now() + maxWaitMs, resolve });
        if (!looping) void loop();
        else wake?.();
      });
    },
    /** The tenant's answer (or none: the call failed otherwise); `keep` when the account is now in processing there. */
    answered(holder: string, signal: PaceSignal | undefined, keep: boolean): Promise<void> {
      return store.answered(tenant, holder, signal, keep);
    },
  };
}

export type PermitGate = ReturnType<typeof createPermitGate>;
