import type { Client } from '@temporalio/client';
import type { Pool } from '../clients/db';
import { createPlatformClient } from '../clients/platform/client';
import type { Config } from '../config';
import { readBackAccount } from '../activities/read-back';
import { createLedger } from '../ledger';
import { createPostImportLedger } from '../ledger/post-import-items';
import { createReconciliationLedger, type ReconciliationSummary } from '../ledger/reconciliation';
import type { SourceSpecRef } from '../domain/inputs';
import { deltaRunInputSchema, type DeltaRunResult } from '../domain/post-import-inputs';
import { deltaRunWorkflowId } from '../domain/workflow-ids';
import type { deltaRunWorkflow } from '../workflows/post-import';
import { KmKind, KmRunId, KmSupplier } from '../domain/search-attributes';
import { workflowUiUrl } from './context';
import { usageError } from './errors';

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

/**
 * Accounts in three words: matched (every field compared was equal), differing, unverified (some
 * field the payload determines is not in the platform's record, so it was not checked; such an
 * account is also matched or differing on the rest). Then the fields behind each count.
 */
export function reconciliationLine(s: ReconciliationSummary): string {
  const list = (by: Record<string, number>) =>
    Object.entries(by)
      .map(([f, n]) => `${f} ${n}`)
      .join(', ');
  const differing = list(s.byField);
  const unverified = list(s.unverifiedByField);
  return (
    `Reconciliation: checked ${s.checked}, matched ${s.matched}, differing ${s.differing + s.missing}, unverified ${s.unverified}` +
    (differing ? ` (differing by field: ${differing})` : '') +
    (unverified ? ` (not in the platform's record: ${unverified})` : '')
  );
}

/**
 * The run's balance checkpoint: opening balances summed in pence (exact), as sent and as the
 * platform shows them, over the accounts read back; undefined before any was.
 */
export function balanceLine(s: ReconciliationSummary): string | undefined {
  const b = s.balances;
  if (!b || b.accounts === 0) return undefined;
  return `Balances (pence, ${b.accounts} accounts read back): source ${b.sourcePence}, platform ${b.platformPence}, difference ${b.differencePence}`;
}

export async function postImportStatus(pool: Pool, runId: string) {
  const [reconciliation, postImport] = await Promise.all([createReconciliationLedger(pool).summary(runId), createPostImportLedger(pool).summary(runId)]);
  return { reconciliation, postImport };
}

export function postImportLine(p: Awaited<ReturnType<typeof postImportStatus>>['postImport']): string | undefined {
  const total = Object.values(p.byStatus).reduce((a, b) => a + b, 0);
  if (total === 0) return undefined;
  const codes = Object.entries(p.failedByCode)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  return `Changes after import: ${total} items, completed ${p.byStatus.completed ?? 0}, post_import_failed ${p.byStatus.post_import_failed ?? 0}${codes ? ` (${codes})` : ''}, in flight ${(p.byStatus.pending ?? 0) + (p.byStatus.sending ?? 0) + (p.byStatus.sent ?? 0)}`;
}

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
