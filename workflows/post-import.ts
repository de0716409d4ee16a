import {
  condition,
  continueAsNew,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  setWorkflowOptions,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import { POST_IMPORT_COMPLETED, POST_IMPORT_ERROR } from '../domain/event-types';
import { PLATFORM_CALL, POST_IMPORT_LEDGER } from './activity-options';
import { ERROR_ATTR_OF, RESOURCE_TYPE_OF } from '../domain/post-import-kinds';
import { TIMING_DEFAULTS } from '../domain/timing-defaults';
import type { PostImportMainActivities, PostImportPlatformActivities } from '../activities/post-import';
import type { ImportEventSignal } from '../domain/inputs';
import { importEventSignal } from '../domain/messages';
import type { AccountDeltaInput, AccountDeltaResult, DeltaRunInput, DeltaRunResult, ItemRefInput } from '../domain/post-import-inputs';
import { accountDeltaWorkflowId } from '../domain/workflow-ids';
import { KmAccount, KmErrorCode, KmKind, KmOutcome, KmRunId, KmStage, KmSupplier } from '../domain/search-attributes';
import { platformTaskQueue } from '../domain/task-queues';

const main = proxyActivities<PostImportMainActivities>(POST_IMPORT_LEDGER);

type ItemOutcome = { status: 'completed' | 'post_import_failed'; source: string; code?: string; attr?: string; eventId?: string };

/**
 * Carries one account's changes since extraction over to the platform, after creation: each item
 * a named step (`post-import:<kind>`), one at a time (an error event names only the kind), sent
 * to its v1 endpoint, its outcome from its `post_import.*` event; when the event is late or lost,
 * the item is sent again (the platform deduplicates by the item's identifier and says it exists).
 * A failure is the item's `post_import_failed` outcome: the account itself is never re-imported.
 */
export async function accountDeltaWorkflow(raw: AccountDeltaInput): Promise<AccountDeltaResult> {
  // On the platform queue derived from this workflow's own (see account-import.ts). Every send is
  // safe to repeat (the item's own identifier, and the ledger).
  const platform = proxyActivities<PostImportPlatformActivities>({ ...PLATFORM_CALL, taskQueue: platformTaskQueue(workflowInfo().taskQueue) });
  const input = { retryFailed: false, eventWaitSeconds: TIMING_DEFAULTS.eventWaitSeconds, maxAsks: 5, ...raw };
  const ext = input.externalAccountNumber;
  const events: ImportEventSignal[] = [];
  setHandler(importEventSignal, (e) => {
    if ((e.type === POST_IMPORT_COMPLETED || e.type === POST_IMPORT_ERROR) && !events.some((x) => x.eventId === e.eventId)) events.push(e);
  });
  upsertSearchAttributes([
    { key: KmKind, value: 'post-import' },
    { key: KmRunId, value: input.runId },
    { key: KmSupplier, value: input.supplierCode },
    { key: KmAccount, value: ext },
    { key: KmStage, value: 'post-import' },
  ]);

  const todo = await main.collectChanges({
    deltaId: input.deltaId,
    runId: input.runId,
    supplierCode: input.supplierCode,
    externalAccountNumber: ext,
    accountNumber: input.accountNumber,
    source: input.source,
    retryFailed: input.retryFailed,
  });
  const result: AccountDeltaResult = { externalAccountNumber: ext, items: todo.length, completed: 0, failed: 0, failedByCode: {} };
  for (const it of todo) {
    upsertSearchAttributes([{ key: KmStage, value: `post-import:${it.kind}` }]);
    const ref: ItemRefInput = { supplierCode: input.supplierCode, externalAccountNumber: ext, kind: it.kind, key: it.key };
    const o = await carryOver(ref);
    await main.recordItemOutcome({ ...ref, ...o });
    if (o.status === 'completed') result.completed += 1;
    else {
      result.failed += 1;
      result.failedByCode[o.code ?? 'post_import_failed'] = (result.failedByCode[o.code ?? 'post_import_failed'] ?? 0) + 1;
    }
  }
  const firstCode = Object.keys(result.failedByCode)[0];
  upsertSearchAttributes([
    { key: KmStage, value: 'post-import:done' },
    { key: KmOutcome, value: result.failed ? 'post_import_failed' : 'completed' },
    ...(firstCode ? [{ key: KmErrorCode, value: firstCode }] : []),
  ]);
  return result;

  async function carryOver(ref: ItemRefInput): Promise<ItemOutcome> {
    const rt = RESOURCE_TYPE_OF[ref.kind];
    for (let ask = 0; ask < input.maxAsks; ask++) {
      const from = events.length;
      const sent = await platform.sendPostImportItem({ ...ref, deltaId: input.deltaId, workflowId: workflowInfo().workflowId, reask: ask > 0 });
      if (sent.kind === 'already_exists') return { status: 'completed', source: ask > 0 ? 'reask' : 'platform_response' };
      if (sent.kind === 'failed') return { status: 'post_import_failed', source: 'platform_response', code: sent.code, attr: sent.attr };
      const mine = (e: ImportEventSignal) =>
        (e.resourceType === undefined || e.resourceType === rt) && (e.type === POST_IMPORT_ERROR || e.identifier === ref.key);
      const fromSignals = () => events.slice(from).find(mine);
      let ev = fromSignals() ?? (await main.findPostImportEvent({ ...ref, sinceMs: sent.sentAtMs }));
      if (!ev && (await condition(() => fromSignals() !== undefined, `${input.eventWaitSeconds} seconds`))) ev = fromSignals();
      if (ev) {
        return ev.type === POST_IMPORT_COMPLETED
          ? { status: 'completed', source: 'event', eventId: ev.eventId }
          : { status: 'post_import_failed', source: 'event', code: ev.errorCode ?? 'post_import_error', attr: ERROR_ATTR_OF[ref.kind], eventId: ev.eventId };
      }
      // No event in time: ask again by sending the same item (an existing one is reported as such).
    }
    return { status: 'post_import_failed', source: 'reask', code: 'outcome_timeout', attr: ERROR_ATTR_OF[ref.kind] };
  }
}

/**
 * `run delta <runId>`: every completed account of the run (or those with failed items) gets an
 * `accountDeltaWorkflow`, at most `concurrency` at a time.
 */
export async function deltaRunWorkflow(raw: DeltaRunInput): Promise<DeltaRunResult> {
  const input = { accounts: 'completed' as const, concurrency: 20, eventWaitSeconds: TIMING_DEFAULTS.eventWaitSeconds, ...raw };
  upsertSearchAttributes([
    { key: KmKind, value: 'post-import-run' },
    { key: KmRunId, value: input.runId },
    { key: KmSupplier, value: input.supplierCode },
  ]);
  const total: DeltaRunResult = { deltaId: input.deltaId, accounts: 0, items: 0, completed: 0, failed: 0, failedByCode: {}, ...input.state?.totals };
  const running = new Set<Promise<void>>();
  let after: string | undefined = input.state?.after;
  for (;;) {
    const page = await main.listDeltaAccounts({ runId: input.runId, accounts: input.accounts, after, limit: 200 });
    for (const a of page) {
      while (running.size >= input.concurrency) await Promise.race(running);
      const child: Promise<ChildWorkflowHandle<typeof accountDeltaWorkflow>> = startChild(accountDeltaWorkflow, {
        workflowId: accountDeltaWorkflowId(input.supplierCode, a.externalAccountNumber, input.deltaId),
        args: [
          {
            deltaId: input.deltaId,
            runId: input.runId,
            supplierCode: input.supplierCode,
            externalAccountNumber: a.externalAccountNumber,
            accountNumber: a.accountNumber,
            source: input.source,
            retryFailed: input.accounts === 'failed_items',
            eventWaitSeconds: input.eventWaitSeconds,
          },
        ],
        parentClosePolicy: ParentClosePolicy.TERMINATE,
      });
      const p: Promise<void> = child
        .then((h) => h.result())
        .then((r) => {
          total.accounts += 1;
          total.items += r.items;
          total.completed += r.completed;
          total.failed += r.failed;
          for (const [code, n] of Object.entries(r.failedByCode)) total.failedByCode[code] = (total.failedByCode[code] ?? 0) + n;
        })
        .catch(() => {
          // The account's delta workflow itself failed (e.g. its source could not be read): its
          // items stay open in the ledger for the next delta.
          total.accounts += 1;
          total.failedByCode.delta_workflow_failed = (total.failedByCode.delta_workflow_failed ?? 0) + 1;
        })
        .finally(() => running.delete(p));
      running.add(p);
    }
    if (page.length < 200) break;
    after = page[page.length - 1].externalAccountNumber;
    if (workflowInfo().historyLength > 10_000) {
      // Well under Temporal's history limit: finish the accounts in flight, then start afresh.
      await Promise.all(running);
      const { deltaId: _id, ...totals } = total;
      return continueAsNew<typeof deltaRunWorkflow>({ ...input, state: { after, totals } });
    }
  }
  await Promise.all(running);
  upsertSearchAttributes([{ key: KmOutcome, value: total.failed ? 'post_import_failed' : 'completed' }]);
  return total;
}

// Worker Versioning: one account's carry-over is short and stays on its version (a child of an
// account inherits the account's pinned version); the delta run, like the migration run, lasts as
// long as its accounts and moves to the current version at its next task (changes behind patched()).
setWorkflowOptions({ versioningBehavior: 'PINNED' }, accountDeltaWorkflow);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, deltaRunWorkflow);
