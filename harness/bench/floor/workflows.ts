import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { CeilingActivities, FloorActivities } from './activities';

const { floorNoop } = proxyActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });
const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });

// One attempt: a retry would re-run the whole script for the account, which the script never does.
const { scriptAccount } = proxyActivities<CeilingActivities>({ startToCloseTimeout: '5 minutes', retry: { maximumAttempts: 1 } });

/** The least a durable per-account workflow can be: one workflow, one activity, one result. */
export async function floorAccountWorkflow(account: string): Promise<string> {
  return floorNoop(account);
}

/**
 * The floor in the pipeline account's shape (workflows/account-import.ts): a local activity before the
 * activity and one after it, as prepare and record are, each a no-op. Two markers more than the floor
 * (13 events, as the pipeline's account): what two durable steps beside the platform call cost in
 * Temporal and the worker alone, with no work in them.
 */
export async function floorStepsWorkflow(account: string): Promise<string> {
  await local.floorNoop(account);
  await floorNoop(account);
  return local.floorNoop(account);
}

/**
 * The ceiling: the floor's shape with the plain script's whole per-account work as its one
 * activity. No ledger, no events, no durability between steps: an upper bound for any pipeline
 * that does the script's work under Temporal on the same machine.
 */
export async function ceilingAccountWorkflow(account: string): Promise<string> {
  return scriptAccount(account);
}
