/** The sandbox's own tables (its store of imports, events and files), migrated apart from the ledger's. */
export const SANDBOX_COMPONENT = { dir: 'harness/sandbox/migrations', table: 'pgmigrations', schema: 'sandbox' } as const;
