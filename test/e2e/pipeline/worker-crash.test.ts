import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProgressQuery } from '../../../domain/messages';
import { attempts, connectE2E, type E2E, groundTruth, listOf, ownWorkers, sandbox, seedAccounts, startRun, uniqueId } from '../helpers';

let e: E2E;
const workers = ownWorkers(() => e);
const startWorker = workers.start;
beforeAll(async () => {
  e = await connectE2E();
});
afterAll(async () => {
  workers.stopAll();
  await sandbox(e, 'PUT', '/admin/faults', { latencyMs: 0, latencyJitterMs: 0, scheduleLatencyMs: 0, blindResendTrapMs: 0 }).catch(() => {});
  await e?.close();
});

describe('a worker killed mid-run', () => {
  it('killed while a schedule call is in flight: every account has one outcome, was created once and scheduled once', async () => {
    const queue = uniqueId('crash-q-');
    const truth = await seedAccounts(e, { accounts: 30, seed: 21, defectRate: 0, accountNumberPrefix: `${uniqueId('KW')}-` });
    // Schedule calls are held long enough at the sandbox that one is in flight when the worker dies.
    // Under the blind-resend trap the import of a call whose client died stays pending past the
    // retry (the schedule activity's start-to-close timeout, 85 s with a 10 s event wait:
    // workflows/activity-options.ts scheduleAwaitingEvent, then its backoff), and a repeated
    // schedule would open a second import: only reading the status first keeps it at one.
    await sandbox(e, 'PUT', '/admin/faults', { latencyMs: 100, latencyJitterMs: 50, scheduleLatencyMs: 1_500, blindResendTrapMs: 100_000 });
    // Its queue (and so its platform queue, `<queue>-platform`) is polled by no other worker: the
    // process killed is the one running the platform calls.
    const first = await startWorker(queue, 'crash-worker-1');
    const runId = uniqueId('run-crash-');
    const handle = await startRun(
      e,
      {
        runId,
        supplierCode: e.config.IMPORT_SUPPLIER_CODE,
        selection: listOf(e, runId, truth),
        concurrency: 8,
        timings: { eventWaitSeconds: 10, pollMaxSeconds: 3600, supplierRecheckSeconds: 30 },
      },
      { taskQueue: queue },
    );
    // Kill it with some accounts done and a schedule call in flight at the sandbox, one that arrived
    // since the last look (its port was not in flight then): it has most of its 1.5 s left. Any call
    // in flight could end before the kill lands on a loaded machine (CI saw none cut off).
    const before = await sandbox(e, 'GET', '/admin/requests');
    let inFlightBefore = new Set<number>();
    for (;;) {
      const p = await handle.query(runProgressQuery);
      const ports: number[] = (await sandbox(e, 'GET', '/admin/requests')).inFlightSchedulePorts;
      const arrived = ports.some((port) => !inFlightBefore.has(port));
      inFlightBefore = new Set(ports);
      if (p.totals.completed >= 5 && arrived) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    expect(() => process.kill(first.pid!, 0)).toThrow();
    // The sandbox saw the killed worker's schedule call lose its client before the answer.
    let cut = 0;
    for (let i = 0; i < 100 && cut === 0; i++) {
      cut = (await sandbox(e, 'GET', '/admin/requests')).clientGoneSchedules - before.clientGoneSchedules;
      if (cut === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(cut).toBeGreaterThanOrEqual(1);
    await startWorker(queue, 'crash-worker-2');

    const result = await handle.result();
    expect(result.totals).toMatchObject({ completed: 30, failed: 0 });
    const ledger = await attempts(e, runId);
    const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    for (const t of truth) {
      const row = ledger.get(t.external_account_number)!;
      expect(row.outcome).toBe('completed');
      expect(platform.get(t.external_account_number)).toMatchObject({ created_count: 1, schedule_accepted_count: 1, import_process_count: 1 });
      expect(row.platform_account_number).toBe(platform.get(t.external_account_number)?.account_number);
    }
  });
});
