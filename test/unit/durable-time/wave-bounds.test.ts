import { describe, expect, it } from 'vitest';
import { dispatchLimitSignal, resumeRun, runProgressQuery } from '../../../domain/messages';
import {
  ACCOUNT_MS,
  accountsOf,
  env,
  expectOneOutcomeEach,
  FAIL_CODE,
  iso,
  Ledger,
  MINUTE,
  skipTo,
  startRun,
  startWorker,
  useTimeSkippingServer,
} from './plan-time';

/**
 * A wave's run on its own checks, under durable time (./plan-time.ts): what holds when no plan signal
 * comes in time (the window's end, stop the line). Each fails at once when its check is gone, not by
 * a timeout. The run is started here without a plan: its ledger work is local activities, so the
 * server's clock never skips past one (a plan's remote activities can time out in skipped time).
 */

useTimeSkippingServer();

describe("a wave's run on its own checks (the plan's next signal late, or never)", () => {
  it('never dispatches past the end of the window it was given, then starts the rest once a new bound comes', async () => {
    const t0 = await env.currentTimeMs();
    // Two and a half accounts' time at two at a time: the window ends while accounts are in flight.
    const end = t0 + 2.5 * ACCOUNT_MS;
    const accounts = accountsOf('LATE', 10);
    const ledger = new Ledger(accounts);
    const worker = await startWorker(ledger);
    const handle = await startRun('run-late-signal', { concurrency: 2, dispatch: { limit: null, until: end } });
    try {
      // Hours past the window's end with no word from a plan.
      await skipTo(end + 3 * 60 * MINUTE);
      const times = [...ledger.dispatchedAt.values()];
      for (const t of times) expect(t, iso(t)).toBeLessThan(end);
      expect(times.length).toBeGreaterThanOrEqual(4);
      expect(times.length).toBeLessThan(accounts.length);
      expect(await handle.query(runProgressQuery)).toMatchObject({ state: 'running', inFlight: 0, totals: { dispatched: times.length } });
      // The plan's next window: the rest go, each once, none marked failed for the wait.
      await handle.signal(dispatchLimitSignal, { limit: null, until: null });
      expect((await handle.result()).totals).toMatchObject({ dispatched: 10, completed: 10, failed: 0, notAttempted: 0 });
      expectOneOutcomeEach(ledger);
    } finally {
      await handle.terminate().catch(() => {});
      await worker.stop();
    }
  }, 180_000);

  it('dispatches nothing more from the moment stop the line trips (no plan to close its dispatch), until resumed', async () => {
    const t0 = await env.currentTimeMs();
    const accounts = accountsOf('STOP', 12);
    // The 3rd and 4th fail on the platform: max_same_code 2 trips when both are recorded.
    const ledger = new Ledger(accounts, new Set([accounts[2], accounts[3]]));
    const worker = await startWorker(ledger);
    const handle = await startRun('run-stop-line', { concurrency: 2, maxSameCode: 2 });
    try {
      await skipTo(t0 + 10 * MINUTE);
      const p = await handle.query(runProgressQuery);
      expect(p).toMatchObject({ state: 'paused', inFlight: 0, totals: { dispatched: 4, completed: 2, failed: 2 } });
      expect(p.stopLine?.state.tripped).toMatchObject({ rule: 'max_same_code', code: FAIL_CODE, count: 2 });
      expect(ledger.dispatchedAt.size).toBe(4);
      // Six hours on: still nothing dispatched.
      await skipTo(t0 + 6 * 60 * MINUTE);
      expect(ledger.dispatchedAt.size).toBe(4);
      await handle.executeUpdate(resumeRun, { args: [] });
      expect((await handle.result()).totals).toMatchObject({ dispatched: 12, completed: 10, failed: 2 });
      expect([...ledger.dispatchedAt.values()].slice(4).every((t) => t >= t0 + 6 * 60 * MINUTE)).toBe(true);
      expectOneOutcomeEach(ledger);
    } finally {
      await handle.terminate().catch(() => {});
      await worker.stop();
    }
  }, 180_000);
});
