import { describe, expect, it } from 'vitest';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { dispatchLimitSignal, resumeRun, runProgressQuery } from '../../../domain/messages';
import { runWorkflowId } from '../../../domain/workflow-ids';
import { approveGate, controlPlan } from '../../../domain/plan-messages';
import type { migrationRunWorkflow } from '../../../workflows/migration-run';
import {
  ACCOUNT_MS,
  accountsOf,
  DAY,
  env,
  expectOneOutcomeEach,
  FAIL_CODE,
  iso,
  Ledger,
  MINUTE,
  skipPastActivities,
  skipPolls,
  type SwitchModel,
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

  it('stop the line counts failures across continue-as-new: the 10th in a row trips it, though the run continued as new meanwhile', async () => {
    const t0 = await env.currentTimeMs();
    const accounts = accountsOf('STOPCAN', 16);
    // Every account fails the same way; one at a time, so "in a row" is the dispatch order.
    const ledger = new Ledger(accounts, new Set(accounts));
    const worker = await startWorker(ledger);
    // The schema's least history: a few accounts' worth, so the run continues as new before the 10th failure.
    const handle = await startRun('run-stop-line-can', { concurrency: 1, maxSameCode: 10, continueAsNewAtEvents: 50 });
    try {
      await skipTo(t0 + 60 * MINUTE);
      expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
      const p = await handle.query(runProgressQuery);
      expect(p).toMatchObject({ state: 'paused', inFlight: 0, totals: { dispatched: 10, failed: 10 } });
      expect(p.stopLine?.state.tripped).toMatchObject({ rule: 'max_same_code', code: FAIL_CODE, count: 10 });
      expect(ledger.dispatchedAt.size).toBe(10);
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
      // `plan trial` is refused too, saying why: this wave has no trial load (an answer, not a plan stuck on the ask).
      const noTrial = handle.executeUpdate(controlPlan, { args: [{ action: 'trial', wave: 'w' }] }).then(
        () => new Error('accepted'),
        (e: unknown) => ((e as Error).cause as Error | undefined) ?? (e as Error),
      );
      const silence = new Promise<Error>((r) => setTimeout(() => r(new Error('no answer in 30 s')), 30_000));
      expect((await Promise.race([noTrial, silence])).message).toBe('wave w has no trial load (dry_run_first is not set)');
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

  // The switch's part (domain/plan-gates.ts supplyGate): the plan reads the wave run's meter points every
  // poll after the run has ended (6 h here), for days, until the numbers decide.
  const POLL_MS = 6 * 60 * MINUTE;
  /** Why `plan approve --gate exit` is refused now (the update's failure). */
  const refusal = async (handle: WorkflowHandle) =>
    ((await handle.executeUpdate(approveGate, { args: [{ wave: 'w', gate: 'exit', by: 'ops lead' }] }).catch((e: unknown) => e)) as Error).cause as
      Error | undefined;

  /** A one-wave plan of four accounts, one meter point each (`points`), its exit gate on the switch: 75% on supply, `maxDaysToSupply`. */
  async function switchWave(planId: string, prefix: string, points: (accounts: string[]) => SwitchModel, maxDaysToSupply: number) {
    const t0 = await env.currentTimeMs();
    const accounts = accountsOf(prefix, 4);
    const ledger = new Ledger(accounts, new Set(), points(accounts));
    const worker = await startWorker(ledger);
    const handle = await startPlan({
      planId,
      accounts: 4,
      concurrency: 4,
      windows: [{ start: iso(t0), end: iso(t0 + DAY) }],
      supply: { minOnSupplyRate: 0.75, maxDaysToSupply },
      exitSignOff: 'ops lead',
      pollSeconds: POLL_MS / 1000,
      continueAsNewAtEvents: 10_000,
    });
    return { t0, ledger, worker, handle };
  }
  const onSupplyIn2Days = { after: 2 * DAY, outcome: 'on_supply' as const };

  it('a switch wave waits for its meter points; one followed past max_days_to_supply ends it in exit_not_met, and the exit sign-off is refused', async () => {
    const planId = 'plan-switch-stuck';
    // Three points on supply two days after their first read; the fourth never reaches a final state.
    const on = onSupplyIn2Days;
    const { t0, ledger, worker, handle } = await switchWave(planId, 'SWX', (a) => ({ [a[0]]: on, [a[1]]: on, [a[2]]: on, [a[3]]: 'never' }), 5);
    try {
      await waitForStatus(planId, 'the run started', (x) => x.waves[0].state !== 'pending');
      // A day on: the run ended hours ago; every point is still followed, the exit gate waits on them.
      await skipPolls(t0 + DAY, POLL_MS);
      let s = await waitForStatus(planId, 'the wave waiting for its switch', (x) => x.waves[0].state === 'waiting_supply');
      expect(s.waves[0].accounts).toMatchObject({ completed: 4, failed: 0 });
      expect(s.waves[0].gates.exit).toMatchObject({ state: 'pending', supply: { points: 4, on_supply: 0, waiting: 4, over_max_days: 0, on_supply_rate: 0 } });
      expect((await refusal(handle))?.message).toBe("wave w's exit gate does not wait for a sign-off now (the wave is waiting_supply)");
      // Three days on: 75% on supply meets min_on_supply_rate, but one point is still followed within max_days_to_supply.
      await skipPolls(t0 + 3 * DAY, POLL_MS);
      s = await waitForStatus(planId, 'three points on supply', (x) => x.waves[0].gates.exit.supply?.on_supply === 3);
      expect(s.waves[0]).toMatchObject({ state: 'waiting_supply', gates: { exit: { supply: { waiting: 1, over_max_days: 0, on_supply_rate: 0.75 } } } });
      // The plan's page in the Temporal UI says the same under Current details.
      const page = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      expect(page.currentDetails).toContain('switch: 3 of 4 meter points on supply, 1 waiting, 0 over max days');
      // Past five days since its first read (and one poll): exit_not_met, for good.
      await skipPolls(t0 + 5 * DAY + POLL_MS + 10 * MINUTE, POLL_MS);
      s = await waitForStatus(planId, 'the exit gate not met', (x) => x.waves[0].state === 'exit_not_met');
      expect(s.waves[0].gates.exit).toMatchObject({ state: 'not_met', supply: { points: 4, on_supply: 3, waiting: 1, over_max_days: 1 } });
      expect((await refusal(handle))?.message).toBe(
        "wave w's exit gate is not met: 1 of 4 meter points followed more than max_days_to_supply 5 days without a final state",
      );
      // Then the plan reads the switch no more: a day later, the same reads and the same state.
      const reads = ledger.supplyReads.length;
      expect(reads).toBeGreaterThan(15);
      await skipTo(t0 + 7 * DAY);
      expect((await waitForStatus(planId, 'the plan two days later', () => true)).waves[0].state).toBe('exit_not_met');
      expect(ledger.supplyReads.length).toBe(reads);
      // No read came before the run had ended: the first after its accounts' outcomes.
      expect(ledger.supplyReads[0]).toBeGreaterThan(Math.max(...ledger.dispatchedAt.values()) + ACCOUNT_MS);
    } finally {
      await handle.executeUpdate(controlPlan, { args: [{ action: 'cancel' }] }).catch(() => {});
      await worker.stop();
    }
  }, 180_000);

  it('a switch wave whose points all end with enough on supply meets its gate, and the exit is signed off', async () => {
    const planId = 'plan-switch-met';
    const on = onSupplyIn2Days;
    const objected = { after: 3 * DAY, outcome: 'objected' as const };
    const { t0, ledger, worker, handle } = await switchWave(planId, 'SWM', (a) => ({ [a[0]]: on, [a[1]]: on, [a[2]]: on, [a[3]]: objected }), 10);
    try {
      await waitForStatus(planId, 'the run started', (x) => x.waves[0].state !== 'pending');
      await skipPolls(t0 + 3 * DAY + POLL_MS + 10 * MINUTE, POLL_MS);
      const s = await waitForStatus(planId, 'the exit sign-off asked for', (x) => x.waves[0].state === 'waiting_exit_sign_off');
      expect(s.waves[0].gates.exit).toMatchObject({
        state: 'waiting',
        supply: { points: 4, on_supply: 3, waiting: 0, over_max_days: 0, on_supply_rate: 0.75 },
      });
      await handle.executeUpdate(approveGate, { args: [{ wave: 'w', gate: 'exit', by: 'ops lead' }] });
      expect((await handle.result()).waves[0]).toMatchObject({ state: 'completed', gates: { exit: { state: 'approved', approved_by: 'ops lead' } } });
      expectOneOutcomeEach(ledger);
    } finally {
      await handle.executeUpdate(controlPlan, { args: [{ action: 'cancel' }] }).catch(() => {});
      await worker.stop();
    }
  }, 180_000);

  // The supplier census (domain/census.ts), taken once by the plan when the wave's run has ended.
  it('a census over its maximum ends the wave in exit_not_met and the exit sign-off is refused with its counts; within them, the wave completes', async () => {
    for (const [planId, finds, state] of [
      ['plan-census-over', { platformOnly: 2, ledgerOnly: 0 }, 'exit_not_met'],
      ['plan-census-within', { platformOnly: 0, ledgerOnly: 1 }, 'waiting_exit_sign_off'],
    ] as const) {
      const t0 = await env.currentTimeMs();
      const accounts = accountsOf(planId === 'plan-census-over' ? 'CNO' : 'CNW', 3);
      const ledger = new Ledger(accounts, new Set(), {}, finds);
      const worker = await startWorker(ledger);
      const handle = await startPlan({
        planId,
        accounts: 3,
        concurrency: 3,
        windows: [{ start: iso(t0), end: iso(t0 + DAY) }],
        census: { maxPlatformOnly: 0, maxLedgerOnly: 1 },
        exitSignOff: 'ops lead',
        pollSeconds: 300,
        continueAsNewAtEvents: 10_000,
      });
      try {
        await skipPastActivities(t0 + 10 * MINUTE);
        const s = await waitForStatus(planId, `the wave in ${state}`, (x) => x.waves[0].state === state);
        expect(s.waves[0].gates.exit.census).toMatchObject({
          platform_only: finds.platformOnly,
          ledger_only: finds.ledgerOnly,
          max_platform_only: 0,
          max_ledger_only: 1,
        });
        // One census, of the wave's supplier, after its run had ended.
        expect(ledger.censuses.map((c) => c.supplierCode)).toEqual(['SUPPLIER-T']);
        expect(ledger.censuses[0].at).toBeGreaterThan(Math.max(...ledger.dispatchedAt.values()) + ACCOUNT_MS);
        if (state === 'exit_not_met') {
          expect(s.waves[0].gates.exit.state).toBe('not_met');
          expect((await refusal(handle))?.message).toBe(
            `wave w's exit gate is not met: supplier census ${s.waves[0].gates.exit.census!.taken_at}: platform only 2 (max_platform_only 0), ledger only 0 (max_ledger_only 1)`,
          );
        } else {
          await handle.executeUpdate(approveGate, { args: [{ wave: 'w', gate: 'exit', by: 'ops lead' }] });
          expect((await handle.result()).waves[0].state).toBe('completed');
        }
      } finally {
        await handle.executeUpdate(controlPlan, { args: [{ action: 'cancel' }] }).catch(() => {});
        await worker.stop();
      }
    }
  }, 180_000);
});

describe("a wave's entry gate", () => {
  it('a wave skipped while its accounts are in flight ends skipped, not at its exit gate', async () => {
    const { planId, ledger, worker, handle } = await fortyInFlight('plan-skip', 'SKIP');
    try {
      await handle.executeUpdate(controlPlan, { args: [{ action: 'skip', wave: 'w' }] });
      const result = await handle.result();
      expect(result.waves[0]).toMatchObject({ state: 'skipped', gates: { exit: { approved_by: null } } });
      expect(ledger.dispatchedAt.size).toBeLessThan(40);
      // `plan skip` cancels the wave's run (docs/plan.md): it drains and ends cancelled, the accounts
      // it had not started recorded not attempted, however long the window stays open.
      await expectRunCancelled(`${planId}.w`, ledger);
    } finally {
      await handle.executeUpdate(controlPlan, { args: [{ action: 'cancel' }] }).catch(() => {});
      await worker.stop();
    }
  }, 180_000);

  it('a wave skipped during its trial load ends skipped: the trial run is cancelled and the real run never starts', async () => {
    const t0 = await env.currentTimeMs();
    const ledger = new Ledger(accountsOf('TSKIP', 40));
    const planId = 'plan-trial-skip';
    const worker = await startWorker(ledger);
    const handle = await startPlan({
      planId,
      accounts: 40,
      concurrency: 2,
      windows: [{ start: iso(t0), end: iso(t0 + DAY) }],
      trialMinPassRate: 1,
      pollSeconds: 300,
      continueAsNewAtEvents: 10_000,
    });
    try {
      await skipPastActivities(t0 + 6 * MINUTE);
      await waitForStatus(planId, 'the trial load in flight', (x) => x.waves[0].state === 'dry_run' && (x.waves[0].dry_run?.accounts.in_flight ?? 0) > 0);
      await handle.executeUpdate(controlPlan, { args: [{ action: 'skip', wave: 'w' }] });
      expect((await handle.result()).waves[0].state).toBe('skipped');
      // `plan skip` cancels the run under way (docs/plan.md), a trial load's too: it ends cancelled
      // (awaiting it skips time: a trial left going would run every account).
      const trial = await env.client.workflow.getHandle<typeof migrationRunWorkflow>(runWorkflowId(`${planId}.w.trial-1`)).result();
      expect(trial.state).toBe('cancelled');
      expect(trial.totals.dispatched).toBeLessThan(40);
      expect(await realRunStarted(planId)).toBe(false);
    } finally {
      await handle.executeUpdate(controlPlan, { args: [{ action: 'cancel' }] }).catch(() => {});
      await worker.stop();
    }
  }, 180_000);

  it("plan cancel cancels the wave's run under way: it ends cancelled, the accounts it had not started never are", async () => {
    const { planId, ledger, worker, handle } = await fortyInFlight('plan-cancel', 'CANCEL');
    try {
      await handle.executeUpdate(controlPlan, { args: [{ action: 'cancel' }] });
      expect((await handle.result()).waves[0].state).toBe('cancelled');
      await expectRunCancelled(`${planId}.w`, ledger);
    } finally {
      await worker.stop();
    }
  }, 180_000);

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
      expect(await realRunStarted(planId)).toBe(false);
      // Signed off: now the real run starts, and the wave ends.
      await handle.executeUpdate(approveGate, { args: [{ wave: 'w', gate: 'entry', by: 'ops lead' }] });
      await skipPastActivities(t0 + 30 * MINUTE);
      await waitForStatus(planId, 'the wave completed', (x) => x.waves[0].state === 'completed');
      expect(await realRunStarted(planId)).toBe(true);
    } finally {
      await handle.executeUpdate(controlPlan, { args: [{ action: 'cancel' }] }).catch(() => {});
      await worker.stop();
    }
  }, 180_000);
});

