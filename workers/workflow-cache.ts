/**
 * The main worker's workflow cache and task slots from WORKER_MAX_CACHED_WORKFLOWS (config/index.ts).
 * With a cache, the SDK allows no more concurrent workflow tasks than cached workflows (it lowers the
 * figure with a warning otherwise: @temporalio/worker lib/worker-options.js); without one (0: sticky
 * execution off, every task replays its history) the usual slots apply.
 */
export const WORKFLOW_TASK_SLOTS = 40;

export function workflowCacheOptions(maxCachedWorkflows: number): { maxCachedWorkflows: number; maxConcurrentWorkflowTaskExecutions: number } {
  return {
    maxCachedWorkflows,
    maxConcurrentWorkflowTaskExecutions: maxCachedWorkflows === 0 ? WORKFLOW_TASK_SLOTS : Math.min(WORKFLOW_TASK_SLOTS, maxCachedWorkflows),
  };
}
