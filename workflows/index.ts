// The workflow bundle's entry point: every workflow type the workers register.
export { accountImportWorkflow } from './account-import';
export { migrationRunWorkflow } from './migration-run';
export { accountDeltaWorkflow, deltaRunWorkflow } from './post-import';
export { cutoverPlanWorkflow } from './cutover-plan';
export { accountSupplyWorkflow } from './supply';
