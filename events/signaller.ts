import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { importEventSignal } from '../domain/messages';
import { SignalError, type WorkflowSignaller } from './types';

export type TemporalClientSource = Client | (() => Promise<Client>);

/**
 * Signals through Temporal with a deadline, so an unreachable cluster costs the receiver
 * seconds (the event is already recorded; rematch retries), not the SDK's long retry budget.
 */
export function temporalSignaller(source: TemporalClientSource, deadlineMs = 5_000): WorkflowSignaller {
  const client = typeof source === 'function' ? source : async () => source;
  return async (workflowId, signal) => {
    try {
      const c = await client();
      await c.withDeadline(Date.now() + deadlineMs, () => c.workflow.getHandle(workflowId).signal(importEventSignal, signal));
    } catch (err) {
      // Closed or never started: nobody is waiting any more.
      if (err instanceof WorkflowNotFoundError || (err as Error)?.name === 'WorkflowNotFoundError') {
        throw new SignalError('workflow_gone', `workflow ${workflowId} is not running`, { cause: err });
      }
      throw new SignalError('signal_failed', `could not signal ${workflowId}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
  };
}
