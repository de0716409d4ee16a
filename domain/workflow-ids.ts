// Workflow IDs, deterministic from business keys. Kept apart from inputs.ts so workflow code can
// use them without pulling zod into the bundle.

/** Deterministic workflow IDs: one real import per supplier + account ever; dry runs in their own space. */
export function accountWorkflowId(supplierCode: string, externalAccountNumber: string, dryRun: boolean, runId: string): string {
  return dryRun ? `dry-run/${runId}/${supplierCode}/${externalAccountNumber}` : `account-import/${supplierCode}/${externalAccountNumber}`;
}
export function runWorkflowId(runId: string): string {
  return `migration-run/${runId}`;
}
export function accountDeltaWorkflowId(supplierCode: string, ext: string, deltaId: string): string {
  return `post-import/${supplierCode}/${ext}/${deltaId}`;
}
export function deltaRunWorkflowId(deltaId: string): string {
  return `post-import-run/${deltaId}`;
}
export function planWorkflowId(planId: string): string {
  return `cutover-plan/${planId}`;
}
/** A plan wave's trial load N (dry_run_first): `<plan>.<wave>.trial-N`. */
export function trialRunId(base: string, n: number): string {
  return `${base}-${n}`;
}
/** The switch of one account (workflows/supply.ts): one follow per supplier + account, whichever run created it. */
export function supplyWorkflowId(supplierCode: string, externalAccountNumber: string): string {
  return `supply/${supplierCode}/${externalAccountNumber}`;
}
