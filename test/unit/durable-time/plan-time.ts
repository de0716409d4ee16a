import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, type LogEntry, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, expect } from 'vitest';
import { planActivities } from '../../../activities/plan';
import type { RunActivities } from '../../../activities/types';
import { FAILURE_CONVERTER_PATH } from '../../../codec/data-converter';
import { migrationRunInputSchema, type AccountOutcome } from '../../../domain/inputs';
import { emptyCensusCounts, type CensusCounts } from '../../../domain/census';
import type { RecordedCensus } from '../../../ledger/census';
import { planStatusQuery, type PlanArgs, type PlanStatus } from '../../../domain/plan-messages';
import { planWorkflowId, runWorkflowId } from '../../../domain/workflow-ids';
import type { cutoverPlanWorkflow } from '../../../workflows/cutover-plan';
import type { migrationRunWorkflow } from '../../../workflows/migration-run';
import { startTimeSkipping, type TimeSkipping } from './time-skipping';

/**
 * The plan and run workflows under durable time, on Temporal's time-skipping test server (the Java
 * SDK's, harness/stack/temporal-test-server.ts): days pass in seconds. The plan, its wave's real
 * migration run workflow and the plan's real activities run on a real worker; only the run's ledger
 * activities are a small in-memory ledger here (an account "takes" one minute of server time).
 * Shared by the files of this folder (one server each).
 *
 * A worker that is down while a window opens is tested on the real stack instead
 * (test/e2e/pipeline/cutover-plan-worker-down.test.ts): this server holds its clock while a workflow
 * task waits for a worker (it locks time skipping per pending task), so no time passes with none up,
 * and it leaves a stopped worker's sticky tasks on its sticky queue (a restarted worker hangs it).
 */

export const TQ = 'plan-time';
export const MINUTE = 60_000;
/** Server time an account takes from dispatch to its recorded outcome. */
export const ACCOUNT_MS = MINUTE;
export const FAIL_CODE = 'agreement_product_not_found';

let ts: TimeSkipping | undefined;
export let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
export const logs: LogEntry[] = [];

/** Starts Temporal's time-skipping test server for the file's tests, one worker bundle, and stops them after. */
export function useTimeSkippingServer(): void {
  beforeAll(async () => {
    // Workflow log lines (log.warn of stop the line) are asserted below: the runtime's logger collects them.
    Runtime.install({ logger: new DefaultLogger('WARN', (e) => logs.push(e)) });
    ts = await startTimeSkipping();
    ({ env, bundle } = ts);
  }, 180_000);

  afterAll(async () => {
    worker?.shutdown();
    await worker?.running;
    await ts?.stop();
  });
}

export const DAY = 24 * 60 * MINUTE;

/**
 * A switch as the ledger sees it (migrate.supply_meter_points): one meter point per completed account,
 * first read when the account completed, reaching `outcome` that long after (never: still followed).
 */
export type SwitchModel = Record<string, { after: number; outcome: 'on_supply' | 'objected' } | 'never'>;

/** The run's ledger, in memory: when each account was dispatched (server time) and its one outcome. */
export class Ledger {
  readonly dispatchedAt = new Map<string, number>();
  readonly outcomes = new Map<string, AccountOutcome[]>();
  /** The switch's reads of the plan's exit gate (planSupplyGate), in server time. */
  readonly supplyReads: number[] = [];
  /** The supplier censuses the plan's exit gate took (takeSupplierCensus): when, of which supplier. */
  readonly censuses: Array<{ at: number; supplierCode: string }> = [];
  constructor(
    readonly accounts: string[],
    readonly failing: Set<string> = new Set(),
    readonly switchModel: SwitchModel = {},
    /** What a census of the supplier finds (the counts of the tenant's lists against the ledger). */
    readonly censusFinds: Partial<CensusCounts> = {},
  ) {}

  /** A supplier census as activities/census.ts records it, with the counts this ledger was given. */
  async census({ supplierCode, stuckAfterSeconds }: { supplierCode: string; stuckAfterSeconds: number }): Promise<RecordedCensus> {
    const t = await env.currentTimeMs();
    this.censuses.push({ at: t, supplierCode });
    return { supplierCode, takenAt: iso(t), stuckAfterSeconds, counts: { ...emptyCensusCounts(), ...this.censusFinds } };
  }

