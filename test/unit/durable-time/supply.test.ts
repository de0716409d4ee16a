import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supplyActivities } from '../../../activities/supply';
import type { FlowAnswer, MeterPointStatusRead } from '../../../clients/platform/registration';
import { FAILURE_CONVERTER_PATH } from '../../../codec/data-converter';
import { resendRegistrationSignal } from '../../../domain/messages';
import { isFinalStatus, type FlowHistory, type PointOutcome } from '../../../domain/supply';
import { platformTaskQueue } from '../../../domain/task-queues';
import { supplyWorkflowId } from '../../../domain/workflow-ids';
import type { accountSupplyWorkflow, SupplyOutcome } from '../../../workflows/supply';
import { startTimeSkipping, type TimeSkipping } from './time-skipping';

/**
 * A switch under durable time, on Temporal's time-skipping test server: ten days of server time in
 * seconds. The real supply workflow and its real activity (activities/supply.ts: read first, send
 * only when every point should get one, record) run on real workers; the tenant is a small model
 * here whose meter points move on server time by cohort, and the ledger is in memory. One account's
 * points are objected to and sent again by the operator, one refuses the flow, one ends half on
 * supply; the workers are restarted in the middle. Every point ends once, no flow reaches a point in
 * progress, and the history cost per day waited is measured (docs/supply.md).
 */

const TQ = 'supply-time';
const DAY = 86_400_000;
const SUPPLIER = 'SUPPLIER-S';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

let ts: TimeSkipping | undefined;
beforeAll(async () => {
  ts = await startTimeSkipping();
  ({ env, bundle } = ts);
}, 180_000);

afterAll(async () => {
  await ts?.stop();
});

type Cohort = 'supply' | 'object' | 'reject' | 'refuse';
/** Days after an accepted flow at which a point reaches each status. */
const PATHS: Record<Exclude<Cohort, 'refuse'>, Array<[number, string]>> = {
  supply: [
    [0, 'REGISTRATION_REQUESTED'],
    [2, 'REGISTRATION_ACCEPTED'],
    [4, 'ON_SUPPLY'],
  ],
  object: [
    [0, 'REGISTRATION_REQUESTED'],
    [1, 'REGISTRATION_ACCEPTED'],
    [2, 'OBJECTION_RECEIVED'],
    [3, 'REGISTRATION_OBJECTED'],
  ],
  reject: [
    [0, 'REGISTRATION_REQUESTED'],
    [2, 'REGISTRATION_REJECTED'],
  ],
};

/** The tenant: each point's timeline on server time, a cohort per flow it accepts, every flow it was sent. */
class Tenant {
  readonly timelines = new Map<string, Array<[number, string]>>();
  readonly flows: Array<{ account: string; at: number; statuses: Record<string, string> }> = [];
  constructor(readonly accounts: Record<string, Record<string, Cohort[]>>) {}

  private status(mpxn: string, now: number): string {
    let s = 'PRE_REGISTRATION';
    for (const [at, status] of this.timelines.get(mpxn) ?? []) if (at <= now) s = status;
    return s;
  }

  platform() {
    return {
      meterPointStatuses: async (_supplier: string, ext: string): Promise<MeterPointStatusRead[] | undefined> => {
        const now = await env.currentTimeMs();
        return Object.keys(this.accounts[ext]).map((mpxn) => ({ mpxn, status: this.status(mpxn, now) }));
      },
      sendRegistrationFlows: async (_supplier: string, ext: string): Promise<FlowAnswer[] | undefined> => {
        const now = await env.currentTimeMs();
        const points = this.accounts[ext];
        this.flows.push({ account: ext, at: now, statuses: Object.fromEntries(Object.keys(points).map((m) => [m, this.status(m, now)])) });
        return Object.entries(points).map(([mpxn, cohorts]): FlowAnswer => {
          const cohort = cohorts.shift() ?? 'supply';
          if (cohort === 'refuse') return { mpxn, sent: false, errorDetail: 'TEN not current supplier' };
          this.timelines.set(mpxn, [...(this.timelines.get(mpxn) ?? []), ...PATHS[cohort].map(([d, s]): [number, string] => [now + d * DAY, s])]);
          return { mpxn, sent: true };
        });
      },
    };
  }
}

