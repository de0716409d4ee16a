import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { MainActivities } from '../activities/types';
import { accountImportWorkflow } from './account-import';
import { accountWorkflowId } from './ids';
import type { AccountOutcome, MigrationRunArgs, RunState, RunTotals, SupplierStatus } from './inputs';
import {
  accountFinishedSignal,
  cancelRun,
  pauseRun,
  resumeRun,
  runProgressQuery,
  supplierNotOngoingSignal,
  supplierStatusSignal,
  type RunProgress,
} from './messages';
import { KmAccount, KmKind, KmRunId, KmStage, KmSupplier } from './search-attributes';

const main = proxyActivities<MainActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 30 },
});
const local = proxyLocalActivities<MainActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 10 },
});

const SUPPLIER_RECHECK_MS = 30_000;

export function emptyTotals(): RunTotals {
  return { enumerated: 0, dispatched: 0, completed: 0, failed: 0, notAttempted: 0, alreadyCompletedElsewhere: 0, failedByCode: {}, outcomeSources: {} };
}

/**
 * A migration run: enumerates the selection page by page, keeps at most `concurrency` account
 * workflows in flight (started with ABANDON so they survive the run's continue-as-new; each reports
 * back by signal), obeys the supplier's status and the operator's pause / resume / cancel.
 */
