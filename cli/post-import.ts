import type { Client } from '@temporalio/client';
import type { Pool } from '../clients/db';
import { createPlatformClient } from '../clients/platform/client';
import type { Config } from '../config';
import { readBackAccount } from '../activities/read-back';
import { createLedger } from '../ledger';
import { createReconciliationLedger, type ReconciliationSummary } from '../ledger/reconciliation';
import type { SourceSpecRef } from '../domain/inputs';
import { deltaRunInputSchema, type DeltaRunResult } from '../domain/post-import-inputs';
import { deltaRunWorkflowId } from '../domain/workflow-ids';
import type { deltaRunWorkflow } from '../workflows/post-import';
import { KmKind, KmRunId, KmSupplier } from '../domain/search-attributes';
import { workflowUiUrl } from './context';
import { usageError } from './errors';

// What `run status` and `report --summary` read and print after import: apart, so they load none of the above.
export { balanceLine, postImportLine, postImportStatus, reconciliationLine } from './after-import-status';

/**
 * `run reconcile`: re-reads every completed account of a finished run and compares it with what
 * was sent. Only GETs: nothing on the platform changes. The latest check replaces the previous
 * one in the ledger; account outcomes recorded by the run stay as they were.
 */
export async function reconcileRun(
  cfg: Config,
  pool: Pool,
  runId: string,
  opts: { concurrency: number; onProgress?: (done: number) => void },
): Promise<ReconciliationSummary> {
  const recon = createReconciliationLedger(pool);
  // The read-back the workflow's reconcile step runs, called directly: no Temporal here.
  const readBack = { ledger: createLedger(pool), reconciliations: recon, platform: createPlatformClient(cfg) };
  let after: string | undefined;
  let done = 0;
  for (;;) {
    const page = await recon.completedAccounts(runId, after, RECONCILE_PAGE);
    let next = 0;
    const worker = async () => {
      while (next < page.length) {
        const a = page[next++];
        await readBackAccount(readBack, {
          runId,
          supplierCode: a.supplierCode,
          externalAccountNumber: a.externalAccountNumber,
          accountNumber: a.accountNumber,
          checkedBy: 'reconcile_command',
        });
        opts.onProgress?.(++done);
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, page.length) }, worker));
    if (page.length < RECONCILE_PAGE) break;
    after = page[page.length - 1].externalAccountNumber;
  }
  return recon.summary(runId);
}

/** Accounts `run reconcile` reads from the ledger at once (keyset pages). */
const RECONCILE_PAGE = 1000;

export interface StartedDelta {
  deltaId: string;
  workflowId: string;
  uiUrl: string;
}

/** Starts `deltaRunWorkflow` for a run's completed accounts (or those with failed items). */
export async function startDelta(
  client: Client,
  cfg: Config,
  input: { runId: string; supplierCode: string; source: SourceSpecRef; accounts: 'completed' | 'failed_items'; concurrency?: number; deltaId?: string },
): Promise<StartedDelta> {
  const deltaId =
    input.deltaId ??
    `delta-${new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, '')
      .replace('T', '-')}-${Math.random().toString(16).slice(2, 6)}`;
  const parsed = deltaRunInputSchema.safeParse({ ...input, deltaId, eventWaitSeconds: cfg.OUTCOME_EVENT_WAIT_SECONDS });
  if (!parsed.success) throw usageError('invalid_delta_input', parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
  const workflowId = deltaRunWorkflowId(deltaId);
  await client.workflow.start<typeof deltaRunWorkflow>('deltaRunWorkflow', {
    workflowId,
    taskQueue: cfg.TEMPORAL_TASK_QUEUE,
    args: [parsed.data],
    typedSearchAttributes: [
      { key: KmKind, value: 'post-import-run' },
      { key: KmRunId, value: input.runId },
      { key: KmSupplier, value: input.supplierCode },
    ],
    staticSummary: `Changes after import · run ${input.runId} · ${deltaId}`,
  });
  return { deltaId, workflowId, uiUrl: workflowUiUrl(cfg, workflowId) };
}

export async function awaitDelta(client: Client, deltaId: string): Promise<DeltaRunResult> {
  return client.workflow.getHandle<typeof deltaRunWorkflow>(deltaRunWorkflowId(deltaId)).result();
}

export function deltaLine(r: DeltaRunResult): string {
  const codes = Object.entries(r.failedByCode)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  return `Delta ${r.deltaId}: ${r.accounts} accounts, ${r.items} items sent, completed ${r.completed}, post_import_failed ${r.failed}${codes ? ` (${codes})` : ''}`;
}