/** The supply ledger in memory, with every outcome each point was given, in order. */
class Ledger {
  readonly points = new Map<string, { status: string; outcome?: PointOutcome; history: FlowHistory }>();
  readonly outcomes = new Map<string, PointOutcome[]>();
  ledger() {
    const set = (mpxn: string, outcome: PointOutcome | undefined) => {
      const p = this.points.get(mpxn)!;
      if (outcome !== undefined && p.outcome !== outcome) this.outcomes.set(mpxn, [...(this.outcomes.get(mpxn) ?? []), outcome]);
      p.outcome = outcome;
    };
    return {
      flowHistory: async () => new Map([...this.points].map(([m, p]) => [m, p.history])),
      recordStatuses: async (_ref: unknown, points: ReadonlyArray<{ mpxn: string; status: string; outcome: PointOutcome | undefined }>) => {
        for (const p of points) {
          if (!this.points.has(p.mpxn)) this.points.set(p.mpxn, { status: p.status, history: { flowRefused: false } });
          this.points.get(p.mpxn)!.status = p.status;
          set(p.mpxn, p.outcome);
        }
      },
      recordFlowAnswers: async (_ref: unknown, answers: ReadonlyArray<{ mpxn: string; sent: boolean }>) => {
        for (const a of answers) {
          this.points.get(a.mpxn)!.history = { flowRefused: !a.sent };
          set(a.mpxn, a.sent ? undefined : 'flow_refused');
        }
      },
    };
  }
}

async function startWorkers(tenant: Tenant, ledger: Ledger): Promise<{ stop(): Promise<void> }> {
  const common = { connection: env.nativeConnection, namespace: 'default', dataConverter: { failureConverterPath: FAILURE_CONVERTER_PATH } };
  // No workflow cache, so no sticky queue: this server leaves a stopped worker's sticky tasks where
  // only that worker would take them (test/unit/durable-time/cutover-plan.test.ts says so).
  const main = await Worker.create({ ...common, taskQueue: TQ, workflowBundle: bundle, activities: {}, maxCachedWorkflows: 0 });
  const platform = await Worker.create({
    ...common,
    taskQueue: platformTaskQueue(TQ),
    activities: supplyActivities({ ledger: ledger.ledger(), platform: tenant.platform() }),
  });
  const running = Promise.all([main.run(), platform.run()]);
  return {
    async stop() {
      main.shutdown();
      platform.shutdown();
      await running;
    },
  };
}

const input = (ext: string) => ({
  runId: 'run-s',
  supplierCode: SUPPLIER,
  externalAccountNumber: ext,
  accountNumber: `A-${ext}`,
  pollMinSeconds: 3600,
  pollMaxSeconds: 6 * 3600,
});
const start = (ext: string) =>
  env.client.workflow.start<typeof accountSupplyWorkflow>('accountSupplyWorkflow', {
    taskQueue: TQ,
    workflowId: supplyWorkflowId(SUPPLIER, ext),
    args: [input(ext)],
  });

const skipTo = async (t: number) => env.sleep(Math.max(0, t - (await env.currentTimeMs())));

