import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  executeChild,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  setWorkflowOptions,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { ACCOUNT_LOCAL, EXPLAIN_CALL, PLATFORM_CALL, RECORD_OUTCOME, scheduleAwaitingEvent } from './activity-options';
import type { AccountActivities, PlatformActivities, PrepareResult, ScheduleOutcome } from '../activities/types';
import type { PostImportPlatformActivities } from '../activities/post-import';
import { accountDeltaWorkflow } from './post-import';
import { accountDeltaWorkflowId } from '../domain/workflow-ids';
import type { AccountImportInput, AccountOutcome, ImportEventSignal, SupplierStatus } from '../domain/inputs';
import { accountProgressQuery, importEventSignal, supplierStatusSignal } from '../domain/messages';
import { isTerminalStatus, outcomeOf, type Ending } from '../domain/outcomes';
import { isTerminalEvent } from '../domain/event-types';
import { eventAfterSchedule, eventWaitLeft, type Accepted } from '../domain/event-wait';
import type { OutcomeFacts } from '../domain/final-outcome';
import { failedWhileStaging } from '../domain/step-results';
import type { AccountStage } from '../domain/stages';
import { platformTaskQueue } from '../domain/task-queues';
import { KmErrorCode, KmOutcome, KmStage } from '../domain/search-attributes';
import { accountDetails, SUMMARIES, type AccountStep } from './account-details';
import { followsSupply, startSupplyFollow } from './supply';

/** The same local activities, with a summary the UI's timeline shows (user metadata: not checked on replay). */
const localWith = (summary: string) => proxyLocalActivities<AccountActivities>({ ...ACCOUNT_LOCAL, summary });
const recorder = proxyLocalActivities<AccountActivities>({ ...RECORD_OUTCOME, summary: SUMMARIES.record });

type Stage = AccountStage;

/**
 * One account, one durable execution, in six steps: prepare → stage documents → await an ongoing
 * supplier → schedule → await the outcome → record. Each step is a function below; the workflow
 * gathers facts (the ending, the platform's explanation, its own read-back) and the record step alone
 * decides the outcome from them (domain/final-outcome.ts). Fails as a workflow when the account fails, so the UI's Failed
 * filter lists failed accounts. Search attributes are set by the starter; this workflow upserts
 * only when the account does not complete. The live stage is served by the progress query.
 */
