import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  setWorkflowOptions,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { SupplyPlatformActivities } from '../activities/supply';
import { SUPPLY_READ } from './activity-options';
import { importEventSignal, resendRegistrationSignal, supplyPointsSignal } from '../domain/messages';
import { isLifecycleEvent } from '../domain/event-types';
import { accountSupplyOf, followEnded, nextPollSeconds, type SupplyFollowInput, type SupplyRead } from '../domain/supply';
import { platformTaskQueue } from '../domain/task-queues';
import { supplyWorkflowId } from '../domain/workflow-ids';
import type { AccountImportInput, AccountOutcome } from '../domain/inputs';
import { accountSwitchDetails } from './account-details';

/** How long a switch account waits, after its follow starts, for the follow's first read to name its points on its page. */
const POINTS_WAIT = '1 minute';

/** History length at which the follow continues as new (reads are about nine events each). */
const CONTINUE_AT_EVENTS = 2_000;

export interface SupplyOutcome {
  supply: 'on_supply' | 'ended' | 'no_meter_points';
  points: SupplyRead['points'];
  reads: number;
}

/**
 * Follows one account's switch to the end: reads every meter point's status, sends the account's
 * flows once when domain/supply.ts says so, and reads again after a back-off suited to days
 * (SUPPLY_POLL_MIN_SECONDS doubling to SUPPLY_POLL_MAX_SECONDS), at once when a lifecycle event
 * nudges it (a lost event only means the timer reads it). Ends when the tool has left every point.
 * Timers only while waiting: a worker down for a day loses nothing, the next read happens when one is back.
 */
export async function accountSupplyWorkflow(input: SupplyFollowInput): Promise<SupplyOutcome> {
  const platform = proxyActivities<SupplyPlatformActivities>({
    ...SUPPLY_READ,
    taskQueue: platformTaskQueue(workflowInfo().taskQueue),
    summary: 'read meter point statuses; send registration flows when due',
  });
  const st = input.state ?? { reads: 0, resend: [], startedAt: Date.now() };
  let nudged = false;
  // The events router signals a lifecycle event as it signals an import event: a nudge to read now.
  setHandler(importEventSignal, (e) => {
    if (isLifecycleEvent(e.type)) nudged = true;
  });
  setHandler(resendRegistrationSignal, ({ statuses }) => {
    st.resend = [...new Set([...st.resend, ...statuses])];
    nudged = true;
  });

  for (;;) {
    const resend = st.resend;
    st.resend = [];
    const read = await platform.followSupply({
      runId: input.runId,
      supplierCode: input.supplierCode,
      externalAccountNumber: input.externalAccountNumber,
      accountNumber: input.accountNumber,
      workflowId: workflowInfo().workflowId,
      resend,
    });
    st.reads += 1;
    // The account that started this follow names its points on its page (startSupplyFollow waits for them).
    const parent = workflowInfo().parent;
    if (st.reads === 1 && parent && patched('supply-points-to-account'))
      await getExternalWorkflowHandle(parent.workflowId, parent.runId)
        .signal(supplyPointsSignal, { points: read.points })
        .catch(() => undefined);
    const changed = nudged || read.sent > 0;
    nudged = false;
    if (followEnded(read) && st.resend.length === 0) {
      const supply = read.noMeterPoints ? 'no_meter_points' : accountSupplyOf(read.points.map((p) => p.status)) === 'on_supply' ? 'on_supply' : 'ended';
      setCurrentDetails(`**Switch ${supply.replace(/_/g, ' ')}** after ${st.reads} reads.`);
      return { supply, points: read.points, reads: st.reads };
    }
    st.delaySeconds = nextPollSeconds(st.delaySeconds, changed, { min: input.pollMinSeconds, max: input.pollMaxSeconds });
    const waiting = read.points.filter((p) => p.outcome === undefined);
    setCurrentDetails(
      [
        `**Waiting for ${waiting.length} of ${read.points.length} meter points to reach a final state** (read ${st.reads}; next read in ${st.delaySeconds} s, or at once on a lifecycle event).`,
        '',
        ...waiting.map((p) => `- \`${p.mpxn}\`: ${p.status}`),
      ].join('\n'),
    );
    await condition(() => nudged, `${st.delaySeconds} seconds`);
    if (workflowInfo().historyLength > CONTINUE_AT_EVENTS || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof accountSupplyWorkflow>({ ...input, state: st });
    }
  }
}

/** Whether the recorded outcome starts a follow of the account's meter points: a switch that created the account. */
export function followsSupply(input: AccountImportInput, outcome: AccountOutcome): outcome is AccountOutcome & { accountNumber: string } {
  if (input.sendRegistrationFlows !== true || outcome.accountNumber === undefined) return false;
  return outcome.outcome === 'completed' || outcome.outcome === 'completed_with_differences';
}

/**
 * After the account's outcome is recorded, on a switch (`followsSupply`): starts the follow of its
 * meter points as a workflow of its own (abandoned by the account, which ends now; the follow may take weeks).
 */
export async function startSupplyFollow(input: AccountImportInput, outcome: AccountOutcome & { accountNumber: string }): Promise<void> {
  const followId = supplyWorkflowId(input.supplierCode, input.externalAccountNumber);
  // The account's page names the points the follow waits for: its first read, signalled back (accounts started before: none).
  const namePoints = patched('supply-points-on-account-page');
  let points: SupplyRead['points'] | undefined;
  if (namePoints) setHandler(supplyPointsSignal, (s) => void (points = s.points));
  await startChild(accountSupplyWorkflow, {
    workflowId: followId,
    args: [
      {
        runId: input.runId,
        supplierCode: input.supplierCode,
        externalAccountNumber: input.externalAccountNumber,
        accountNumber: outcome.accountNumber,
        pollMinSeconds: input.timings.supplyPollMinSeconds,
        pollMaxSeconds: input.timings.supplyPollMaxSeconds,
      },
    ],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    staticSummary: `Switch of ${input.supplierCode}/${input.externalAccountNumber}`,
  });
  if (!namePoints) return;
  const ref = { supplierCode: input.supplierCode, externalAccountNumber: input.externalAccountNumber, runId: input.runId };
  setCurrentDetails(accountSwitchDetails(outcome, ref, followId, undefined));
  // Bounded: a follow slow to read (a busy platform queue) leaves the page naming the follow alone.
  await condition(() => points !== undefined, POINTS_WAIT);
  setCurrentDetails(accountSwitchDetails(outcome, ref, followId, points));
}

// Worker Versioning: a follow lasts weeks, longer than a worker version should be kept, so it moves to
// the current version at its next task (AUTO_UPGRADE, as the run does); a change to this loop must
// replay its older histories (patched).
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, accountSupplyWorkflow);
