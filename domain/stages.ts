/**
 * The steps of one account's import, as the progress query, the ledger and the `KmStage` search
 * attribute name them (workflows/account-import.ts sets them in this order).
 */
export const ACCOUNT_STAGES = ['prepare', 'documents', 'guard', 'schedule', 'await', 'reconcile', 'post-import', 'record'] as const;
export type AccountStage = (typeof ACCOUNT_STAGES)[number];
