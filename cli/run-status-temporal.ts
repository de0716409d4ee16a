// `run status`'s questions to Temporal: the run workflow's execution, then its progress query and,
// for a run still going, the accounts being retried. Loaded only when asked (cli/actions/run-status.ts):
// the Temporal SDK is most of the command's start.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { runProgressQuery, type RunProgress } from '../domain/messages';
import { runWorkflowId } from '../domain/workflow-ids';
import { listRetryingAccounts, type RetryingAccount } from '../clients/retrying-accounts';
import { usageError } from './errors';
import { withTimeout } from './with-timeout';

export interface RunExecution {
  status: string;
  startTime: string;
  closeTime: string | null;
}

/** The run workflow's latest execution; a CliError `run_not_found` when Temporal has none. */
export async function describeRunExecution(client: Client, runId: string): Promise<RunExecution> {
  try {
    const d = await client.workflow.getHandle(runWorkflowId(runId)).describe();
    return { status: d.status.name, startTime: d.startTime.toISOString(), closeTime: d.closeTime?.toISOString() ?? null };
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) throw usageError('run_not_found', `no run ${runId} (workflow ${runWorkflowId(runId)}) in this Temporal namespace`);
    throw e;
  }
}

/** The run's progress (undefined when no worker answers the query in 5 s) and, while it runs, the accounts being retried. */
export async function runDetails(client: Client, runId: string, running: boolean): Promise<{ progress: RunProgress | undefined; retrying: RetryingAccount[] }> {
  const [progress, retrying] = await Promise.all([
    withTimeout(client.workflow.getHandle(runWorkflowId(runId)).query(runProgressQuery), 5000),
    running ? listRetryingAccounts(client, runId) : Promise.resolve([]),
  ]);
  return { progress, retrying };
}
