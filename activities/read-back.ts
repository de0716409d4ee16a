import type { PlatformClient } from '../clients/platform';
import type { Ledger, ReconciliationLedger, ReconciliationRow } from '../ledger';
import type { ReconcileResult } from '../domain/post-import-inputs';
import { mergeReconciliations, readBackResult } from '../domain/reconciliation';
import { compareAccount, expectedAccountRecord } from '../reconcile/compare';
import { compareGraphqlAccount } from '../reconcile/graphql-compare';

type ReadBackInput = {
  runId: string;
  supplierCode: string;
  externalAccountNumber: string;
  accountNumber: string;
  checkedBy: 'workflow' | 'reconcile_command';
};

/**
 * Reads a created account back and compares it with the payload the ledger kept: the REST account
 * record (properties, meter points, agreements) and the GraphQL account (balances, customers,
 * billing details). The comparison happens here, inside the activity: values (personal data) go to
 * the ledger only, and only masked; the caller (workflow history) gets counts and field names.
 * Platform errors are thrown as the client's (callers decide: a retried activity, or the record
 * step's single best-effort read).
 */
export async function readBackAccount(
  deps: {
    ledger: Pick<Ledger, 'loadPayload'>;
    reconciliations: Pick<ReconciliationLedger, 'record'>;
    platform: Pick<PlatformClient, 'getAccount' | 'readAccount'>;
  },
  input: ReadBackInput,
): Promise<ReconcileResult> {
  const { result, check } = await checkAccount(deps, input);
  await deps.reconciliations.record(check);
  return result;
}

/** A read-back's verdict for the caller, and the check the ledger records. */
export interface CheckedAccount {
  result: ReconcileResult;
  check: ReconciliationRow;
}

/**
 * The read-back's reads and comparison, not yet recorded: the record step writes the check with the
 * account's outcome (ledger/reconciliation.ts `record`), which depends on it.
 */
export async function checkAccount(
  deps: { ledger: Pick<Ledger, 'loadPayload'>; platform: Pick<PlatformClient, 'getAccount' | 'readAccount'> },
  input: ReadBackInput,
): Promise<CheckedAccount> {
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
  const graphql = found ? await deps.platform.readAccount(input.accountNumber) : undefined;
  if (!found || !graphql) {
    const missingFrom = found ? 'account' : 'number';
    return {
      result: { status: 'account_missing', checked: 0, differing: 1, unverified: 0, fields: [missingFrom], unverifiedFields: [] },
      check: {
        ...base,
        status: 'account_missing',
        checkedFields: 0,
        differences: [{ path: missingFrom, field: missingFrom, expected: input.accountNumber, found: undefined }],
      },
    };
  }
  const money = compareGraphqlAccount(sent, graphql);
  const r = mergeReconciliations(compareAccount(expectedAccountRecord(sent, input.accountNumber), found), money);
  const result = readBackResult(r);
  return {
    result,
    check: {
      ...base,
      status: result.status,
      checkedFields: r.checked,
      matchedFields: r.matched,
      unverifiedFields: r.unverified.length,
      byField: r.byField,
      differences: r.differences,
      sourceBalancePence: money.balance.sourcePence,
      platformBalancePence: money.balance.platformPence,
    },
  };
}
