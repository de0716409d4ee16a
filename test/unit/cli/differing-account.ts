import type { Pool } from 'pg';
import { createReconciliationLedger } from '../../../ledger/reconciliation';
import type { Difference } from '../../../reconcile/compare';

/** Account A-2 (platform P-2) of `runId` read back differing from what was sent: the reports' review fixture. */
export async function recordDifferingAccount(pool: Pool, runId: string, differences: Difference[]): Promise<void> {
  await createReconciliationLedger(pool).record({
    runId,
    externalAccountNumber: 'A-2',
    platformAccountNumber: 'P-2',
    status: 'differing',
    checkedFields: 3,
    checkedBy: 'workflow',
    differences,
  });
}
