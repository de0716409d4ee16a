import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pauseRun, resumeRun, runProgressQuery } from '../../../domain/messages';
import { connectE2E, type E2E, groundTruth, listOf, ownWorkers, seedAccounts, stackEnv, startRun, uniqueId } from '../helpers';

// Scale-out is a claim about the production shape: it runs on the server engine only
// (`npm run test:e2e:server`). SCALE_OUT_ACCOUNTS sets the size (CI: the default; the README's
// figures come from a 2,000-account run of this same test).
const ENGINE = stackEnv().KRAKEN_TEMPORAL_ENGINE ?? 'dev';
const ACCOUNTS = Number(process.env.SCALE_OUT_ACCOUNTS ?? 300);
// A correctness test, not a timed one: the limit only stops a stuck run (generous on a loaded machine).
const TIMEOUT_MS = Math.max(600_000, ACCOUNTS * 2_000);

let e: E2E;
const workers = ownWorkers(() => e);
beforeAll(async () => {
  e = await connectE2E();
});
afterAll(async () => {
  workers.stopAll('SIGTERM');
  await e?.close();
});

/** A worker process on the test's own task queue; resolves once it polls, with its identity. */
async function startWorker(taskQueue: string, name: string): Promise<{ child: ChildProcess; identity: string }> {
  const child = await workers.start(taskQueue, name);
  // The identity workers/main.ts gives itself (clients/temporal.ts workerIdentity()).
  return { child, identity: `kraken-migrate-worker@${os.hostname()}:${child.pid}` };
}

describe.runIf(ENGINE === 'server')('scale-out on the Temporal server engine', () => {
  it(
    `three workers finish ${ACCOUNTS} accounts with none lost or duplicated, and a fourth started mid-run takes work`,
    async () => {
      const queue = uniqueId('scale-q-');
      const truth = await seedAccounts(e, { accounts: ACCOUNTS, seed: 31, defectRate: 0, accountNumberPrefix: `${uniqueId('SO')}-` });
      const first = await Promise.all([1, 2, 3].map((n) => startWorker(queue, `scale-worker-${n}`)));
      const runId = uniqueId('run-scale-');
      const started = Date.now();
      const handle = await startRun(
        e,
        {
          runId,
          supplierCode: e.config.IMPORT_SUPPLIER_CODE,
          selection: listOf(e, runId, truth),
          concurrency: 60,
        },
        { taskQueue: queue },
      );
      // The fourth joins with most of the run still to do. A worker takes tens of seconds to boot on a
      // loaded machine (it bundles the workflow code), so the operator pauses the run meanwhile and
      // resumes it once the new worker polls: the test then never depends on the boot time.
      for (;;) {
        const p = await handle.query(runProgressQuery);
        if (p.totals.completed >= Math.ceil(ACCOUNTS / 5)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      await handle.executeUpdate(pauseRun, { args: [{ reason: 'a worker joins' }] });
      const joinedAt = new Date();
      const late = await startWorker(queue, 'scale-worker-4');
      await handle.executeUpdate(resumeRun, { args: [] });

      const result = await handle.result();
      const seconds = (Date.now() - started) / 1000;
      expect(result.totals).toMatchObject({ completed: ACCOUNTS, failed: 0 });

      // Ledger: exactly one row per account, each completed; platform ground truth: each created once.
      const rows = (
        await e.pool.query<{
          external_account_number: string;
          outcome: string;
          platform_account_number: string;
          recorded_by: string | null;
          finished_at: Date;
        }>(`select external_account_number, outcome, platform_account_number, recorded_by, finished_at from migrate.account_attempts where run_id = $1`, [
          runId,
        ])
      ).rows;
      expect(rows).toHaveLength(ACCOUNTS);
      const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
      let lost = 0;
      let duplicated = 0;
      const ledger = new Map(rows.map((r) => [r.external_account_number, r]));
      for (const t of truth) {
        const row = ledger.get(t.external_account_number);
        const created = platform.get(t.external_account_number);
        if (row?.outcome !== 'completed' || !created || created.created_count === 0) lost += 1;
        if ((created?.created_count ?? 0) > 1) duplicated += 1;
        if (row && created) expect(row.platform_account_number).toBe(created.account_number);
      }
      expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });

      // Every outcome was recorded by one of the four workers, each of them took work, and the late
      // one's outcomes all come after it joined.
      const byWorker = new Map<string, number>();
      for (const r of rows) byWorker.set(r.recorded_by ?? 'unknown', (byWorker.get(r.recorded_by ?? 'unknown') ?? 0) + 1);
      const identities = [...first.map((w) => w.identity), late.identity];
      expect([...byWorker.keys()].sort()).toEqual([...identities].sort());
      for (const id of identities) expect(byWorker.get(id), id).toBeGreaterThan(0);
      for (const r of rows.filter((r) => r.recorded_by === late.identity)) expect(r.finished_at.getTime()).toBeGreaterThanOrEqual(joinedAt.getTime());

      process.stderr.write(
        `[scale-out] ${ACCOUNTS} accounts in ${seconds.toFixed(1)} s (${(ACCOUNTS / seconds).toFixed(2)} acc/s), lost ${lost}, duplicated ${duplicated}; ` +
          `outcomes recorded per worker: ${identities.map((id, i) => `w${i + 1}${i === 3 ? ' (joined mid-run)' : ''} ${byWorker.get(id)}`).join(', ')}\n`,
      );
    },
    TIMEOUT_MS,
  );
});
