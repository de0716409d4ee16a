import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  setWorkflowOptions,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { RunActivities } from '../activities/types';
import type { MigrationRunArgs, RunState, SupplierStatus } from '../domain/inputs';
import { count, emptyTotals } from '../domain/run-totals';
import { KmKind, KmRunId, KmSupplier } from '../domain/search-attributes';
import { cancelRun, pauseRun, resumeRun, runProgressQuery, supplierStatusSignal, type RunProgress } from '../domain/messages';

// The run's ledger work is short: local activities, one marker each in the run's history.
const local = proxyLocalActivities<RunActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 30 },
});
// Recording every account a cancelled run never reached can take a while: a heartbeating activity.
const sweep = proxyActivities<RunActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 30 },
});

/** How often the run looks at the ledger for finished accounts: fast while they finish, slower while none do. */
const TICK_MIN_MS = 1000;
const TICK_MAX_MS = 10_000;

/**
 * A migration run: enumerates the selection page by page and keeps at most `concurrency` account
 * workflows in flight. It starts them itself (a local activity, not child workflows) and learns
 * which have finished from the ledger, where every account records its one outcome, so an account
 * costs the run no history events of its own and continue-as-new carries only the in-flight list.
 * Obeys the supplier's status and the operator's pause / resume / cancel.
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
  let supplier: SupplierStatus = 'ONGOING';
  let supplierSignal: SupplierStatus | undefined;
  let woken = false;
  let tickMs = TICK_MIN_MS;

  const finished = () => inFlight.size === 0 && (st.cancelled || st.completeSupplier || (st.exhausted && st.buffer.length === 0));
  const progress = (): RunProgress => ({
    runId: input.runId,
    supplierCode: input.supplierCode,
    dryRun: input.dryRun,
    state: phase(),
    inFlight: inFlight.size,
    totals: st.totals,
    exhausted: st.exhausted && st.buffer.length === 0,
  });
  function phase(): RunProgress['state'] {
    if (st.cancelled) return inFlight.size > 0 ? 'draining' : 'cancelled';
    if (st.paused) return 'paused';
    if (supplier === 'PAUSED') return 'waiting_on_supplier';
    if (finished()) return 'completed';
    return 'running';
  }
  // Every message wakes the loop at once.
  setHandler(supplierStatusSignal, ({ status }) => {
    supplierSignal = status;
    woken = true;
  });
  setHandler(pauseRun, () => {
    st.paused = true;
    woken = true;
    return progress();
  });
  setHandler(resumeRun, () => {
    st.paused = false;
    woken = true;
    return progress();
  });
  setHandler(cancelRun, () => {
    st.cancelled = true;
    woken = true;
    return progress();
  });
  setHandler(runProgressQuery, progress);

  // What the UI filters runs on; a starter that set them (and every continued segment) skips the upsert.
  if (workflowInfo().typedSearchAttributes.get(KmRunId) === undefined) {
    upsertSearchAttributes([
      { key: KmKind, value: input.dryRun ? 'dry-run' : 'run' },
      { key: KmRunId, value: input.runId },
      { key: KmSupplier, value: input.supplierCode },
    ]);
  }
  if (!input.state) await local.registerRun({ ...input, state: undefined });

  while (!finished()) {
    await settle();
    await dispatch();
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > input.continueAsNewAtEvents) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof migrationRunWorkflow>({ ...input, state: { ...st, inFlight: [...inFlight] } });
    }
    if (!finished()) await nextWake();
  }

  if (st.cancelled || st.completeSupplier) await recordNeverReached(st.cancelled ? 'run_cancelled' : 'import_supplier_migration_not_ongoing');
  await local.finishRun({ runId: input.runId, status: st.cancelled ? 'cancelled' : 'completed', totals: st.totals });
  return { ...progress(), state: st.cancelled ? 'cancelled' : 'completed' };

  /** Which in-flight accounts have recorded their outcome, and what the supplier's status is now. */
  async function settle(): Promise<void> {
    const r = await local.settleAccounts({ runId: input.runId, supplierCode: input.supplierCode, externalAccountNumbers: [...inFlight] });
    for (const o of r.outcomes) if (inFlight.delete(o.externalAccountNumber)) count(st.totals, o);
    tickMs = r.outcomes.length > 0 ? TICK_MIN_MS : Math.min(tickMs * 2, TICK_MAX_MS);
    supplier = r.supplierStatus;
    if (supplier === 'COMPLETE') st.completeSupplier = true;
    // The operator resumed the supplier: accounts parked on it recheck now, not at their next timer.
    if (supplierSignal === 'ONGOING' && supplier === 'ONGOING' && inFlight.size > 0) {
      await local.wakeAccounts({
        supplierCode: input.supplierCode,
        runId: input.runId,
        dryRun: input.dryRun,
        externalAccountNumbers: [...inFlight],
        status: 'ONGOING',
      });
    }
    supplierSignal = undefined;
  }

  /** Fills the free slots from the buffer, paging the selection as it empties. */
  async function dispatch(): Promise<void> {
    if (st.cancelled || st.paused || st.completeSupplier || supplier !== 'ONGOING') return;
    while (inFlight.size < input.concurrency && !(st.exhausted && st.buffer.length === 0)) {
      if (st.buffer.length === 0) {
        const page = await local.listAccounts({
          runId: input.runId,
          selection: input.selection,
          source: input.source,
          cursor: st.cursor,
          limit: input.pageSize,
        });
        st.buffer = page.accounts;
        st.cursor = page.nextCursor;
        st.exhausted = page.exhausted;
        st.totals.enumerated += page.accounts.length;
        continue;
      }
      const batch = st.buffer.splice(0, input.concurrency - inFlight.size);
      const started = await local.startAccounts({
        taskQueue: workflowInfo().taskQueue,
        account: {
          runId: input.runId,
          supplierCode: input.supplierCode,
          source: input.source,
          dryRun: input.dryRun,
          window: input.window,
          timings: input.timings,
          reconcile: input.reconcile,
          carryOverChanges: input.carryOverChanges,
        },
        externalAccountNumbers: batch,
      });
      for (const r of started) {
        if (r.started) {
          inFlight.add(r.externalAccountNumber);
          st.totals.dispatched += 1;
        } else {
          // Completed in an earlier run (the ID reuse policy refuses a second import) or running elsewhere.
          count(st.totals, r.outcome);
          if (r.outcome.outcome === 'completed' || r.outcome.outcome === 'completed_with_differences') st.totals.alreadyCompletedElsewhere += 1;
        }
      }
    }
  }

  /** The one wait: the next tick, or at once when the operator or the supplier's status changes something. */
  async function nextWake(): Promise<void> {
    woken = false;
    if (inFlight.size > 0) await condition(() => woken, tickMs);
    else if (st.paused || st.cancelled) await condition(() => woken);
    else await condition(() => woken, `${input.timings.supplierRecheckSeconds} seconds`);
  }

  async function recordNeverReached(code: string): Promise<void> {
    const n = await sweep.recordRemainingNotAttempted({
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
}

// Worker Versioning: a run lasts as long as its slowest account (days, when a supplier is paused), so
// it moves to the deployment's current version at its next workflow task (AUTO_UPGRADE) instead of
// keeping an old version's workers alive. Any change to this function must therefore replay its
// earlier histories: behind patched() (test/replay/histories checks it). Moving at continue-as-new
// instead (PINNED, continuing as new with initialVersioningBehavior when
// targetWorkerDeploymentVersionChanged) is honoured by our server since 1.32, but kept out: it is
// experimental in the TS SDK, a paused run may not continue-as-new for days (its old workers would
// stay up), and it needs a new wake-up path of its own; AUTO_UPGRADE plus the replay corpus is
// simpler and already proven (test/e2e/upgrade).
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, migrationRunWorkflow);