export async function migrationRunWorkflow(input: MigrationRunArgs): Promise<RunProgress> {
  const st: RunState = input.state ?? {
    exhausted: false,
    buffer: [],
    inFlight: [],
    totals: emptyTotals(),
    paused: false,
    cancelled: false,
    completeSupplier: false,
  };
  const inFlight = new Set(st.inFlight);
  const finished = new Set<string>(); // dedupes at-least-once signals within this run segment
  let waitingOnSupplier = false;
  let supplierHint: SupplierStatus | undefined;
  let lastSupplierCheck = -Infinity;

  const progress = (): RunProgress => ({
    runId: input.runId,
    supplierCode: input.supplierCode,
    dryRun: input.dryRun,
    state: st.cancelled
      ? inFlight.size > 0 ? 'draining' : 'cancelled'
      : st.paused ? 'paused' : waitingOnSupplier ? 'waiting_on_supplier' : st.exhausted && st.buffer.length === 0 && inFlight.size === 0 ? 'completed' : 'running',
    inFlight: inFlight.size,
    totals: st.totals,
    exhausted: st.exhausted && st.buffer.length === 0,
  });

  setHandler(accountFinishedSignal, (o: AccountOutcome) => {
    if (!inFlight.has(o.externalAccountNumber) || finished.has(o.externalAccountNumber)) return;
    inFlight.delete(o.externalAccountNumber);
    finished.add(o.externalAccountNumber);
    count(st.totals, o);
  });
  setHandler(supplierNotOngoingSignal, () => {
    supplierHint = 'PAUSED';
  });
  setHandler(supplierStatusSignal, ({ status }) => {
    supplierHint = status;
    lastSupplierCheck = -Infinity;
    // Accounts parked on the supplier recheck at once instead of at their next timer.
    if (status === 'ONGOING') for (const ext of inFlight) void signalAccount(ext, status);
  });
  setHandler(pauseRun, () => {
    st.paused = true;
    return progress();
  });
  setHandler(resumeRun, () => {
    st.paused = false;
    return progress();
  });
  setHandler(cancelRun, () => {
    st.cancelled = true;
    return progress();
  });
  setHandler(runProgressQuery, progress);

  upsertSearchAttributes([
    { key: KmKind, value: input.dryRun ? 'dry-run' : 'run' },
    { key: KmRunId, value: input.runId },
    { key: KmSupplier, value: input.supplierCode },
  ]);
  if (!input.state) await main.registerRun({ ...input, state: undefined });

  const canDispatch = () => !st.cancelled && !st.paused && inFlight.size < input.concurrency && (st.buffer.length > 0 || !st.exhausted);

  while (!st.cancelled && !st.completeSupplier) {
    if (st.exhausted && st.buffer.length === 0) break;
    if (st.paused) {
      await condition(() => !st.paused || st.cancelled);
      continue;
    }
    if (inFlight.size >= input.concurrency && supplierHint === undefined) {
      // Also wake on a supplier hint: with every slot parked on a paused supplier, nothing else would.
      await condition(() => inFlight.size < input.concurrency || st.cancelled || st.paused || supplierHint !== undefined);
      continue;
    }

    // Supplier guard: on the operator's word (signal), the platform's refusal, or every 30 s.
    if (supplierHint !== undefined || Date.now() - lastSupplierCheck > SUPPLIER_RECHECK_MS) {
      supplierHint = undefined;
      const status = await local.getSupplierStatus({ supplierCode: input.supplierCode });
      lastSupplierCheck = Date.now();
      if (status === 'COMPLETE') {
        st.completeSupplier = true;
        break;
      }
      if (status === 'PAUSED') {
        waitingOnSupplier = true;
        await condition(() => supplierHint !== undefined || st.cancelled, `${input.timings.supplierRecheckSeconds} seconds`);
        continue;
      }
      waitingOnSupplier = false;
      if (inFlight.size >= input.concurrency) continue;
    }

    if (st.buffer.length === 0) {
      const page = await main.listAccounts({ runId: input.runId, selection: input.selection, source: input.source, cursor: st.cursor, limit: input.pageSize });
      st.buffer = page.accounts;
      st.cursor = page.nextCursor;
      st.exhausted = page.exhausted;
      st.totals.enumerated += page.accounts.length;
      continue;
    }

    const batch = st.buffer.splice(0, input.concurrency - inFlight.size);
    const starts = await Promise.allSettled(batch.map((ext) => startAccount(ext)));
    const conflicts: string[] = [];
    starts.forEach((r, i) => {
      if (r.status === 'fulfilled') return;
      if (r.reason instanceof WorkflowExecutionAlreadyStartedError) conflicts.push(batch[i]);
      else throw r.reason;
    });
    for (const ext of conflicts) {
      // Completed in an earlier run (the ID reuse policy refuses a second import) or running elsewhere.
      inFlight.delete(ext);
      const o = await main.recordExistingAccountWorkflow({ runId: input.runId, supplierCode: input.supplierCode, externalAccountNumber: ext, dryRun: input.dryRun });
      count(st.totals, o);
      if (o.outcome === 'completed' || o.outcome === 'completed_with_differences') st.totals.alreadyCompletedElsewhere += 1;
    }

    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > input.continueAsNewAtEvents) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof migrationRunWorkflow>({ ...input, state: { ...st, inFlight: [...inFlight] } });
    }
    if (!canDispatch()) {
      await condition(() => canDispatch() || st.cancelled || supplierHint !== undefined || (st.exhausted && st.buffer.length === 0 && inFlight.size === 0));
    }
  }

  // Drain: accounts in flight always finish; none is left half-done.
  while (inFlight.size > 0) {
    await condition(() => inFlight.size === 0, '5 minutes');
    if (inFlight.size > 0) {
      // A lost signal must not hang the run: the ledger has every recorded outcome.
      const done = await main.findRecordedOutcomes({ runId: input.runId, externalAccountNumbers: [...inFlight] });
      for (const o of done) {
        if (inFlight.delete(o.externalAccountNumber)) count(st.totals, o);
      }
    }
    if (workflowInfo().historyLength > input.continueAsNewAtEvents) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof migrationRunWorkflow>({ ...input, state: { ...st, inFlight: [...inFlight] } });
    }
  }

  if (st.cancelled || st.completeSupplier) {
    const code = st.cancelled ? 'run_cancelled' : 'import_supplier_migration_not_ongoing';
    const n = await main.recordRemainingNotAttempted({
      runId: input.runId,
      supplierCode: input.supplierCode,
      selection: input.selection,
      source: input.source,
      cursor: st.exhausted ? undefined : st.cursor,
      exhausted: st.exhausted,
      buffer: st.buffer,
      code,
      dryRun: input.dryRun,
    });
    st.buffer = [];
    st.exhausted = true;
    st.totals.notAttempted += n;
    st.totals.failedByCode[code] = (st.totals.failedByCode[code] ?? 0) + n;
  }
  const final = progress();
  await main.finishRun({ runId: input.runId, status: st.cancelled ? 'cancelled' : 'completed', totals: st.totals });
  return { ...final, state: st.cancelled ? 'cancelled' : 'completed' };

  async function startAccount(ext: string): Promise<void> {
    const workflowId = accountWorkflowId(input.supplierCode, ext, input.dryRun, input.runId);
    inFlight.add(ext);
    try {
      await startChild(accountImportWorkflow, {
        workflowId,
        args: [
          {
            runId: input.runId,
            runWorkflowId: workflowInfo().workflowId,
            supplierCode: input.supplierCode,
            externalAccountNumber: ext,
            source: input.source,
            dryRun: input.dryRun,
            window: input.window,
            timings: input.timings,
            reconcile: input.reconcile,
            carryOverChanges: input.carryOverChanges,
          },
        ],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        typedSearchAttributes: [
          { key: KmKind, value: input.dryRun ? 'dry-run-account' : 'account' },
          { key: KmRunId, value: input.runId },
          { key: KmSupplier, value: input.supplierCode },
          { key: KmAccount, value: ext },
          { key: KmStage, value: 'prepare' },
        ],
        staticSummary: `Account ${ext} · run ${input.runId}${input.dryRun ? ' · dry run' : ''}`,
      });
      st.totals.dispatched += 1;
    } catch (e) {
      inFlight.delete(ext);
      throw e;
    }
  }

  async function signalAccount(ext: string, status: SupplierStatus): Promise<void> {
    try {
      await getExternalWorkflowHandle(accountWorkflowId(input.supplierCode, ext, input.dryRun, input.runId)).signal(supplierStatusSignal, { status });
    } catch {
      // Already finished: nothing to wake.
    }
  }
}

function count(t: RunTotals, o: AccountOutcome): void {
  if (o.outcome === 'completed') t.completed += 1;
  else if (o.outcome === 'completed_with_differences') {
    t.completed += 1;
    t.completedWithDifferences = (t.completedWithDifferences ?? 0) + 1;
  } else if (o.outcome === 'failed') t.failed += 1;
  else t.notAttempted += 1;
  if (o.code) t.failedByCode[o.code] = (t.failedByCode[o.code] ?? 0) + 1;
  if (o.source) t.outcomeSources[o.source] = (t.outcomeSources[o.source] ?? 0) + 1;
}