  /** The plan's exit-gate read of the switch (activities/plan.ts planSupplyGate), counted as the ledger's SQL counts. */
  async supplyGate({ maxDaysToSupply }: { runId: string; maxDaysToSupply: number | null }) {
    const t = await env.currentTimeMs();
    this.supplyReads.push(t);
    const c = { points: 0, onSupply: 0, waiting: 0, overMaxDays: 0 };
    for (const [a, point] of Object.entries(this.switchModel)) {
      if (this.outcomes.get(a)?.[0]?.outcome !== 'completed') continue;
      const firstRead = this.dispatchedAt.get(a)! + ACCOUNT_MS;
      c.points++;
      if (point !== 'never' && t >= firstRead + point.after) {
        if (point.outcome === 'on_supply') c.onSupply++;
      } else {
        c.waiting++;
        if (maxDaysToSupply !== null && t - firstRead > maxDaysToSupply * DAY) c.overMaxDays++;
      }
    }
    return { readAt: iso(t), ...c };
  }

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
/**
 * One worker for the whole file, its run activities on the ledger of the test under way: a worker
 * started after another was stopped hangs this server (the stopped one's sticky queue, above).
 */
let ledgerNow: Ledger | undefined;
let worker: { shutdown(): void; running: Promise<void> } | undefined;

export async function startWorker(ledger: Ledger): Promise<{ stop(): Promise<void> }> {
  ledgerNow = ledger;
  if (!worker) {
    const plan = planActivities({
      temporal: async () => env.client,
      config: { TEMPORAL_TASK_QUEUE: TQ } as never,
      pool: undefined as never,
    });
    const run = Object.fromEntries(
      Object.keys(new Ledger([]).activities()).map((name) => [
        name,
        (...args: unknown[]) => (ledgerNow!.activities() as unknown as Record<string, (...a: unknown[]) => unknown>)[name](...args),
      ]),
    );
    const w = await Worker.create({
      connection: env.nativeConnection,
      namespace: 'default',
      taskQueue: TQ,
      workflowBundle: bundle,
      dataConverter: { failureConverterPath: FAILURE_CONVERTER_PATH },
      activities: {
        ...run,
        ...timed({
          ...plan,
          // The switch's numbers from the test's ledger (the SQL behind them: test/unit/ledger-sql/supply-gate.test.ts).
          planSupplyGate: (input: { runId: string; maxDaysToSupply: number | null }) => ledgerNow!.supplyGate(input),
          // The census's lists and SQL are proved by test/e2e/cli/supplier-census.test.ts; here, the counts it found.
          takeSupplierCensus: (input: { supplierCode: string; stuckAfterSeconds: number }) => ledgerNow!.census(input),
        }),
        recordPlanSignOff: async (s: { planId: string; wave: string; gate: 'entry' | 'exit'; signedBy: string; note: string | null }) => ({
          ...s,
          signedAt: new Date(await env.currentTimeMs()).toISOString(),
        }),
      },
    });
    worker = { shutdown: () => w.shutdown(), running: w.run() };
  }
  // Stopped once, after the last test (afterAll).
  return { stop: async () => {} };
}

/** When (server time) each of the plan's remote activities ended: its next nap is timed from the last (skipPolls). */
export const planActivityEnds: number[] = [];

function timed<T extends object>(acts: T): T {
  return Object.fromEntries(
    Object.entries(acts).map(([name, fn]) => [
      name,
      async (...args: unknown[]) => {
        const r = await (fn as (...a: unknown[]) => Promise<unknown>)(...args);
        planActivityEnds.push(await env.currentTimeMs());
        return r;
      },
    ]),
  ) as T;
}

/**
 * skipTo `t` across a plan that naps `pollMs` between looks: one jump to just before its next look,
 * then skipPastActivities over it (its remote activities run while the clock moves), and so on. Days
 * of polls in a few seconds, never skipping over an activity in flight.
 */
export async function skipPolls(t: number, pollMs: number): Promise<void> {
  await until(() => planActivityEnds.length > 0);
  for (;;) {
    const next = planActivityEnds.at(-1)! + pollMs;
    if (next >= t) return skipTo(t);
    const seen = planActivityEnds.length;
    await skipTo(next - 2000);
    await skipPastActivities(next + 30_000);
    await until(() => planActivityEnds.length > seen);
  }
}

/** Waits (real time, up to 30 s) for what a worker does while the clock stands. */
async function until(ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

/** A run's input as a plan's wave (or a test) starts it. */
export function runArgs(o: {
  runId: string;
  concurrency: number;
  maxSameCode?: number;
  dispatch?: { limit: number | null; until: number | null };
  continueAsNewAtEvents?: number;
}) {
  return migrationRunInputSchema.parse({
    runId: o.runId,
    supplierCode: 'SUPPLIER-T',
    source: { kind: 'postgres' },
    selection: { kind: 'all' },
    concurrency: o.concurrency,
    // Idle, the run looks at its supplier hourly: days of server time cost few workflow tasks.
    timings: { supplierRecheckSeconds: 3600 },
    stopLine: { enabled: true, maxSameCode: o.maxSameCode ?? 20 },
    ...(o.dispatch ? { dispatch: o.dispatch } : {}),
    ...(o.continueAsNewAtEvents ? { continueAsNewAtEvents: o.continueAsNewAtEvents } : {}),
  });
}

export function planArgs(o: {
  planId: string;
  accounts: number;
  concurrency: number;
  windows: PlanArgs['waves'][number]['windows'];
  dailyCap?: number;
  maxSameCode?: number;
  minReconciledRate?: number;
  entrySignOff?: string;
  supply?: PlanArgs['waves'][number]['supply'];
  census?: PlanArgs['waves'][number]['census'];
  exitSignOff?: string;
  /** dry_run_first: trial loads (`<planId>.w.trial-N`) with this minimum pass rate. */
  trialMinPassRate?: number;
  pollSeconds: number;
  continueAsNewAtEvents: number;
}): PlanArgs {
  const run = runArgs({ runId: `${o.planId}.w`, concurrency: o.concurrency, maxSameCode: o.maxSameCode });
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
        entrySignOff: o.entrySignOff ?? false,
        exitSignOff: o.exitSignOff ?? false,
        ...(o.trialMinPassRate !== undefined ? { trial: { run: { ...run, runId: `${o.planId}.w.trial` }, minPassRate: o.trialMinPassRate } } : {}),
        ...(o.minReconciledRate !== undefined ? { minReconciledRate: o.minReconciledRate } : {}),
        ...(o.supply ? { supply: o.supply } : {}),
        ...(o.census ? { census: o.census } : {}),
      },
    ],
    pollSeconds: o.pollSeconds,
    continueAsNewAtEvents: o.continueAsNewAtEvents,
  };
}

