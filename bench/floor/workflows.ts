import { proxyActivities } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

const { floorNoop } = proxyActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });

/** The least a durable per-account workflow can be: one workflow, one activity, one result. */
export async function floorAccountWorkflow(account: string): Promise<string> {
  return floorNoop(account);
}
