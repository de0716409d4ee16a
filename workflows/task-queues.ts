/**
 * Platform-calling activities have their own task queue so one global rate limit
 * (`maxTaskQueueActivitiesPerSecond`) bounds calls to the platform however many workers run.
 * A constant, not configuration: workflow code must name it deterministically.
 */
export const PLATFORM_TASK_QUEUE = 'kraken-migrate-platform';
