import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { MainActivities, PlatformActivities } from '../activities/types';
import type { AccountImportInput, AccountOutcome, ImportEventSignal, SupplierStatus } from './inputs';
import { accountFinishedSignal, accountProgressQuery, importEventSignal, supplierNotOngoingSignal, supplierStatusSignal } from './messages';
import { PLATFORM_TASK_QUEUE } from './task-queues';
import { KmAccount, KmErrorCode, KmKind, KmOutcome, KmRunId, KmStage, KmSupplier } from './search-attributes';

// Ledger, source and S3 work: retried until it works, except for the errors that say it never will.
// Short start-to-close timeouts: a crashed worker's activities are retried elsewhere within seconds.
const main = proxyActivities<MainActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});
const documents = proxyActivities<MainActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 10 },
});
const local = proxyLocalActivities<MainActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 10 },
});
// Platform calls run on the rate-limited task queue. Transient failures (network, 5xx, 429) retry
// with backoff for up to a day; the activity marks final answers non-retryable.
const platform = proxyActivities<PlatformActivities>({
  taskQueue: PLATFORM_TASK_QUEUE,
  startToCloseTimeout: '45 seconds',
  scheduleToCloseTimeout: '24 hours',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '5 minutes', nonRetryableErrorTypes: ['platform_rejected', 'platform_auth_failed'] },
});

// Asking the validate endpoint why a process failed validation: it explains, never decides the outcome.
const explain = proxyActivities<PlatformActivities>({
  taskQueue: PLATFORM_TASK_QUEUE,
  startToCloseTimeout: '45 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['platform_rejected', 'platform_auth_failed'] },
});

const TERMINAL_EVENT_TYPES = {
  real: ['data_import.import_process.complete', 'data_import.import_process.error', 'data_import.import_process.cancelled'],
  dry: ['data_import.import_process.dry_run_complete', 'data_import.import_process.dry_run_error', 'data_import.import_process.cancelled'],
};

/**
 * One account, one durable execution: prepare (source → transform → validate → catalogue),
 * stage documents, wait while the supplier is not ongoing, schedule creation, await the outcome
 * (event, else status polling), record it. Fails as a workflow when the account fails, so the UI's
 * Failed filter lists failed accounts.
 */