export async function accountImportWorkflow(input: AccountImportInput): Promise<AccountOutcome> {
  const ref = { runId: input.runId, externalAccountNumber: input.externalAccountNumber, supplierCode: input.supplierCode, dryRun: input.dryRun };
  const live: { stage: Stage; waitingOnSupplier: boolean; outcome?: AccountOutcome } = { stage: 'prepare', waitingOnSupplier: false };
  let event: ImportEventSignal | undefined;
  let supplierSignal: SupplierStatus | undefined;
  // The platform queue is derived from this workflow's own queue (deterministic), so a deployment's
  // or a test's workers run only their own platform calls.
  const platformQueue = platformTaskQueue(workflowInfo().taskQueue);
  const platform = (summary: string, options = PLATFORM_CALL) => proxyActivities<PlatformActivities>({ ...options, taskQueue: platformQueue, summary });
  const explain = proxyActivities<PlatformActivities>({ ...EXPLAIN_CALL, taskQueue: platformQueue, summary: SUMMARIES.explain });
  // Reading the account back before changes are carried over: a platform call like the others.
  const readBack = proxyActivities<PostImportPlatformActivities>({ ...PLATFORM_CALL, taskQueue: platformQueue, summary: SUMMARIES.readBack });
  // The account page's "current details": the step and what it waits for (served by the SDK's
  // metadata query, so it costs no history event and replays without a command).
  const detailsRef = { supplierCode: input.supplierCode, externalAccountNumber: input.externalAccountNumber, runId: input.runId };
  const show = (step: AccountStep) => setCurrentDetails(accountDetails(step, detailsRef));

  setHandler(importEventSignal, (e) => {
    // At-least-once delivery: the first terminal event wins, duplicates are ignored.
    if (event === undefined && isTerminalEvent(e.type, input.dryRun)) event = e;
  });
  setHandler(supplierStatusSignal, ({ status }) => {
    supplierSignal = status;
  });
  setHandler(accountProgressQuery, () => ({ stage: live.stage, waitingOnSupplier: live.waitingOnSupplier, outcome: live.outcome }));

  const created = (o: AccountOutcome) => o.outcome === 'completed' && !input.dryRun && o.accountNumber !== undefined;
  const reconcile = input.reconcile !== false;

  // Every step returns its activity's promise and a rare branch (a parked supplier, a late event,
  // carry-over, a switch) is entered only when taken: the SDK records a source-mapped stack trace
  // for each promise a workflow creates (docs/throughput.md, "Where the cost goes").
  const o = outcomeOf(input.externalAccountNumber, await importAccount());
  const recorded = await record(created(o) && input.carryOverChanges ? await carryOver(o) : { outcome: o, readBack: reconcile && created(o) });
  // On a switch, the created account's meter points are followed to supply by a workflow of their own (workflows/supply.ts).
  if (followsSupply(input, recorded)) await startSupplyFollow(input, recorded);
  return recorded;

  async function importAccount(): Promise<Ending> {
    try {
      const prepared = await prepare();
      if (!prepared.ok) return { step: 'prepare', result: prepared };
      // Prepare stages the documents itself and answers `staged` (activities/prepare.ts). No patch:
      // the choice follows the recorded answer, and an older history's prepare marker has no
      // `staged`, so its replay calls stageDocuments as it did (the schedule step's argument, below).
      const staged = prepared.staged ?? (prepared.documentCount > 0 ? await stageDocuments() : undefined);
      if (staged?.ok === false) return { step: 'documents', result: staged };
      live.stage = 'guard';
      const supplier = prepared.supplierStatus === 'PAUSED' ? await awaitOngoingSupplier('PAUSED') : prepared.supplierStatus;
      if (supplier === 'COMPLETE') return { step: 'guard', supplier: 'COMPLETE' };
      const first = await schedule();
      const scheduled = first.kind === 'supplier_not_ongoing' ? await scheduleOnceOngoing() : first;
      if (scheduled === 'COMPLETE') return { step: 'guard', supplier: 'COMPLETE' };
      if (scheduled.kind !== 'accepted') return { step: 'schedule', result: scheduled };
      return eventNow(scheduled) ?? (await awaitOutcome(scheduled));
    } catch (e) {
      // An activity gave up (retries exhausted or a non-retryable error): the account still gets
      // its one recorded outcome, with the failure's type as the code. A local activity's failure
      // arrives as its own ApplicationFailure: sdk-core wraps only its timeouts and cancellations
      // in an ActivityFailure (local_activity_state_machine.rs); nothing else here throws one.
      if (!(e instanceof ActivityFailure || e instanceof ApplicationFailure)) throw e;
      const gaveUp = e instanceof ActivityFailure ? e.cause : e;
      const cause = gaveUp instanceof ApplicationFailure ? gaveUp : undefined;
      // Prepare marks a failure of its staging: the account fails at `documents`, as it did when staging was a step of its own.
      return { step: 'activity_failed', stage: failedWhileStaging(cause?.details) ? 'documents' : live.stage, code: cause?.type ?? 'activity_failed' };
    }
  }

  /** 1. Source → transform → validate; the payload is written to the ledger, history sees the summary. */
  function prepare(): Promise<PrepareResult> {
    live.stage = 'prepare';
    show({ step: 'prepare' });
    return localWith(SUMMARIES.prepare).prepareAccount({
      ...ref,
      source: input.source,
      workflowId: workflowInfo().workflowId,
      sendRegistrationFlows: input.sendRegistrationFlows === true,
    });
  }

  /** 2. Documents must be in the platform bucket before the platform checks their paths (histories older than prepare's staging). */
  function stageDocuments() {
    live.stage = 'documents';
    show({ step: 'documents' });
    return localWith(SUMMARIES.stageDocuments).stageDocuments(ref);
  }

  /** 3. Free while the supplier is ongoing (not called); otherwise parked until the operator's signal or a recheck says so. */
  async function awaitOngoingSupplier(known: SupplierStatus): Promise<'ONGOING' | 'COMPLETE'> {
    live.stage = 'guard';
    let status = known;
    while (status === 'PAUSED') {
      live.waitingOnSupplier = true;
      show({ step: 'guard', recheckSeconds: input.timings.supplierRecheckSeconds });
      supplierSignal = undefined;
      await condition(() => supplierSignal !== undefined, `${input.timings.supplierRecheckSeconds} seconds`, { summary: SUMMARIES.supplierRecheck });
      status = await localWith(SUMMARIES.supplierStatus).getSupplierStatus({ supplierCode: input.supplierCode });
    }
    live.waitingOnSupplier = false;
    return status;
  }

  /**
   * 4. Tariff pre-flight and the schedule call (one platform activity). The activity also waits for
   * the event (domain/event-wait.ts). Replay needs no patch: an older history's answer carries
   * neither an event nor `waited`, so the same commands follow.
   */
  function schedule(): Promise<ScheduleOutcome> {
    live.stage = 'schedule';
    show({ step: 'schedule' });
    const waitSeconds = input.timings.eventWaitSeconds;
    return platform(SUMMARIES.schedule, scheduleAwaitingEvent(waitSeconds)).scheduleAccount({ ...ref, window: input.window, awaitEventSeconds: waitSeconds });
  }

  /** A refusal for the supplier (the platform's, or the ledger's mirror) parks the account like any account of a paused supplier. */
  async function scheduleOnceOngoing(): Promise<Exclude<ScheduleOutcome, { kind: 'supplier_not_ongoing' }> | 'COMPLETE'> {
    let scheduled: ScheduleOutcome;
    do {
      await localWith(SUMMARIES.recordSupplierNotOngoing).recordSupplierNotOngoing({ supplierCode: input.supplierCode });
      if ((await awaitOngoingSupplier('PAUSED')) === 'COMPLETE') return 'COMPLETE';
      scheduled = await schedule();
    } while (scheduled.kind === 'supplier_not_ongoing');
    return scheduled;
  }

  /** 5. The platform's event when it is already here: the schedule activity's answer, else signalled by the events router. */
  function eventNow(accepted: Accepted): Ending | undefined {
    live.stage = 'await';
    event = eventAfterSchedule(accepted, event, input.dryRun);
    return event === undefined ? undefined : { step: 'event', event };
  }

  /** 5'. Otherwise the event on a timer, else the inbox, else status polling with backoff. */
  async function awaitOutcome(accepted: Accepted): Promise<Ending> {
    const window = input.window;
    // The wait's timer is never cancelled: when the event wins, the workflow ends with the timer
    // pending, which costs no TimerCanceled event. No timer when the activity's own wait ran out.
    if (event === undefined && eventWaitLeft(accepted)) {
      show({ step: 'await', window, phase: 'event', waitSeconds: input.timings.eventWaitSeconds });
      await Promise.race([condition(() => event !== undefined), sleep(`${input.timings.eventWaitSeconds} seconds`, { summary: SUMMARIES.eventWait })]);
    }
    if (event !== undefined) return { step: 'event', event };

    show({ step: 'await', window, phase: 'inbox' });
    const kept = await localWith(SUMMARIES.inbox).claimInboxEvent(ref);
    if (kept && isTerminalEvent(kept.type, input.dryRun)) return { step: 'event', event: kept };

    const deadline = Date.now() + input.timings.pollMaxSeconds * 1000;
    let delaySeconds = 5;
    for (let polls = 1; Date.now() <= deadline; polls++) {
      const status = await platform(SUMMARIES.importStatus).getImportStatus(ref);
      if (isTerminalStatus(status, input.dryRun)) return { step: 'poll', status };
      show({ step: 'await', window, phase: 'poll', lastStatus: status.status, polls, nextPollSeconds: delaySeconds });
      if (await condition(() => event !== undefined, `${delaySeconds} seconds`, { summary: SUMMARIES.pollBackoff })) return { step: 'event', event: event! };
      delaySeconds = Math.min(delaySeconds * 2, 300);
    }
    return { step: 'timeout' };
  }

  /**
   * After `complete`, when the run carries changes over: read the account back first (the carry-over
   * changes what the platform shows), then carry the changes since extraction over as a child
   * workflow. Neither re-imports anything. Without carry-over the record step does the read-back:
   * no activity, no workflow task of its own (history events per account are the cost at scale).
   */
  async function carryOver(o: AccountOutcome): Promise<OutcomeFacts> {
    const facts: OutcomeFacts = { outcome: o, readBack: false };
    if (reconcile) {
      live.stage = 'reconcile';
      show({ step: 'reconcile' });
      try {
        facts.reconciliation = await readBack.reconcileAccount({ ...ref, accountNumber: o.accountNumber!, checkedBy: 'workflow' });
      } catch (e) {
        // The account exists: a read-back that cannot be done leaves it completed and unchecked (`run reconcile` later).
        if (!(e instanceof ActivityFailure)) throw e;
      }
    }
    live.stage = 'post-import';
    show({ step: 'post-import' });
    // Item outcomes are in the ledger; a failing carry-over never changes the account's outcome.
    await executeChild(accountDeltaWorkflow, {
      workflowId: accountDeltaWorkflowId(input.supplierCode, input.externalAccountNumber, input.runId),
      args: [
        {
          deltaId: input.runId,
          runId: input.runId,
          supplierCode: input.supplierCode,
          externalAccountNumber: input.externalAccountNumber,
          accountNumber: o.accountNumber!,
          source: input.source,
          eventWaitSeconds: input.timings.eventWaitSeconds,
        },
      ],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    }).catch(() => undefined);
    return facts;
  }

  /**
   * 6. The one recorded outcome (after the read-back, when asked); a failed account also fails the
   * workflow (and says so in search attributes).
   */
  async function record(facts: OutcomeFacts): Promise<AccountOutcome> {
    const o0 = facts.outcome;
    if (o0.outcome === 'failed' && o0.code === 'import_process_failed_validation' && (o0.source === 'event' || o0.source === 'poll')) {
      try {
        const why = await explain.explainFailedValidation(ref);
        if (why.attr) facts = { ...facts, explainedAttr: why.attr };
      } catch (e) {
        if (!(e instanceof ActivityFailure)) throw e;
      }
    }
    live.stage = facts.readBack ? 'reconcile' : 'record';
    show({ step: 'record' });
    const o = await recorder.recordOutcome({ ...ref, ...facts });
    live.stage = 'record';
    live.outcome = o;
    show({ step: 'record', outcome: o });
    if (o.outcome === 'completed') return o;
    upsertSearchAttributes([{ key: KmStage, value: o.stage }, { key: KmOutcome, value: o.outcome }, ...(o.code ? [{ key: KmErrorCode, value: o.code }] : [])]);
    // Created, but the read-back differs: visible in the UI, not a failed execution.
    if (o.outcome === 'completed_with_differences') return o;
    const where = o.attr ? ` at ${o.attr}` : '';
    throw ApplicationFailure.nonRetryable(`${o.outcome} at ${o.stage}: ${o.code}${where}`, o.code ?? 'account_failed', {
      externalAccountNumber: o.externalAccountNumber,
      outcome: o.outcome,
      stage: o.stage,
      code: o.code,
      attr: o.attr,
    });
  }
}

// Worker Versioning: an account finishes on the version that started it (PINNED), so a change of
// its steps never meets a half-done account; an old version's workers stay until none is left
// (`kraken-migrate workers` counts them).
setWorkflowOptions({ versioningBehavior: 'PINNED' }, accountImportWorkflow);