/** Whether the plan's wave `w` started its real run (not a trial load). */
function realRunStarted(planId: string): Promise<boolean> {
  return env.client.workflow
    .getHandle(runWorkflowId(`${planId}.w`))
    .describe()
    .then(
      () => true,
      () => false,
    );
}

/** The run ends cancelled (awaiting it skips time: a run left going would dispatch them all), every account with one outcome. */
async function expectRunCancelled(runId: string, ledger: Ledger): Promise<void> {
  const run = await env.client.workflow.getHandle<typeof migrationRunWorkflow>(runWorkflowId(runId)).result();
  expect(run.state).toBe('cancelled');
  expect(run.totals.dispatched).toBeLessThan(ledger.accounts.length);
  expect(run.totals.notAttempted).toBe(ledger.accounts.length - run.totals.dispatched);
  expectOneOutcomeEach(ledger);
}

/**
 * A one-wave plan of forty minutes of accounts, two at a time, its exit signed off by the ops lead,
 * once its accounts are in flight (the plan's poll every 5 minutes sees them).
 */
async function fortyInFlight(planId: string, prefix: string) {
  const t0 = await env.currentTimeMs();
  const ledger = new Ledger(accountsOf(prefix, 40));
  const worker = await startWorker(ledger);
  const handle = await startPlan({
    planId,
    accounts: 40,
    concurrency: 2,
    windows: [{ start: iso(t0), end: iso(t0 + DAY) }],
    exitSignOff: 'ops lead',
    pollSeconds: 300,
    continueAsNewAtEvents: 10_000,
  });
  await skipPastActivities(t0 + 6 * MINUTE);
  await waitForStatus(planId, 'accounts in flight', (x) => x.waves[0].accounts.in_flight > 0);
  return { planId, ledger, worker, handle };
}
