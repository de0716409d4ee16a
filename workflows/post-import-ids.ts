// Workflow IDs of the after-import work. Kept apart from post-import-inputs.ts so workflow code
// can use them without pulling zod and the source adapters into the bundle.

export function accountDeltaWorkflowId(supplierCode: string, ext: string, deltaId: string): string {
  return `post-import/${supplierCode}/${ext}/${deltaId}`;
}
export function deltaRunWorkflowId(deltaId: string): string {
  return `post-import-run/${deltaId}`;
}
