import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type pino from 'pino';
import type { Answer, Grant, PaceStore, PermitRequest } from '../ledger/platform-pace';
import { permitsToCheck, sweepFrees, type PaceSignal, type WorkflowAnswer } from '../domain/platform-pace';

/**
 * A worker's waiting accounts, asking for permits together: one ledger round a tick for all of them
 * (not one per account), at once when an account starts waiting and every `tickMs` while any waits.
 */
export function createPermitGate(
  store: PaceStore,
  tenant: string,
  opts: {
    tickMs: number;
    logger?: Pick<pino.Logger, 'warn'> & Partial<Pick<pino.Logger, 'info'>>;
    sweep?: PermitSweep;
    now?: () => number;
  },
) {
  const waiting = new Map<string, { request: PermitRequest; deadline: number; resolve: (g: Grant | null) => void }>();
  let looping = false;
  let wake: (() => void) | undefined;
  const now = opts.now ?? Date.now;
  let nextSweepAt = 0;
  const answers: { answer: Answer; settled: (e?: Error) => void }[] = [];
  let answering = false;

  /**
   * While accounts wait, now and then: permits held long are checked against Temporal, and those
   * whose account workflow has closed (terminated, timed out, gone) are given back. Such an account
   * never records an outcome, so nothing else frees its permit before its lease ends (an hour).
   */
  async function sweep(s: PermitSweep): Promise<void> {
    if (now() < nextSweepAt) return;
    nextSweepAt = now() + s.everyMs;
    try {
      const { holdMs, permits } = await store.heldPermits(tenant);
      const check = permitsToCheck(permits, holdMs, s);
      const noAnswer: WorkflowAnswer = { kind: 'no-answer' };
      const answers = await Promise.all(check.map((p) => s.workflowState(p.holder).catch(() => noAnswer)));
      const freed = await store.release(
        tenant,
        check.filter((_, i) => sweepFrees(answers[i])),
      );
      if (freed > 0) opts.logger?.info?.({ freed }, 'platform permits: given back for account workflows that closed without an outcome');
    } catch (e) {
      opts.logger?.warn({ err: (e as Error).message }, 'platform permits: the sweep of long-held permits failed; it runs again later');
    }
  }

  async function writeAnswers(): Promise<void> {
    answering = true;
    try {
      while (answers.length > 0) {
        const batch = answers.splice(0);
        try {
          await store.answeredAll(
            tenant,
            batch.map((b) => b.answer),
          );
          for (const b of batch) b.settled();
        } catch (e) {
          // Each account's attempt fails as its own write would have (Temporal retries it).
          for (const b of batch) b.settled(e instanceof Error ? e : new Error(String(e)));
        }
      }
    } finally {
      answering = false;
    }
  }

  async function loop(): Promise<void> {
    looping = true;
    try {
      while (waiting.size > 0) {
        if (opts.sweep) await sweep(opts.sweep);
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
        const t = now();
        for (const [holder, w] of waiting) if (w.deadline <= t) settle(holder, null);
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
        waiting.set(request.holder, { request, deadline: now() + maxWaitMs, resolve });
        if (!looping) void loop();
        else wake?.();
      });
    },
    /**
     * The tenant's answer (or none: the call failed otherwise); `keep` when the account is now in
     * processing there. Resolved once written, with the answers of this worker's other accounts that
     * came meanwhile: one ledger transaction for all of them (the window's row is locked once, not once an account).
     */
    answered(holder: string, signal: PaceSignal | undefined, keep: boolean): Promise<void> {
      return new Promise((resolve, reject) => {
        answers.push({ answer: { holder, signal, keep }, settled: (e) => (e === undefined ? resolve() : reject(e)) });
        if (!answering) void writeAnswers();
      });
    },
  };
}

export type PermitGate = ReturnType<typeof createPermitGate>;

/** How the gate checks long-held permits against the account workflows' state in Temporal. */
export interface PermitSweep {
  /** What Temporal says of the account workflow (domain `sweepFrees` decides what frees its permit). */
  workflowState(workflowId: string): Promise<WorkflowAnswer>;
  /** A permit is checked once held longer than this (or three times the measured hold, if longer). */
  olderThanMs: number;
  /** At most this often (per worker, while its accounts wait). */
  everyMs: number;
  /** At most this many checked per sweep (the oldest first). */
  batch: number;
}

/** An account workflow's state as Temporal's `describe` gives it: its status, not found, or no answer. */
export function temporalWorkflowState(temporal: () => Promise<Client>): PermitSweep['workflowState'] {
  return async (workflowId) => {
    try {
      const d = await (await temporal()).workflow.getHandle(workflowId).describe();
      return { kind: 'status', status: d.status.name };
    } catch (e) {
      return e instanceof WorkflowNotFoundError ? { kind: 'not-found' } : { kind: 'no-answer' };
    }
  };
}
