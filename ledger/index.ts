// The ledger: the one module that speaks SQL to the `migrate` schema. Activities, the events
// receivers, the CLI and the bench read and write through it.
export * from './types';
export * from './attempts';
export * from './outcome-columns';
export * from './inbox';
export * from './event-waits';
export * from './inbox-report';
export * from './rejections';
export * from './run-queries';
export * from './report-data';
export * from './reconciliation';
export * from './post-import-items';
export * from './after-import-report';
export * from './purge';
export * from './report-csv';
export * from './platform-pace';
export * from './run-summary';
export * from './plan-sign-offs';
export * from './plan-report';
export * from './supply';
export * from './census';
