import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/** One version of a worker deployment, as the server describes it. */
export interface DeploymentVersionSummary {
  buildId: string;
  /** inactive | current | ramping | draining | drained (the server's WorkerDeploymentVersionStatus). */
  status: string;
  createdAt?: Date;
}

export interface DeploymentDescription {
  deploymentName: string;
  currentBuildId?: string;
  rampingBuildId?: string;
  versions: DeploymentVersionSummary[];
}

const STATUS = temporal.api.enums.v1.WorkerDeploymentVersionStatus;

function statusName(s: number | null | undefined): string {
  const name = STATUS[s ?? 0] as string | undefined;
  return (name ?? 'WORKER_DEPLOYMENT_VERSION_STATUS_UNSPECIFIED').replace('WORKER_DEPLOYMENT_VERSION_STATUS_', '').toLowerCase();
}

function isNotFound(e: unknown): boolean {
  return (e as { code?: number }).code === 5; // gRPC NOT_FOUND
}

/** The deployment's versions and which is current; undefined when no worker of it has polled yet. */
export async function describeDeployment(client: Client, deploymentName: string): Promise<DeploymentDescription | undefined> {
  let res: temporal.api.workflowservice.v1.IDescribeWorkerDeploymentResponse;
  try {
    res = await client.workflowService.describeWorkerDeployment({ namespace: client.options.namespace, deploymentName });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
  const info = res.workerDeploymentInfo;
  const routing = info?.routingConfig;
  return {
    deploymentName,
    currentBuildId: routing?.currentDeploymentVersion?.buildId || undefined,
    rampingBuildId: routing?.rampingDeploymentVersion?.buildId || undefined,
    versions: (info?.versionSummaries ?? []).map((v) => ({
      buildId: v.deploymentVersion?.buildId ?? '',
      status: statusName(v.status),
      createdAt: v.createTime?.seconds != null ? new Date(Number(v.createTime.seconds) * 1000 + Math.floor((v.createTime.nanos ?? 0) / 1e6)) : undefined,
    })),
  };
}

/**
 * Makes `version` its deployment's current version: from then on the server sends every new
 * workflow (and every AUTO_UPGRADE one at its next task) to that version's workers. The server
 * learns of a version from its workers' first polls and refuses until every task queue of the old
 * current version has a poller of the new one, so this retries those refusals until `timeoutMs`.
 * What the embedded stack does when its worker starts; in production the operator does it
 * (`temporal worker deployment set-current-version`).
 */
export async function setCurrentVersion(
  client: Client,
  version: WorkerDeploymentVersion,
  opts: { identity?: string; timeoutMs?: number; ignoreMissingTaskQueues?: boolean } = {},
): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const now = await describeDeployment(client, version.deploymentName).catch(() => undefined);
    if (now?.currentBuildId === version.buildId) return;
    try {
      await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        identity: opts.identity ?? 'kraken-migrate',
        ignoreMissingTaskQueues: opts.ignoreMissingTaskQueues ?? false,
      });
      return;
    } catch (e) {
      if (Date.now() > deadline) {
        throw new Error(`could not make ${version.deploymentName}:${version.buildId} the current version: ${(e as Error).message}`, { cause: e });
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Quotes a value for a visibility query (single quotes, backslash-escaped). */
function q(v: string): string {
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * How many workflows of `kind` (KmKind) are still running on a version: the server keeps each
 * versioned workflow's version in the TemporalWorkerDeploymentVersion search attribute
 * (`deployment:buildId`, set at each workflow task it completes).
 */
export async function runningOnVersion(client: Client, version: WorkerDeploymentVersion, kind: string): Promise<number> {
  const query = `TemporalWorkerDeploymentVersion = ${q(`${version.deploymentName}:${version.buildId}`)} AND KmKind = ${q(kind)} AND ExecutionStatus = 'Running'`;
  return (await client.workflow.count(query)).count;
}

const TQ_TYPE = temporal.api.enums.v1.TaskQueueType;

/**
 * Waits until each task queue routes to `version` as its current version. A worker that joins a
 * version already current on a task queue new to it (a test's own queue) registers the queue at its
 * first poll, and the server copies the routing to it a moment later: a query sent in between waits
 * for a worker that never comes (queries are not queued like tasks). Returns once every queue knows.
 */
export async function awaitTaskQueueRouting(
  client: Client,
  version: WorkerDeploymentVersion,
  queues: ReadonlyArray<{ name: string; type: 'workflow' | 'activity' }>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const q of queues) {
    for (;;) {
      const res = await client.workflowService
        .describeTaskQueue({
          namespace: client.options.namespace,
          taskQueue: { name: q.name, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
          taskQueueType: q.type === 'workflow' ? TQ_TYPE.TASK_QUEUE_TYPE_WORKFLOW : TQ_TYPE.TASK_QUEUE_TYPE_ACTIVITY,
        })
        .catch(() => undefined);
      const current = res?.versioningInfo?.currentDeploymentVersion;
      if (current?.deploymentName === version.deploymentName && current.buildId === version.buildId) break;
      if (Date.now() > deadline)
        throw new Error(`task queue ${q.name} (${q.type}) does not route to ${version.deploymentName}:${version.buildId} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** The task queues one process's workers poll (workers/worker.ts): the main queue and its platform queue. */
export function workerTaskQueues(taskQueue: string, platformQueue: string): Array<{ name: string; type: 'workflow' | 'activity' }> {
  return [
    { name: taskQueue, type: 'workflow' },
    { name: taskQueue, type: 'activity' },
    { name: platformQueue, type: 'activity' },
  ];
}
