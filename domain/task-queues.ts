/**
 * Platform-calling activities have their own task queue so one global rate limit
 * (`maxTaskQueueActivitiesPerSecond`) bounds calls to the platform however many workers run.
 * Derived from the main task queue (the workflow's own, so deterministic): two deployments, or a
 * test's own worker, on one namespace never run each other's platform calls.
 */
export function platformTaskQueue(mainTaskQueue: string): string {
  return `${mainTaskQueue}-platform`;
}
