import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, type LogEntry, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planActivities } from '../../../activities/plan';
import type { RunActivities } from '../../../activities/types';
import { FAILURE_CONVERTER_PATH } from '../../../codec/data-converter';
import { migrationRunInputSchema, type AccountOutcome } from '../../../domain/inputs';
import { controlPlan, planStatusQuery, type PlanArgs, type PlanStatus } from '../../../domain/plan-messages';
import { planWorkflowId } from '../../../domain/workflow-ids';
import type { cutoverPlanWorkflow } from '../../../workflows/cutover-plan';
import { startTimeSkipping, type TimeSkipping } from './time-skipping';

/**
 * The cutover plan workflow under durable time, on Temporal's time-skipping test server (the Java
 * SDK's, harness/stack/temporal-test-server.ts): days pass in seconds. The plan, its wave's real
 * migration run workflow and the plan's real activities run on a real worker; only the run's ledger
 * activities are a small in-memory ledger here (an account "takes" one minute of server time), so the
 * test is about time: windows and a daily cap across local midnight on a clock change, stop the line
 * and continue-as-new mid-wave. The same plan runs end to end on the real stack in
 * test/e2e/pipeline/cutover-plan.test.ts.
 *
 * A worker that is down while a window opens is tested on the real stack instead
 * (test/e2e/pipeline/cutover-plan-worker-down.test.ts): this server holds its clock while a workflow
 * task waits for a worker (it locks time skipping per pending task), so no time passes with none up,
 * and it leaves a stopped worker's sticky tasks on its sticky queue (a restarted worker hangs it).
 *
 * Not under test/unit/workflows/: Stryker runs those against every mutant (this one takes seconds and a
 * Java server).
 */

const TQ = 'plan-time';
const MINUTE = 60_000;
/** Server time an account takes from dispatch to its recorded outcome. */
const ACCOUNT_MS = MINUTE;
const FAIL_CODE = 'agreement_product_not_found';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
const logs: LogEntry[] = [];

let ts: TimeSkipping | undefined;
beforeAll(async () => {
  // Workflow log lines (log.warn of stop the line) are asserted below: the runtime's logger collects them.
  Runtime.install({ logger: new DefaultLogger('WARN', (e) => logs.push(e)) });
  ts = await startTimeSkipping();
  ({ env, bundle } = ts);
}, 180_000);

afterAll(async () => {
  await ts?.stop();
});

/** The run's ledger, in memory: when each account was dispatched (server time) and its one outcome. */
class Ledger {
  readonly dispatchedAt = new Map<string, number>();
  readonly outcomes = new Map<string, AccountOutcome[]>();
  constructor(
    readonly accounts: string[],
    readonly failing: Set<string> = new Set(),
  ) {}

  record(o: AccountOutcome): void {
    this.outcomes.set(o.externalAccountNumber, [...(this.outcomes.get(o.externalAccountNumber) ?? []), o]);
  }

  activities(): RunActivities {
    const now = () => env.currentTimeMs();
    return {
      registerRun: async () => {},
      finishRun: async () => {},
      wakeAccounts: async () => {},
      listAccounts: async ({ cursor, limit }) => {
        const from = Number(cursor ?? 0);
        const page = this.accounts.slice(from, from + limit);
        return { accounts: page, nextCursor: String(from + page.length), exhausted: from + page.length >= this.accounts.length };
      },
      startAccounts: async ({ externalAccountNumbers }) => {
        const t = await now();
        return externalAccountNumbers.map((a) => {
          if (!this.dispatchedAt.has(a)) this.dispatchedAt.set(a, t);
          return { externalAccountNumber: a, started: true as const };
        });
      },
      settleAccounts: async ({ externalAccountNumbers }) => {
        const t = await now();
        const outcomes: AccountOutcome[] = [];
        for (const a of externalAccountNumbers) {
          const at = this.dispatchedAt.get(a);
          if (at === undefined || t < at + ACCOUNT_MS) continue;
          if (!this.outcomes.has(a))
            this.record(
              this.failing.has(a)
                ? { externalAccountNumber: a, outcome: 'failed', stage: 'platform', code: FAIL_CODE, source: 'event' }
                : { externalAccountNumber: a, outcome: 'completed', stage: 'await', source: 'event' },
            );
          outcomes.push(this.outcomes.get(a)![0]);
        }
        return { outcomes, supplierStatus: 'ONGOING' };
      },
      recordRemainingNotAttempted: async ({ buffer, cursor, exhausted }) => {
        const rest = [...buffer, ...(exhausted ? [] : this.accounts.slice(Number(cursor ?? 0)))];
        for (const a of rest) this.record({ externalAccountNumber: a, outcome: 'not_attempted', stage: 'guard', code: 'run_cancelled', source: 'local' });
        return rest.length;
      },
    };
  }
}