export const accountsOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
/** Advances the test server's clock to `t` (timers due meanwhile fire, workflow tasks run on the workers up). */
export const skipTo = async (t: number) => env.sleep(Math.max(0, t - (await env.currentTimeMs())));
export const iso = (t: number) => new Date(t).toISOString();
/**
 * skipTo in steps of 30 s: the plan's activities (remote, a minute's start-to-close) run while the
 * clock skips, and a longer skip times them out in skipped time (the plan then retries and the skip hangs).
 */
export async function skipPastActivities(t: number): Promise<void> {
  for (let at = await env.currentTimeMs(); at < t; at = await env.currentTimeMs()) await skipTo(Math.min(t, at + 30_000));
}
export async function waitForStatus(planId: string, what: string, ok: (s: PlanStatus) => boolean, timeoutMs = 60_000): Promise<PlanStatus> {
  const h = env.client.workflow.getHandle(planWorkflowId(planId));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await h.query(planStatusQuery);
    if (ok(s)) return s;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(s.waves[0])}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function expectOneOutcomeEach(ledger: Ledger): void {
  for (const a of ledger.accounts) expect(ledger.outcomes.get(a)?.length, a).toBe(1);
}

/** A one-wave plan started on the test's queue (its arguments: planArgs). */
export async function startPlan(o: Parameters<typeof planArgs>[0]) {
  return env.client.workflow.start<typeof cutoverPlanWorkflow>('cutoverPlanWorkflow', {
    workflowId: planWorkflowId(o.planId),
    taskQueue: TQ,
    args: [planArgs(o)],
  });
}

/** A wave's run started on its own: no plan to send it another bound, so only the run's own checks hold it. */
export async function startRun(runId: string, o: Omit<Parameters<typeof runArgs>[0], 'runId'>) {
  return env.client.workflow.start<typeof migrationRunWorkflow>('migrationRunWorkflow', {
    workflowId: runWorkflowId(runId),
    taskQueue: TQ,
    args: [runArgs({ runId, ...o })],
  });
}
