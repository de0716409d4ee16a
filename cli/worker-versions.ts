import type { Client } from '@temporalio/client';
import { describeDeployment, runningOnVersion, type DeploymentDescription } from '../clients/worker-deployments';

/** One deployment version as `kraken-migrate workers` shows it. */
export interface VersionRow {
  buildId: string;
  /** The server's status: current, ramping, draining, drained or inactive. */
  status: string;
  current: boolean;
  /** Account workflows still running pinned to this version. */
  accountsRunning: number;
  /** Carry-overs after import (accountDeltaWorkflow) still running pinned to this version. */
  postImportRunning: number;
  /** No new workflow goes to it and none is left on it: its workers can stop and the version be deleted. */
  retireable: boolean;
}

export interface WorkerVersionsReport {
  deploymentName: string;
  currentBuildId: string | null;
  rampingBuildId: string | null;
  versions: VersionRow[];
}

/**
 * Whether a version's workers may stop: the server sends it nothing new (neither current nor
 * ramping) and no pinned account or carry-over is left on it (those would wait for its workers).
 * Runs are AUTO_UPGRADE: they move to the current version at their next task and never hold one.
 */
export function retireable(v: { status: string; current: boolean; accountsRunning: number; postImportRunning: number }): boolean {
  if (v.current || v.status === 'current' || v.status === 'ramping') return false;
  return v.accountsRunning === 0 && v.postImportRunning === 0;
}

/** Rows newest first, from the server's description and the running counts per version. */
export function versionRows(d: DeploymentDescription, counts: Map<string, { accounts: number; postImport: number }>): VersionRow[] {
  return [...d.versions]
    .sort((a, b) => (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0))
    .map((v) => {
      const c = counts.get(v.buildId) ?? { accounts: 0, postImport: 0 };
      const row = {
        buildId: v.buildId,
        status: v.status,
        current: v.buildId === d.currentBuildId,
        accountsRunning: c.accounts,
        postImportRunning: c.postImport,
      };
      return { ...row, retireable: retireable(row) };
    });
}

/** What `kraken-migrate workers` reports: every version of the deployment, which is current, what is left on each. */
export async function workerVersions(client: Client, deploymentName: string): Promise<WorkerVersionsReport | undefined> {
  const d = await describeDeployment(client, deploymentName);
  if (!d) return undefined;
  const counts = new Map<string, { accounts: number; postImport: number }>();
  for (const v of d.versions) {
    const version = { deploymentName, buildId: v.buildId };
    const [accounts, postImport] = await Promise.all([runningOnVersion(client, version, 'account'), runningOnVersion(client, version, 'post-import')]);
    counts.set(v.buildId, { accounts, postImport });
  }
  return { deploymentName, currentBuildId: d.currentBuildId ?? null, rampingBuildId: d.rampingBuildId ?? null, versions: versionRows(d, counts) };
}