/** A worker for the plan and its run: the real workflows and plan activities, the in-memory ledger. */
async function startWorker(ledger: Ledger): Promise<{ stop(): Promise<void> }> {
  const plan = planActivities({
    temporal: async () => env.client,
    config: { TEMPORAL_TASK_QUEUE: TQ } as never,
    pool: undefined as never,
  });
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: 'default',
    taskQueue: TQ,
    workflowBundle: bundle,
    dataConverter: { failureConverterPath: FAILURE_CONVERTER_PATH },
    activities: {
      ...ledger.activities(),
      ...plan,
      recordPlanSignOff: async (s: { planId: string; wave: string; gate: 'entry' | 'exit'; signedBy: string; note: string | null }) => ({
        ...s,
        signedAt: new Date(await env.currentTimeMs()).toISOString(),
      }),
    },
  });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}

function planArgs(o: {
  planId: string;
  accounts: number;
  concurrency: number;
  windows: PlanArgs['waves'][number]['windows'];
  dailyCap?: number;
  maxSameCode?: number;
  pollSeconds: number;
  continueAsNewAtEvents: number;
}): PlanArgs {
  const run = migrationRunInputSchema.parse({
    runId: `${o.planId}.w`,
    supplierCode: 'SUPPLIER-T',
    source: { kind: 'postgres' },
    selection: { kind: 'all' },
    concurrency: o.concurrency,
    // Idle, the run looks at its supplier hourly: days of server time cost few workflow tasks.
    timings: { supplierRecheckSeconds: 3600 },
    stopLine: { enabled: true, maxSameCode: o.maxSameCode ?? 20 },
  });
  return {
    planId: o.planId,
    name: o.planId,
    timezone: 'Europe/London',
    waves: [
      {
        name: 'w',
        run,
        windows: o.windows,
        ...(o.dailyCap !== undefined ? { dailyCap: o.dailyCap } : {}),
        planned: o.accounts,
        entrySignOff: false,
        exitSignOff: false,
      },
    ],
    pollSeconds: o.pollSeconds,
    continueAsNewAtEvents: o.continueAsNewAtEvents,
  };
}

const accountsOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
/** Advances the test server's clock to `t` (timers due meanwhile fire, workflow tasks run on the workers up). */
const skipTo = async (t: number) => env.sleep(Math.max(0, t - (await env.currentTimeMs())));
const iso = (t: number) => new Date(t).toISOString();
/** The local date in London of an instant, by the platform's own Intl (not the luxon the product uses). */
const londonDay = (t: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London', year: 'numeric', month: '2-digit', day: '2-digit' }).format(t);

async function waitForStatus(planId: string, what: string, ok: (s: PlanStatus) => boolean, timeoutMs = 60_000): Promise<PlanStatus> {
  const h = env.client.workflow.getHandle(planWorkflowId(planId));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await h.query(planStatusQuery);
    if (ok(s)) return s;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(s.waves[0])}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function expectOneOutcomeEach(ledger: Ledger): void {
  for (const a of ledger.accounts) expect(ledger.outcomes.get(a)?.length, a).toBe(1);
}

describe('the cutover plan under durable time (time-skipping test server)', () => {
  it('a daily cap across local midnight on the October clock change, stop the line and continue-as-new mid-wave', async () => {
    // Saturday 30 October 2027, noon in London: the clocks go back at 02:00 BST the next night.
    await skipTo(Date.parse('2027-10-30T11:00:00Z'));
    const accounts = accountsOf('CAP', 14);
    // The 5th and 6th accounts fail on the platform: max_same_code 2 stops the line after them.
    const ledger = new Ledger(accounts, new Set([accounts[4], accounts[5]]));
    const planId = 'plan-cap';
    const worker = await startWorker(ledger);
    const handle = await env.client.workflow.start<typeof cutoverPlanWorkflow>('cutoverPlanWorkflow', {
      workflowId: planWorkflowId(planId),
      taskQueue: TQ,
      args: [
        planArgs({
          planId,
          accounts: 14,
          concurrency: 2,
          windows: [{ from: '22:00', to: '05:00', first: '2027-10-30', last: '2027-11-02' }],
          dailyCap: 4,
          maxSameCode: 2,
          pollSeconds: 1800,
          // A few polls' worth: the plan continues as new many times, mid-wave.
          continueAsNewAtEvents: 60,
        }),
      ],
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

      // 00:30 BST: the cap of 4 was used by 22:00-midnight; at midnight a fresh allowance of the 31st
      // dispatched the 5th and 6th, which failed: the line stopped.
      await skipTo(Date.parse('2027-10-30T23:30:00Z'));
      let s = await waitForStatus(planId, 'the line stops', (x) => x.waves[0].state === 'stopped_line');
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