describe('a switch over ten days of durable time', () => {
  it('an objection and a resend across a worker restart: every point ends once, no flow reaches a point in progress', async () => {
    const tenant = new Tenant({
      'ACC-1': { P1: ['object', 'supply'], P2: ['object', 'supply'] },
      'ACC-2': { P3: ['refuse'] },
      'ACC-3': { P4: ['supply'], P5: ['reject'] },
    });
    const ledger = new Ledger();
    let workers = await startWorkers(tenant, ledger);
    const t0 = await env.currentTimeMs();
    const [h1, h2, h3] = [await start('ACC-1'), await start('ACC-2'), await start('ACC-3')];

    await skipTo(t0 + 5 * DAY);
    expect(Object.fromEntries([...ledger.points].map(([m, p]) => [m, p.status]))).toEqual({
      P1: 'REGISTRATION_OBJECTED',
      P2: 'REGISTRATION_OBJECTED',
      P3: 'PRE_REGISTRATION',
      P4: 'ON_SUPPLY',
      P5: 'REGISTRATION_REJECTED',
    });
    // The refused flow and the half-supplied account are left to the operator: their follows ended.
    expect(await h2.result()).toMatchObject({ supply: 'ended', points: [{ mpxn: 'P3', status: 'PRE_REGISTRATION', outcome: 'flow_refused' }] });
    expect(await h3.result()).toMatchObject({
      supply: 'ended',
      points: [
        { mpxn: 'P4', outcome: 'on_supply' },
        { mpxn: 'P5', outcome: 'rejected' },
      ],
    });

    // The follow of ACC-1 ended with both points objected. Their cause is cleared: the operator asks
    // for a resend (a signal-with-start: it starts the account's follow again); then the workers restart.
    const first = await h1.result();
    expect(first).toMatchObject({ supply: 'ended', points: [{ outcome: 'objected' }, { outcome: 'objected' }] });
    const again = await env.client.workflow.signalWithStart<typeof accountSupplyWorkflow, [{ statuses: string[] }]>('accountSupplyWorkflow', {
      taskQueue: TQ,
      workflowId: supplyWorkflowId(SUPPLIER, 'ACC-1'),
      args: [input('ACC-1')],
      signal: resendRegistrationSignal,
      signalArgs: [{ statuses: ['REGISTRATION_OBJECTED'] }],
    });
    await skipTo(t0 + 6 * DAY);
    await workers.stop();
    workers = await startWorkers(tenant, ledger);
    await skipTo(t0 + 10 * DAY);
    const r1: SupplyOutcome = await again.result();
    await workers.stop();

    expect(r1).toMatchObject({
      supply: 'on_supply',
      points: [
        { mpxn: 'P1', status: 'ON_SUPPLY', outcome: 'on_supply' },
        { mpxn: 'P2', status: 'ON_SUPPLY', outcome: 'on_supply' },
      ],
    });
    // Each point's outcomes, in order: one final each time its switch ended.
    expect(Object.fromEntries(ledger.outcomes)).toEqual({
      P1: ['objected', 'on_supply'],
      P2: ['objected', 'on_supply'],
      P3: ['flow_refused'],
      P4: ['on_supply'],
      P5: ['rejected'],
    });
    // Flows: ACC-1's first and its resend, ACC-2's and ACC-3's first; never while a point was on its way.
    expect(tenant.flows.map((f) => f.account).sort()).toEqual(['ACC-1', 'ACC-1', 'ACC-2', 'ACC-3']);
    for (const f of tenant.flows) {
      for (const [mpxn, s] of Object.entries(f.statuses))
        expect([f.account, mpxn, s === 'PRE_REGISTRATION' || isFinalStatus(s)]).toEqual([f.account, mpxn, true]);
    }
    expect(tenant.flows.filter((f) => f.account === 'ACC-1').map((f) => f.statuses)).toEqual([
      { P1: 'PRE_REGISTRATION', P2: 'PRE_REGISTRATION' },
      { P1: 'REGISTRATION_OBJECTED', P2: 'REGISTRATION_OBJECTED' },
    ]);

    // The cost of waiting: ACC-1's two follows waited seven days (three to the objections, four from
    // the resend to supply; nothing ran between them).
    const events = [...((await h1.fetchHistory()).events ?? []), ...((await again.fetchHistory()).events ?? [])];
    const days = 7;
    const type = temporal.api.enums.v1.EventType;
    const count = (t: temporal.api.enums.v1.EventType) => events.filter((e) => e.eventType === t).length;
    const actions =
      count(type.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) +
      count(type.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) +
      count(type.EVENT_TYPE_TIMER_STARTED) +
      count(type.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
    console.log(`supply cost: ${events.length} history events, ${actions} actions, ${first.reads + r1.reads} reads over ${days} days waited`);
    // Bounded by the back-off (1 h doubling to 6 h; back to 1 h after each flow sent): about five reads
    // a day of about nine events each. A read every hour would be over 200 events a day.
    expect(events.length / days).toBeLessThan(70);
    expect(actions / days).toBeLessThan(15);
  }, 180_000);
});
