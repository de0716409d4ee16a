import { execFile, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitTaskQueueRouting, setCurrentVersion, workerTaskQueues } from '../../../clients/worker-deployments';
import { platformTaskQueue } from '../../../domain/task-queues';
import { workerVersions, type WorkerVersionsReport } from '../../../cli/worker-versions';
import { runWorkflowId } from '../../../domain/workflow-ids';
import { runProgressQuery } from '../../../domain/messages';
import { accountsFile, attempts, connectE2E, groundTruth, ownWorkers, sandbox, seedAccounts, startRun, uniqueId, until, type E2E } from '../helpers';

let e: E2E;
const workers = ownWorkers(() => e);
beforeAll(async () => {
  e = await connectE2E();
});
afterAll(async () => {
  workers.stopAll();
  await sandbox(e, 'PUT', '/admin/faults', { processingDelayMs: 200 }).catch(() => {});
  await e?.close();
});

const ACCOUNTS = 20;
const CONCURRENCY = 4;
/** How long version A's accounts wait for the platform: long enough to be still pinned to A at the roll-out. */
const HELD_MS = 30_000;

/** The CLI as an operator runs it, pointed at the e2e stack. */
function kraken(args: string[], extraEnv: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [require.resolve('tsx/cli'), 'cli/main.ts', ...args],
      { cwd: path.resolve(__dirname, '../../..'), env: { ...process.env, ...e.env, ...extraEnv } },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The message of the run's last failed workflow task (a nondeterminism error names the command and event). */
async function lastTaskFailure(runId: string): Promise<string> {
  const history = await e.client.workflow.getHandle(runWorkflowId(runId)).fetchHistory();
  const failed = (history.events ?? []).filter((ev) => ev.workflowTaskFailedEventAttributes).at(-1);
  return failed?.workflowTaskFailedEventAttributes?.failure?.message ?? 'none';
}

const identityOf = (w: ChildProcess) => `kraken-migrate-worker@${os.hostname()}:${w.pid}`;

describe('upgrading during a migration (Worker Versioning)', () => {
  it('version B rolls out mid-run: A finishes its pinned accounts, later ones run on B, the run moves to B; every account ends once', async () => {
    // A deployment and a task queue of its own: making B current touches no other test's workers.
    const deploymentName = uniqueId('km-upgrade-');
    const queue = uniqueId('upgrade-q-');
    const A = { deploymentName, buildId: 'A-0.1.0' };
    const B = { deploymentName, buildId: 'B-0.2.0' };
    const truth = await seedAccounts(e, { accounts: ACCOUNTS, seed: 29, defectRate: 0, accountNumberPrefix: `${uniqueId('UP')}-` });
    const accounts = truth.map((t) => t.external_account_number);

    // Version A: today's workflows. Its first accounts are held at the platform so they are still running at the roll-out.
    const workerA = await workers.start(queue, 'upgrade-worker-a', { KRAKEN_DEPLOYMENT_NAME: deploymentName, KRAKEN_BUILD_ID: A.buildId });
    await setCurrentVersion(e.client, A);
    await awaitTaskQueueRouting(e.client, A, workerTaskQueues(queue, platformTaskQueue(queue)));
    // Version B: the same plus a workflow change behind patched() (version-b/interceptors.ts). It polls
    // from now on but gets nothing until it is current.
    const workerB = await workers.start(
      queue,
      'upgrade-worker-b',
      { KRAKEN_DEPLOYMENT_NAME: deploymentName, KRAKEN_BUILD_ID: B.buildId },
      'test/e2e/upgrade/version-b/worker.ts',
    );
    await sandbox(e, 'PUT', '/admin/faults', { processingDelayMs: HELD_MS });

    const runId = uniqueId('run-upgrade-');
    const handle = await startRun(
      e,
      { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: accountsFile(e, runId, accounts) }, concurrency: CONCURRENCY },
      { taskQueue: queue },
    );
    // The first CONCURRENCY accounts were scheduled by A's workers (so pinned to A): roll B out now.
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    await until('the first accounts scheduled on version A', async () => {
      const gt = await groundTruth(e, supplier);
      return accounts.filter((a) => (gt.get(a)?.schedule_accepted_count ?? 0) > 0).length === CONCURRENCY;
    });
    await sandbox(e, 'PUT', '/admin/faults', { processingDelayMs: 200 });
    const rolledOutAt = new Date();
    await setCurrentVersion(e.client, B);
    await awaitTaskQueueRouting(e.client, B, workerTaskQueues(queue, platformTaskQueue(queue)));

    // What an operator sees (`kraken-migrate workers`): B current, A still holding its pinned
    // accounts, so A's workers must stay.
    const shown = await kraken(['workers', '--json'], { KRAKEN_DEPLOYMENT_NAME: deploymentName });
    expect(shown.code, shown.stderr).toBe(0);
    const atRollOut = JSON.parse(shown.stdout) as WorkerVersionsReport;
    expect(atRollOut.currentBuildId).toBe(B.buildId);
    expect(atRollOut.versions.map((v) => [v.buildId, v.current, v.accountsRunning, v.retireable])).toEqual([
      [B.buildId, true, 0, false],
      [A.buildId, false, CONCURRENCY, false],
    ]);
    const table = await kraken(['workers'], { KRAKEN_DEPLOYMENT_NAME: deploymentName });
    expect(table.stdout).toContain(`Deployment ${deploymentName}: current version ${B.buildId}`);
    expect(table.stdout).toMatch(new RegExp(`${A.buildId}\\s+\\S+\\s+${CONCURRENCY}\\s+0\\s+no`));

    // A's workers stop once nothing is pinned to A any more (the operator's cue: `kraken-migrate workers`).
    await until(
      'no account left on version A',
      async () => (await workerVersions(e.client, deploymentName))?.versions.find((v) => v.buildId === A.buildId)?.retireable === true,
      180_000,
    );
    const ledgerWhenAStopped = await attempts(e, runId);
    workerA.kill('SIGTERM');
    await new Promise((r) => (workerA.exitCode !== null ? r(undefined) : workerA.once('exit', r)));

    // Bounded: a run whose tasks fail on B (a change not behind patched()) never ends; say why.
    await until('the run to end', async () => (await handle.describe()).status.name !== 'RUNNING', 150_000).catch(async (err: Error) => {
      throw new Error(`${err.message}; the run's last workflow task failure: ${await lastTaskFailure(runId)}`);
    });
    const result = await handle.result();
    expect(result.totals).toMatchObject({ completed: ACCOUNTS, failed: 0, notAttempted: 0 });

    // Ground truth: every account ended once, none lost, none created or scheduled twice.
    const ledger = await attempts(e, runId);
    const platform = await groundTruth(e, supplier);
    for (const a of accounts) {
      expect(ledger.get(a)?.outcome, a).toBe('completed');
      expect(platform.get(a), a).toMatchObject({ created_count: 1, schedule_accepted_count: 1 });
      expect(ledger.get(a)?.platform_account_number).toBe(platform.get(a)?.account_number);
    }

    // Which version ran each account (the server's TemporalWorkerDeploymentVersion, as the UI filters it).
    const onVersion = async (v: typeof A) => {
      const out = new Map<string, Date>();
      for await (const w of e.client.workflow.list({
        query: `KmRunId = '${runId}' AND KmKind = 'account' AND TemporalWorkerDeploymentVersion = '${deploymentName}:${v.buildId}'`,
      })) {
        out.set(w.workflowId, w.startTime);
      }
      return out;
    };
    const [onA, onB] = await Promise.all([onVersion(A), onVersion(B)]);
    expect(onA.size).toBe(CONCURRENCY);
    expect(onA.size + onB.size).toBe(ACCOUNTS);
    for (const started of onA.values()) expect(started.getTime()).toBeLessThan(rolledOutAt.getTime());
    for (const started of onB.values()) expect(started.getTime()).toBeGreaterThanOrEqual(rolledOutAt.getTime());
    // B's change ran on every account B started (its marker, in the UI's KmStage).
    const marked = await e.client.workflow.count(`KmRunId = '${runId}' AND KmKind = 'account' AND KmStage = 'version-b'`);
    expect(marked.count).toBe(onB.size);

    // The ledger says the same: A's accounts were all recorded before A stopped, by A; the rest by B.
    const byA = [...ledger.values()].filter((r) => r.recorded_by === identityOf(workerA));
    const byB = [...ledger.values()].filter((r) => r.recorded_by === identityOf(workerB));
    expect(byA.length).toBe(CONCURRENCY);
    expect(byB.length).toBe(ACCOUNTS - CONCURRENCY);
    for (const r of byA) expect(ledgerWhenAStopped.get(r.external_account_number)?.outcome).toBe('completed');

    // The run moved to B (AUTO_UPGRADE) and replayed A's history there without a nondeterminism error.
    const run = await e.client.workflow.getHandle(runWorkflowId(runId)).describe();
    expect(run.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId).toBe(B.buildId);
    expect((await handle.query(runProgressQuery)).state).toBe('completed');
  });
});
