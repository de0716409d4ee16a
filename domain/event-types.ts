/**
 * The platform event types the pipeline acts on, defined once: the account workflow waits on the
 * terminal ones (workflows/account-import.ts), the inbox routes by them (ledger/inbox-record.ts), and
 * the post-import workflow waits on the item outcomes (workflows/post-import.ts).
 */

/** Event types that end an account's wait, for a real import and for a dry run. */
export const TERMINAL_EVENT_TYPES = {
  real: ['data_import.import_process.complete', 'data_import.import_process.error', 'data_import.import_process.cancelled'],
  dry: ['data_import.import_process.dry_run_complete', 'data_import.import_process.dry_run_error', 'data_import.import_process.cancelled'],
} as const;

export function isTerminalEvent(type: string, dryRun: boolean): boolean {
  return (TERMINAL_EVENT_TYPES[dryRun ? 'dry' : 'real'] as readonly string[]).includes(type);
}

export const POST_IMPORT_COMPLETED = 'data_import.import_process.post_import.completed';
export const POST_IMPORT_ERROR = 'data_import.import_process.post_import.error';
/** Outcomes of items sent after import: routed to the post-import workflow sending that account's items. */
export const POST_IMPORT_EVENT_TYPES: readonly string[] = [POST_IMPORT_COMPLETED, POST_IMPORT_ERROR];

/**
 * The switch's supply lifecycle (catalogue, "Supply lifecycle"), keyed by the platform's account
 * number: routed to the account's supply workflow (workflows/supply.ts) as a nudge to read the
 * statuses now; the statuses, not the event, say where each point is.
 */
export const LIFECYCLE_EVENT_TYPES: readonly string[] = [
  'lifecycle.join-supplier.requested',
  'lifecycle.join-supplier.completed',
  'lifecycle.join-supplier.cancelled',
  'lifecycle.join-supplier.reversed',
];

export function isLifecycleEvent(eventType: string): boolean {
  return LIFECYCLE_EVENT_TYPES.includes(eventType);
}

export function isPostImportEvent(eventType: string): boolean {
  return POST_IMPORT_EVENT_TYPES.includes(eventType);
}