export async function accountImportWorkflow(input: AccountImportInput): Promise<AccountOutcome> {
  const ext = input.externalAccountNumber;
  const ref = { runId: input.runId, externalAccountNumber: ext, supplierCode: input.supplierCode, dryRun: input.dryRun };
  let stage = 'prepare';
  let waitingOnSupplier = false;
  let supplierStatus: SupplierStatus | undefined;
  let event: ImportEventSignal | undefined;
  let outcome: AccountOutcome | undefined;
  const wanted = input.dryRun ? TERMINAL_EVENT_TYPES.dry : TERMINAL_EVENT_TYPES.real;

  setHandler(importEventSignal, (e) => {
    // At-least-once delivery: the first terminal event wins, duplicates are ignored.
    if (event === undefined && wanted.includes(e.type)) event = e;
  });
  setHandler(supplierStatusSignal, ({ status }) => {
    supplierStatus = status;
  });
  setHandler(accountProgressQuery, () => ({ stage, waitingOnSupplier, outcome }));

  const setStage = (s: string) => {
    stage = s;
    upsertSearchAttributes([{ key: KmStage, value: s }]);
  };
  upsertSearchAttributes([
    { key: KmKind, value: input.dryRun ? 'dry-run-account' : 'account' },
    { key: KmRunId, value: input.runId },
    { key: KmSupplier, value: input.supplierCode },
    { key: KmAccount, value: ext },
    { key: KmStage, value: stage },
  ]);

  const finish = async (o: AccountOutcome): Promise<AccountOutcome> => {
    if (o.outcome === 'failed' && o.code === 'import_process_failed_validation' && (o.source === 'event' || o.source === 'poll')) {
      try {
        const why = await explain.explainFailedValidation(ref);
        if (why.attr) o = { ...o, attr: why.attr };
      } catch (e) {
        if (!(e instanceof ActivityFailure)) throw e;
      }
    }
    outcome = o;
    await main.recordOutcome({ ...ref, outcome: o });
    upsertSearchAttributes([
      { key: KmStage, value: o.stage },
      { key: KmOutcome, value: o.outcome },
      ...(o.code ? [{ key: KmErrorCode, value: o.code }] : []),
    ]);
    if (input.runWorkflowId) await getExternalWorkflowHandle(input.runWorkflowId).signal(accountFinishedSignal, o);
    if (o.outcome !== 'completed') {
      const where = o.attr ? ` at ${o.attr}` : '';
      throw ApplicationFailure.nonRetryable(`${o.outcome} at ${o.stage}: ${o.code}${where}`, o.code ?? 'account_failed', {
        outcome: o.outcome,
        stage: o.stage,
        code: o.code,
        attr: o.attr,
      });
    }
    return o;
  };

  try {
    return await importAccount();
  } catch (e) {
    if (outcome || !(e instanceof ActivityFailure)) throw e;
    // An activity gave up (retries exhausted or a non-retryable error): the account still gets its
    // one recorded outcome, with the failure's type as the code.
    const cause = e.cause instanceof ApplicationFailure ? e.cause : undefined;
    return finish({ externalAccountNumber: ext, outcome: 'failed', stage, code: cause?.type ?? 'activity_failed', source: 'local' });
  }

  async function importAccount(): Promise<AccountOutcome> {
    // 1. Prepare: the payload is written to the ledger; history only sees the summary.
    const prepared = await main.prepareAccount({ ...ref, source: input.source, workflowId: workflowInfo().workflowId });
    if (!prepared.ok) {
      return finish({ externalAccountNumber: ext, outcome: 'failed', stage: prepared.stage, code: prepared.code, attr: prepared.attr, source: 'local' });
    }

    // 2. Documents must be in the platform bucket before the platform checks their paths.
    if (prepared.documentCount > 0) {
      setStage('documents');
      const staged = await documents.stageDocuments(ref);
      if (!staged.ok) {
        return finish({ externalAccountNumber: ext, outcome: 'failed', stage: 'documents', code: staged.code, attr: staged.attr, source: 'local' });
      }
    }

    // 3-4. Guard and schedule. A platform refusal for the supplier parks the account until resumed.
    for (;;) {
      setStage('guard');
      const guard = await waitForOngoingSupplier();
      if (guard === 'COMPLETE') {
        return finish({ externalAccountNumber: ext, outcome: 'not_attempted', stage: 'guard', code: 'import_supplier_migration_not_ongoing', source: 'local' });
      }
      setStage('schedule');
      const scheduled = await platform.scheduleAccountCreation({ ...ref, window: input.window });
      if (scheduled.kind === 'accepted') break;
      if (scheduled.kind === 'already_imported') {
        return finish({ externalAccountNumber: ext, outcome: 'completed', stage: 'schedule', accountNumber: scheduled.accountNumber, source: 'already_imported' });
      }
      if (scheduled.kind === 'validation_failed') {
        return finish({ externalAccountNumber: ext, outcome: 'failed', stage: 'schedule', code: scheduled.code, attr: scheduled.attr, source: 'platform_response' });
      }
      // supplier_not_ongoing: tell the run, then wait like any account of a paused supplier.
      await local.recordSupplierNotOngoing({ supplierCode: input.supplierCode });
      supplierStatus = 'PAUSED';
      if (input.runWorkflowId) await getExternalWorkflowHandle(input.runWorkflowId).signal(supplierNotOngoingSignal, { externalAccountNumber: ext });
    }

    // 5. Await the outcome: an event (maybe one that arrived before we got here), else poll.
    setStage('await');
    const early = await local.findInboxEvent(ref);
    if (early && event === undefined && wanted.includes(early.type)) event = early;
    if (event === undefined) await condition(() => event !== undefined, `${input.timings.eventWaitSeconds} seconds`);
    if (event !== undefined) return finish(fromEvent(ext, event));

    const deadline = Date.now() + input.timings.pollMaxSeconds * 1000;
    let delaySeconds = 5;
    for (;;) {
      const status = await platform.getImportStatus(ref);
      const polled = fromStatus(ext, status, input.dryRun);
      if (polled) return finish(polled);
      if (await condition(() => event !== undefined, `${delaySeconds} seconds`)) return finish(fromEvent(ext, event!));
      if (Date.now() > deadline) {
        return finish({ externalAccountNumber: ext, outcome: 'failed', stage: 'await', code: 'outcome_timeout', source: 'poll' });
      }
      delaySeconds = Math.min(delaySeconds * 2, 300);
    }
  }

  async function waitForOngoingSupplier(): Promise<'ONGOING' | 'COMPLETE'> {
    for (;;) {
      const status = await local.getSupplierStatus({ supplierCode: input.supplierCode });
      if (status !== 'PAUSED') {
        waitingOnSupplier = false;
        return status;
      }
      waitingOnSupplier = true;
      supplierStatus = undefined;
      await condition(() => supplierStatus !== undefined, `${input.timings.supplierRecheckSeconds} seconds`);
    }
  }
}

function fromEvent(ext: string, e: ImportEventSignal): AccountOutcome {
  if (e.type.endsWith('.complete') || e.type.endsWith('.dry_run_complete')) {
    return { externalAccountNumber: ext, outcome: 'completed', stage: 'await', accountNumber: e.identifier, source: 'event' };
  }
  if (e.type.endsWith('.cancelled')) {
    return { externalAccountNumber: ext, outcome: 'failed', stage: 'await', code: 'import_cancelled', source: 'event' };
  }
  return { externalAccountNumber: ext, outcome: 'failed', stage: 'platform', code: e.errorCode ?? 'import_error', source: 'event' };
}

function fromStatus(ext: string, s: { status: string; accountNumber?: string; errorCode?: string }, dryRun: boolean): AccountOutcome | undefined {
  switch (s.status) {
    case 'PROCESSED':
      return { externalAccountNumber: ext, outcome: 'completed', stage: 'await', accountNumber: s.accountNumber, source: 'poll' };
    case 'DRY_RUN_SUCCEEDED':
      return dryRun ? { externalAccountNumber: ext, outcome: 'completed', stage: 'await', source: 'poll' } : undefined;
    case 'ERRORED':
    case 'DRY_RUN_ERRORED':
      return { externalAccountNumber: ext, outcome: 'failed', stage: 'platform', code: s.errorCode ?? 'import_error', source: 'poll' };
    case 'CANCELLED':
      return { externalAccountNumber: ext, outcome: 'failed', stage: 'await', code: 'import_cancelled', source: 'poll' };
    default:
      return undefined;
  }
}
