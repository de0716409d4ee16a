// Kept apart from inputs.ts so workflow code can use them without pulling zod into the bundle.

/** Deterministic workflow IDs: one real import per supplier + account ever; dry runs in their own space. */
export function accountWorkflowId(supplierCode: string, externalAccountNumber: string, dryRun: boolean, runId: string): string {
  return dryRun ? `dry-run/${runId}/${supplierCode}/${externalAccountNumber}` : `account-import/${supplierCode}/${externalAccountNumber}`;
}
export function runWorkflowId(runId: string): string {
  return `migration-run/${runId}`;
}
