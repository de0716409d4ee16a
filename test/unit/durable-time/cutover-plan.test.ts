import { describe, expect, it } from 'vitest';
import { controlPlan } from '../../../domain/plan-messages';
import {
  expectOneOutcomeEach,
  FAIL_CODE,
  iso,
  Ledger,
  logs,
  accountsOf,
  skipPastActivities,
  skipTo,
  startPlan,
  startWorker,
  useTimeSkippingServer,
  waitForStatus,
} from './plan-time';

/**
 * The cutover plan under durable time (./plan-time.ts: Temporal's time-skipping test server, the real
 * plan and run workflows, an in-memory ledger): windows and a daily cap across local midnight on a
 * clock change, stop the line and continue-as-new mid-wave. The same plan runs end to end on the
 * real stack in test/e2e/pipeline/cutover-plan.test.ts.
 *
 * Not under test/unit/workflows/: Stryker runs those against every mutant (this one takes seconds and a
 * Java server).
 */

useTimeSkippingServer();

/** The local date in London of an instant, by the platform's own Intl (not the luxon the product uses). */
const londonDay = (t: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London', year: 'numeric', month: '2-digit', day: '2-digit' }).format(t);

describe('the cutover plan under durable time (time-skipping test server)', () => {
  it('a daily cap across local midnight on the October clock change, stop the line and continue-as-new mid-wave', async () => {
    // Saturday 30 October 2027, noon in London: the clocks go back at 02:00 BST the next night.
    await skipTo(Date.parse('2027-10-30T11:00:00Z'));
    const accounts = accountsOf('CAP', 14);
    // The 5th and 6th accounts fail on the platform: max_same_code 2 stops the line after them.
    const ledger = new Ledger(accounts, new Set([accounts[4], accounts[5]]));
    const planId = 'plan-cap';
    const worker = await startWorker(ledger);
    const handle = await startPlan({
      planId,
      accounts: 14,
      concurrency: 2,
      windows: [{ from: '22:00', to: '05:00', first: '2027-10-30', last: '2027-11-02' }],
      dailyCap: 4,
      maxSameCode: 2,
      pollSeconds: 1800,
      // A few polls' worth: the plan continues as new many times, mid-wave.
      continueAsNewAtEvents: 60,
    });
    const firstRunId = handle.firstExecutionRunId;
    try {
      // The windows on the wall clock, as UTC instants worked out by hand: the first night is 8 hours long.
      const nights = [
        { start: Date.parse('2027-10-30T21:00:00Z'), end: Date.parse('2027-10-31T05:00:00Z') },
        { start: Date.parse('2027-10-31T22:00:00Z'), end: Date.parse('2027-11-01T05:00:00Z') },
        { start: Date.parse('2027-11-01T22:00:00Z'), end: Date.parse('2027-11-02T05:00:00Z') },
        { start: Date.parse('2027-11-02T22:00:00Z'), end: Date.parse('2027-11-03T05:00:00Z') },
      ];

      // What `plan status` says while nothing is dispatched: outside the windows, waiting for one; at
      // 23:30 BST, the day's cap of 4 used inside the window, capped.
      const between = (x: { waves: { state: string }[] }) => ['waiting_window', 'capped', 'out_of_windows', 'running'].includes(x.waves[0].state);
      let s = await waitForStatus(planId, 'the wave before its first window', between);
      expect(s.waves[0].state).toBe('waiting_window');
      await skipTo(Date.parse('2027-10-30T22:30:00Z'));
      s = await waitForStatus(planId, "the day's cap used", (x) => between(x) && x.waves[0].started_today === 4);
      expect(s.waves[0].state).toBe('capped');

      // 00:30 BST: the cap of 4 was used by 22:00-midnight; at midnight a fresh allowance of the 31st
      // dispatched the 5th and 6th, which failed: the line stopped.
      await skipTo(Date.parse('2027-10-30T23:30:00Z'));
      s = await waitForStatus(planId, 'the line stops', (x) => x.waves[0].state === 'stopped_line');
      expect(s.waves[0].stop_line).toEqual({
        tripped: true,
        reason: `stop the line: 2 platform-side failures in a row with code ${FAIL_CODE} (max_same_code 2)`,
      });
      expect(s.waves[0].started_today).toBe(2);
      const stoppedAt = ledger.dispatchedAt.size;
      expect(stoppedAt).toBe(6);
      // The run said why in the worker's log: the code, how many, the sample accounts.
      const warn = logs.find((l) => l.level === 'WARN' && l.message.startsWith('stop the line:'));
      expect(warn?.message).toBe(`stop the line: 2 platform-side failures in a row with code ${FAIL_CODE} (max_same_code 2)`);
      expect(warn?.meta).toMatchObject({ runId: `${planId}.w`, rule: 'max_same_code', code: FAIL_CODE, count: 2, sampleAccounts: [accounts[4], accounts[5]] });

      // Hours pass while the line is stopped, across the clock change (01:00 BST to 01:00 GMT): the plan
      // continues as new meanwhile and keeps the stop, the cap's count and the windows; nothing is dispatched.
      await skipTo(Date.parse('2027-10-31T03:00:00Z'));
      s = await waitForStatus(planId, 'the plan still stopped after continuing as new', (x) => x.waves[0].state === 'stopped_line');
      expect((await handle.describe()).runId).not.toBe(firstRunId);
      expect(s.waves[0]).toMatchObject({ started_today: 2, daily_cap: 4, stop_line: { tripped: true } });
      expect(s.waves[0].windows.slice(0, 2)).toEqual(nights.slice(0, 2).map((n) => ({ start: iso(n.start), end: iso(n.end) })));
      expect(ledger.dispatchedAt.size).toBe(stoppedAt);

      // The operator fixed the cause and resumes: the 31st's remaining allowance (2), then the cap holds to the next midnight in a window.
      await handle.executeUpdate(controlPlan, { args: [{ action: 'resume', wave: 'w' }] });
      // Once the 31st's night has ended, its cap spent: the wave waits for the next window.
      await skipPastActivities(Date.parse('2027-10-31T04:00:00Z'));
      await skipTo(Date.parse('2027-10-31T12:00:00Z'));
      s = await waitForStatus(planId, 'the wave between nights', (x) => between(x) && x.waves[0].started_today === 4);
      expect(s.waves[0].state).toBe('waiting_window');
      const result = await handle.result();
      expect(result.state).toBe('completed');
      expect(result.waves[0]).toMatchObject({ state: 'completed', accounts: { started: 14, completed: 12, failed: 2, not_attempted: 0 } });

      const times = accounts.map((a) => ledger.dispatchedAt.get(a)!);
      // Every account dispatched inside a window…
      for (const [i, t] of times.entries())
        expect(
          nights.some((n) => t >= n.start && t < n.end),
          `${accounts[i]} at ${iso(t)}`,
        ).toBe(true);
      // …at most 4 a local day, the 31st counted across the clock change, and none while the line was stopped.
      const perDay = new Map<string, number>();
      for (const t of times) perDay.set(londonDay(t), (perDay.get(londonDay(t)) ?? 0) + 1);
      expect(Object.fromEntries(perDay)).toEqual({ '2027-10-30': 4, '2027-10-31': 4, '2027-11-01': 4, '2027-11-02': 2 });
      expect(times.slice(6).every((t) => t >= Date.parse('2027-10-31T03:00:00Z'))).toBe(true);
      // After the 31st's cap, the evening window of the 31st waits for midnight (the next day's allowance).
      expect(times.slice(8, 12).every((t) => t >= Date.parse('2027-11-01T00:00:00Z'))).toBe(true);
      expectOneOutcomeEach(ledger);
    } finally {
      await handle.executeUpdate(controlPlan, { args: [{ action: 'cancel' }] }).catch(() => {});
      await worker.stop();
    }
  }, 180_000);
});
