import type { PlatformClient } from '../clients/platform';
import type { Ledger, ReconciliationLedger } from '../ledger';
import type { ReconcileResult } from '../domain/post-import-inputs';
import { compareAccount, expectedAccountRecord } from '../reconcile/compare';

/**
 * Reads a created account back and compares it with the payload the ledger kept; the differences go
 * to the ledger, the caller gets counts and field names. Platform errors are thrown as the client's
 * (callers decide: a retried activity, or the record step's single best-effort read).
 */
export async function readBackAccount(
  deps: { ledger: Pick<Ledger, 'loadPayload'>; reconciliations: Pick<ReconciliationLedger, 'record'>; platform: Pick<PlatformClient, 'getAccount'> },
  input: { runId: string; supplierCode: string; externalAccountNumber: string; accountNumber: string; checkedBy: 'workflow' | 'reconcile_command' },
): Promise<ReconcileResult> {
  const { request } = await deps.ledger.loadPayload<{ payload?: unknown }>({
    runId: input.runId,
    externalAccountNumber: input.externalAccountNumber,
    supplierCode: input.supplierCode,
    dryRun: false,
  });
  // The ledger keeps the validated account payload (what was sent as `payload`).
  const sent = request && typeof request === 'object' && 'payload' in request ? request.payload : request;
  const found = await deps.platform.getAccount(input.accountNumber);
  const base = {
    runId: input.runId,
    externalAccountNumber: input.externalAccountNumber,
    platformAccountNumber: input.accountNumber,
    checkedBy: input.checkedBy,
  };
  if (!found) {
    await deps.reconciliations.record({
      ...base,
      status: 'account_missing',
      checkedFields: 0,
      differences: [{ path: 'number', field: 'number', expected: input.accountNumber, found: undefined }],
    });
    return { status: 'account_missing', checked: 0, differing: 1, unverified: 0, fields: ['number'], unverifiedFields: [] };
  }
  const r = compareAccount(expectedAccountRecord(sent, input.accountNumber), found);
  // Fields the record does not contain are unverified, never differences: the outcome stays completed.
  const status = r.differences.length ? 'differing' : 'matched';
  await deps.reconciliations.record({
    ...base,
    status,
    checkedFields: r.checked,
    matchedFields: r.matched,
    unverifiedFields: r.unverified.length,
    byField: r.byField,
    differences: r.differences,
  });
  return {
    status,
    checked: r.checked,
    differing: r.differences.length,
    unverified: r.unverified.length,
    fields: [...new Set(r.differences.map((d) => d.field))],
    unverifiedFields: [...new Set(r.unverified.map((u) => u.field))],
  };
}
