// What `run status` and `report --summary` read and print after import: apart from cli/post-import.ts
// (the platform client, the read-back) so they load only the ledger.
import type { Pool } from '../clients/db';
import { createPostImportLedger } from '../ledger/post-import-items';
import { createReconciliationLedger, type ReconciliationSummary } from '../ledger/reconciliation';

/** Changes carried over after import, by status and failure code (the post-import ledger's summary). */
export interface PostImportCounts {
  byStatus: Record<string, number>;
  failedByCode: Record<string, number>;
}

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

export function postImportLine(p: PostImportCounts): string | undefined {
  const total = Object.values(p.byStatus).reduce((a, b) => a + b, 0);
  if (total === 0) return undefined;
  const codes = Object.entries(p.failedByCode)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  return `Changes after import: ${total} items, completed ${p.byStatus.completed ?? 0}, post_import_failed ${p.byStatus.post_import_failed ?? 0}${codes ? ` (${codes})` : ''}, in flight ${(p.byStatus.pending ?? 0) + (p.byStatus.sending ?? 0) + (p.byStatus.sent ?? 0)}`;
}

export async function postImportStatus(pool: Pool, runId: string) {
  const [reconciliation, postImport] = await Promise.all([createReconciliationLedger(pool).summary(runId), createPostImportLedger(pool).summary(runId)]);
  return { reconciliation, postImport };
}
