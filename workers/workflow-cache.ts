/**
 * The main worker's workflow cache and task slots from WORKER_MAX_CACHED_WORKFLOWS (config/index.ts,
 * at least 2). The SDK allows no more concurrent workflow tasks than cached workflows (it lowers the
 * figure with a warning otherwise: @temporalio/worker lib/worker-options.js): a small cache means as
 * few task slots.
 */
export const WORKFLOW_TASK_SLOTS = 40;

export function workflowCacheOptions(maxCachedWorkflows: number): { maxCachedWorkflows: number; maxConcurrentWorkflowTaskExecutions: number } {
  return { maxCachedWorkflows, maxConcurrentWorkflowTaskExecutions: Math.min(WORKFLOW_TASK_SLOTS, maxCachedWorkflows) };
}
