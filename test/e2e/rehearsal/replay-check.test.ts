import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codecWarnings } from '../../../clients/temporal';
import { createCodec } from '../../../codec/data-converter';
import { replayCheck } from '../../../harness/rehearsal/replay-check';
import { stallWorker, WORKFLOW_TASK_TIMEOUT_MS } from '../../../harness/rehearsal/stall-worker';
import { decryptHistory } from '../../replay/corpus';
import { connectE2E, type E2E, groundTruth, listOf, ownWorkers, seedAccounts, startRun, uniqueId, until } from '../helpers';

// REPLAY_CHECK_ACCOUNTS sets the size (CI: 10); either engine (`KRAKEN_TEMPORAL_ENGINE=server`).
const ACCOUNTS = Number(process.env.REPLAY_CHECK_ACCOUNTS ?? 10);
const TIMEOUT_MS = Math.max(300_000, ACCOUNTS * 2_000);

let e: E2E;
const workers = ownWorkers(() => e);
beforeAll(async () => {
  e = await connectE2E();
});
afterAll(async () => {
  workers.stopAll('SIGTERM');
  await e?.close();
});

describe('the replay check, on a run whose workers keep the smallest workflow cache and one of which froze', () => {
  it(
    `${ACCOUNTS} accounts: no nondeterminism, at least one workflow task timed out and retried, none lost or duplicated`,
    async () => {
      const queue = uniqueId('replay-q-');
      const truth = await seedAccounts(e, { accounts: ACCOUNTS, seed: 32, defectRate: 0, accountNumberPrefix: `${uniqueId('RC')}-` });
      // The smallest cache (2; REPLAY_CHECK_CACHE sets another): with ten workflows or more per worker
      // the cache keeps evicting, so most workflow tasks replay their history. Not 0: the SDK's
      // zero-size cache drops local activity results, and workflow tasks time out without any stall
      // (config/index.ts WORKER_MAX_CACHED_WORKFLOWS says what was measured).
      const smallCache = { WORKER_MAX_CACHED_WORKFLOWS: process.env.REPLAY_CHECK_CACHE ?? '2' };
      const [frozen] = await Promise.all([workers.start(queue, 'replay-worker-1', smallCache), workers.start(queue, 'replay-worker-2', smallCache)]);
      const runId = uniqueId('run-replay-check-');
      const handle = await startRun(
        e,
        {
          runId,
          supplierCode: e.config.IMPORT_SUPPLIER_CODE,
          selection: listOf(e, runId, truth),
          concurrency: Math.min(ACCOUNTS, 60),
        },
        { taskQueue: queue },
      );
      // Frozen at once: the run's first tasks and its accounts' first tasks are being handed out now,
      // some to the frozen worker's open polls; they time out and the other worker replays them.
      const stall = await stallWorker({ name: 'replay-worker-1', pid: frozen.pid! }, WORKFLOW_TASK_TIMEOUT_MS + 3_000);
      expect(stall.frozenMs).toBeGreaterThan(WORKFLOW_TASK_TIMEOUT_MS);
      const result = await handle.result();
      expect(result.totals).toMatchObject({ completed: ACCOUNTS, failed: 0 });

      // Visibility catches up a moment after the workflows close.
      await until(
        'visibility to list every account workflow of the run',
        async () => (await e.client.workflow.count(`KmRunId = '${runId}' AND KmKind = 'account'`)).count === ACCOUNTS,
        120_000,
      );
      const check = await replayCheck(e.client, runId, { concurrency: 4 });
      process.stderr.write(`[replay-check] stall ${JSON.stringify(stall)}\n[replay-check] ${JSON.stringify(check)}\n`);
      expect(check.accountWorkflows).toBe(ACCOUNTS);
      expect(check.runSegments).toBeGreaterThanOrEqual(1);
      expect(check.workflowsScanned).toBe(check.accountWorkflows + check.runSegments);
      expect(check.failures.filter((f) => f.nondeterministic)).toEqual([]);
      expect(check.nondeterminism).toBe(0);
      expect(check.workflowTaskTimedOut).toBeGreaterThanOrEqual(1);
      // The frozen worker held timed-out tasks (the identity workers/main.ts gives itself): the stall forced them.
      expect(check.timedOutByWorker[`kraken-migrate-worker@${os.hostname()}:${frozen.pid}`]).toBeGreaterThanOrEqual(1);
      expect(check.workflowsWithTimeouts).toBeGreaterThanOrEqual(1);

      // The platform's ground truth: every account created exactly once.
      const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
      for (const t of truth) expect(platform.get(t.external_account_number)?.created_count, t.external_account_number).toBe(1);

      // `REPLAY_CHECK_FIXTURE=<file>` records the history of one workflow that timed out, payloads
      // decrypted, for the unit test (harness/test/rehearsal/fixtures).
      const fixture = process.env.REPLAY_CHECK_FIXTURE;
      if (fixture) await recordTimedOutHistory(runId, fixture);
    },
    TIMEOUT_MS,
  );
});

async function recordTimedOutHistory(runId: string, file: string): Promise<void> {
  for await (const wf of e.client.workflow.list({ query: `KmRunId = '${runId}'` })) {
    const history = await e.client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    const timedOut = (history.events ?? []).some((ev) => ev.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT);
    if (!timedOut) continue;
    const codec = createCodec(e.config, { logger: codecWarnings });
    await decryptHistory(history, (p) => codec.decode(p));
    const wire = Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('base64');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      `${JSON.stringify({ workflowId: wf.workflowId, workflowType: wf.type, events: history.events?.length ?? 0, history: wire }, null, 1)}\n`,
    );
    return;
  }
  throw new Error(`no workflow of ${runId} has a WorkflowTaskTimedOut event to record`);
}
