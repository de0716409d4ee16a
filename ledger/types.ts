/** Identifies one account attempt: everything else (payload, documents, errors) is in the ledger. */
export interface AttemptRef {
  runId: string;
  externalAccountNumber: string;
  supplierCode: string;
  dryRun: boolean;
}
