import { describe, expect, it } from 'vitest';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { dispatchLimitSignal, resumeRun, runProgressQuery } from '../../../domain/messages';
import { runWorkflowId } from '../../../domain/workflow-ids';
import { approveGate, controlPlan } from '../../../domain/plan-messages';
import {
  ACCOUNT_MS,
  accountsOf,
  env,
  expectOneOutcomeEach,
  FAIL_CODE,
  iso,
  Ledger,
  MINUTE,
  skipPastActivities,
  waitForStatus,
  skipTo,
  startPlan,
  startRun,
  startWorker,
  useTimeSkippingServer,
} from './plan-time';

/**
 * What a wave's workflows decide themselves, under durable time (./plan-time.ts): the run's own checks
 * that hold when no plan signal comes in time (the window's end, stop the line), each caught at once
 * rather than as a timeout, and the plan's exit gate on its numbers. The runs start here without a
 * plan: their ledger work is local activities, so the clock never skips past one.
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
      // The bound it holds to is the one its progress shows (the run's query in the Temporal UI).
      expect(await handle.query(runProgressQuery)).toMatchObject({
        state: 'running',
        inFlight: 0,
        totals: { dispatched: times.length },
        dispatch: { limit: null, until: end },
      });
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

describe("a wave's exit gate on its numbers", () => {
  it('below min_reconciled_rate the wave ends in exit_not_met, for good, and the exit sign-off is refused', async () => {
    const t0 = await env.currentTimeMs();
    const accounts = accountsOf('EXIT', 4);
    const ledger = new Ledger(accounts, new Set([accounts[1]]));
    const planId = 'plan-exit';
    const worker = await startWorker(ledger);
    const handle = await startPlan({
      planId,
      accounts: 4,
      concurrency: 4,
      windows: [{ start: iso(t0), end: iso(t0 + 24 * 60 * MINUTE) }],
      minReconciledRate: 0.9,
      exitSignOff: 'ops lead',
      pollSeconds: 300,
      continueAsNewAtEvents: 10_000,
    });
    try {
      await skipPastActivities(t0 + 10 * MINUTE);
      const s = await waitForStatus(planId, 'the exit gate not met', (x) => x.waves[0].state === 'exit_not_met');
      expect(s.state).toBe('running');
      expect(s.waves[0].accounts).toMatchObject({ completed: 3, failed: 1, not_attempted: 0 });
      expect(s.waves[0].gates.exit).toMatchObject({ state: 'not_met', reconciled_rate: 0.75, min_reconciled_rate: 0.9, approved_by: null });
      // `plan approve --gate exit` is refused, saying why.
      const refused = (await handle.executeUpdate(approveGate, { args: [{ wave: 'w', gate: 'exit', by: 'ops lead' }] }).catch((e: unknown) => e)) as Error;
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((refused.cause as Error | undefined)?.message).toBe("wave w's exit gate is not met: reconciled 75.0% < min_reconciled_rate 90.0%");
      // A day later (nothing of the plan's runs then: one skip) the wave still waits there: only `plan skip` or cancel moves it.
      await skipTo(t0 + 34 * 60 * MINUTE);
      const later = await waitForStatus(planId, 'the plan a day later', () => true);
      expect(later.state).toBe('running');
      expect(later.waves[0]).toMatchObject({ state: 'exit_not_met', gates: { exit: { state: 'not_met', approved_by: null } } });
    } finally {
      await handle.executeUpdate(controlPlan, { args: [{ action: 'cancel' }] }).catch(() => {});
      await worker.stop();
    }
  }, 180_000);
});

describe("a wave's entry gate", () => {
  it('another trial load asked for at the entry gate runs, and the real run still waits for the named sign-off', async () => {
    const t0 = await env.currentTimeMs();
    const ledger = new Ledger(accountsOf('ENTRY', 2));
    const planId = 'plan-entry';
    const worker = await startWorker(ledger);
    const handle = await startPlan({
      planId,
      accounts: 2,
      concurrency: 2,
      windows: [{ start: iso(t0), end: iso(t0 + 24 * 60 * MINUTE) }],
      entrySignOff: 'ops lead',
      trialMinPassRate: 1,
      pollSeconds: 300,
      continueAsNewAtEvents: 10_000,
    });
    const realRunStarted = () =>
      env.client.workflow
        .getHandle(runWorkflowId(`${planId}.w`))
        .describe()
        .then(
          () => true,
          () => false,
        );
    try {
      await skipPastActivities(t0 + 10 * MINUTE);
      const first = await waitForStatus(planId, 'trial load 1 passed, the entry gate waiting', (x) => x.waves[0].state === 'waiting_entry_sign_off');
      expect(first.waves[0].dry_run).toMatchObject({ state: 'passed', runs: [`${planId}.w.trial-1`] });
      expect(first.waves[0].gates.entry).toMatchObject({ state: 'waiting', required_by: 'ops lead', dry_run_pass_rate: 1, min_dry_run_pass_rate: 1 });
      // The operator asks for another trial load before signing (`plan trial`): it runs, and the gate waits again.
      await handle.executeUpdate(controlPlan, { args: [{ action: 'trial', wave: 'w' }] });
      await skipPastActivities(t0 + 20 * MINUTE);
      const second = await waitForStatus(
        planId,
        'trial load 2 ended, or the real run started',
        (x) =>
          (x.waves[0].dry_run?.runs.length === 2 && x.waves[0].dry_run.state === 'passed') || !['waiting_entry_sign_off', 'dry_run'].includes(x.waves[0].state),
      );
      expect(second.waves[0]).toMatchObject({ state: 'waiting_entry_sign_off', gates: { entry: { state: 'waiting', approved_by: null } } });
      expect(await realRunStarted()).toBe(false);
      // Signed off: now the real run starts, and the wave ends.
      await handle.executeUpdate(approveGate, { args: [{ wave: 'w', gate: 'entry', by: 'ops lead' }] });
      await skipPastActivities(t0 + 30 * MINUTE);
      await waitForStatus(planId, 'the wave completed', (x) => x.waves[0].state === 'completed');
      expect(await realRunStarted()).toBe(true);
    } finally {
      await handle.executeUpdate(controlPlan, { args: [{ action: 'cancel' }] }).catch(() => {});
      await worker.stop();
    }
  }, 180_000);
});
