import { ActivityNotFoundError, type Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { importEventSignal } from '../domain/messages';
import { SignalError, type ActivityCompleter, type WorkflowSignaller } from './types';

export type TemporalClientSource = Client | (() => Promise<Client>);

/**
 * Signals through Temporal with a deadline, so an unreachable cluster costs the receiver
 * seconds (the event is already recorded; rematch retries), not the SDK's long retry budget.
 */
export function temporalSignaller(source: TemporalClientSource, deadlineMs = 5_000): WorkflowSignaller {
  const deliver = deliverer(source, deadlineMs);
  return (workflowId, signal) =>
    deliver(`workflow ${workflowId}`, WorkflowNotFoundError, (c) => c.workflow.getHandle(workflowId).signal(importEventSignal, signal));
}

/**
 * Completes a schedule activity waiting for its account's event (domain/event-wait.ts), through the
 * same client and data converter (the payload codec) as the signaller, with the same deadline.
 * An activity no longer there (timed out, retried, its workflow gone) is `workflow_gone`.
 */
export function temporalCompleter(source: TemporalClientSource, deadlineMs = 5_000): ActivityCompleter {
  const deliver = deliverer(source, deadlineMs);
  return ({ workflowId, activityId }, result) =>
    deliver(`activity ${activityId} of ${workflowId}`, ActivityNotFoundError, (c) => c.activity.complete({ workflowId, activityId }, result));
}

/** One delivery through Temporal: its deadline, and its errors as {@link SignalError}s. */
function deliverer(source: TemporalClientSource, deadlineMs: number) {
  const client = typeof source === 'function' ? source : async () => source;
  return async (what: string, notFound: new (...args: never[]) => Error, fn: (c: Client) => Promise<unknown>): Promise<void> => {
    try {
      const c = await client();
      await c.withDeadline(Date.now() + deadlineMs, () => fn(c));
    } catch (err) {
      // Closed or never started: nobody is waiting any more.
      if (err instanceof notFound || (err as Error)?.name === notFound.name) {
        throw new SignalError('workflow_gone', `${what} is not running`, { cause: err });
      }
      throw new SignalError('signal_failed', `could not reach ${what}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
  };
}
