import {
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  setWorkflowOptions,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { RunActivities } from '../activities/types';
import { RUN_LEDGER, RUN_SWEEP } from './activity-options';
import { dispatchAllowance } from '../domain/plan-windows';
import { runPriority } from '../domain/priority';
import { paceLine } from '../domain/platform-pace';
import type { MigrationRunArgs, RunState, SupplierStatus } from '../domain/inputs';
import { count, countNotStarted, emptyTotals } from '../domain/run-totals';
import {
  TICK_MIN_MS,
  dispatchOpen,
  dispatchStep,
  nextTickMs,
  runCarryOver,
  runEnding,
  runFinished,
  runProgress,
  runWait,
  stopLineCheckDue,
  wakeParkedAccounts,
  type RunWatch,
} from '../domain/run-dispatch';
import { KmKind, KmRunId, KmSupplier } from '../domain/search-attributes';
import { STOP_LINE_DEFAULTS, evaluateStopLine, initialStopLine, observeOutcome, resetStopLine } from '../domain/stop-line';
import { cancelRun, dispatchLimitSignal, pauseRun, resumeRun, runProgressQuery, supplierStatusSignal, type RunProgress } from '../domain/messages';

// The run's ledger work is short: local activities, one marker each in the run's history.
const local = proxyLocalActivities<RunActivities>(RUN_LEDGER);
// Recording every account a cancelled run never reached can take a while: a heartbeating activity.
const sweep = proxyActivities<RunActivities>(RUN_SWEEP);

/** Stop the line (domain/stop-line.ts): runs started before it replay without it. */
export const STOP_LINE_PATCH = 'stop-line';

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
  // Runs started before stop-the-line carry no settings: the defaults, once the patch is on.
  const stopLineSettings = input.stopLine ?? { enabled: true, ...STOP_LINE_DEFAULTS };
  let stopLine = st.stopLine ?? initialStopLine();
  let stopLineWatched = false;
  // Only a plan's runs have one; a plain run dispatches without bound, as before.
  let bound = st.dispatch ?? input.dispatch;

  const finished = () => runFinished(st, inFlight.size);
  const watch = (): RunWatch => ({ stopLineWatched, stopLineSettings, stopLine, bound });
  const progress = (): RunProgress => runProgress({ run: input, st, inFlight: inFlight.size, supplier, watch: watch() });
  // Every message wakes the loop at once.
  setHandler(supplierStatusSignal, ({ status }) => {
    supplierSignal = status;
    woken = true;
  });
  setHandler(dispatchLimitSignal, (b) => {
    bound = b;
    woken = true;
  });
  setHandler(pauseRun, () => {
    st.paused = true;
    woken = true;
    return progress();
  });
  setHandler(resumeRun, () => {
    st.paused = false;
    if (stopLine.tripped) {
      // The operator dealt with the cause: a fresh window and streak, or the next failure trips it again.
      stopLine = resetStopLine(stopLine);
      upsertMemo({ stopLine: null });
      setCurrentDetails('');
      log.info('stop the line: resumed by the operator', { runId: input.runId });
    }
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
      await continueAsNew<typeof migrationRunWorkflow>({
        ...input,
        state: runCarryOver(st, [...inFlight], watch()),
      });
    }
    if (!finished()) await nextWake();
  }

  const ending = runEnding(st);
  if (ending.neverReached) await recordNeverReached(ending.neverReached);
  await local.finishRun({ runId: input.runId, status: ending.status, totals: st.totals });
  return { ...progress(), state: ending.status };

  /** Which in-flight accounts have recorded their outcome, and what the supplier's status is now. */
  async function settle(): Promise<void> {
    const r = await local.settleAccounts({ runId: input.runId, supplierCode: input.supplierCode, externalAccountNumbers: [...inFlight] });
    for (const o of r.outcomes) {
      if (!inFlight.delete(o.externalAccountNumber)) continue;
      count(st.totals, o);
      if (watchingStopLine()) stopLine = observeOutcome(stopLine, o, stopLineSettings);
    }
    if (watchingStopLine() && stopLineCheckDue(stopLine, st.cancelled)) {
      const trip = evaluateStopLine(stopLine, stopLineSettings);
      if (trip) stopTheLine(trip);
    }
    tickMs = nextTickMs(tickMs, r.outcomes.length);
    // The tenant's window on the run's UI page (current details: a metadata query, no history
    // event, nothing to replay); a tripped stop-the-line keeps the page for itself.
    if (r.platform && !stopLine.tripped) setCurrentDetails(`**${paceLine(r.platform)}**`);
    supplier = r.supplierStatus;
    if (supplier === 'COMPLETE') st.completeSupplier = true;
    // The operator resumed the supplier: accounts parked on it recheck now, not at their next timer.
    if (wakeParkedAccounts(supplierSignal, supplier, inFlight.size)) {
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

  /** On by default; replaying a run from before it, off. */
  function watchingStopLine(): boolean {
    if (!stopLineSettings.enabled) return false;
    stopLineWatched ||= patched(STOP_LINE_PATCH);
    return stopLineWatched;
  }

  /** Pauses dispatch (accounts in flight finish; nothing not yet dispatched is touched) and says why everywhere. */
  function stopTheLine(trip: NonNullable<typeof stopLine.tripped>): void {
    stopLine = { ...stopLine, tripped: trip };
    st.paused = true;
    const accounts = trip.samples.map((x) => x.externalAccountNumber);
    log.warn(trip.message, { runId: input.runId, rule: trip.rule, code: trip.code, count: trip.count, sampleAccounts: accounts });
    upsertMemo({ stopLine: { rule: trip.rule, code: trip.code, count: trip.count, sampleAccounts: accounts } });
    setCurrentDetails(
      `**Paused: stop the line.** ${trip.message}.\n\nSample accounts: ${accounts.join(', ')}.\n\nResume with \`kraken-migrate run resume ${input.runId}\` once the cause is fixed.`,
    );
  }

  /** Fills the free slots from the buffer, paging the selection as it empties. */
  async function dispatch(): Promise<void> {
    if (!dispatchOpen(st, supplier)) return;
    for (;;) {
      const step = dispatchStep({ inFlight: inFlight.size, concurrency: input.concurrency, allowance: allowance(), st });
      if (step.next === 'stop') return;
      if (step.next === 'page') {
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
      const batch = st.buffer.splice(0, step.count);
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
          sendRegistrationFlows: input.sendRegistrationFlows,
        },
        externalAccountNumbers: batch,
        // A local activity's input is not part of what replay checks: runs from before it replay as they ran.
        priority: runPriority(input.supplierCode, input.selection, input.weight),
      });
      for (const r of started) {
        if (r.started) {
          inFlight.add(r.externalAccountNumber);
          st.totals.dispatched += 1;
        } else {
          // Completed in an earlier run (the ID reuse policy refuses a second import) or running elsewhere.
          countNotStarted(st.totals, r.outcome);
        }
      }
    }
  }

  /** Accounts the plan's bound lets it start now (a plain run: no bound). */
  function allowance(): number {
    return dispatchAllowance(bound, Date.now(), st.totals.dispatched);
  }

  /** The one wait: the next tick, or at once when the operator or the supplier's status changes something. */
  async function nextWake(): Promise<void> {
    woken = false;
    const wait = runWait(inFlight.size, st, tickMs, input.timings.supplierRecheckSeconds);
    if (wait === undefined) await condition(() => woken);
    else await condition(() => woken, wait);
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
