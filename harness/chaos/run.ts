import { attemptOutcomes } from '../../ledger';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { createPool, type Pool } from '../../clients/db';
import { connectClient } from '../../clients/temporal';
import { listRetryingAccounts } from '../../clients/retrying-accounts';
import { writeDatasetToPostgres } from '../synthetic/dataset-postgres';
import { generateDataset, type GroundTruth } from '../synthetic/generator';
import { startStack, type RunningStack } from '../stack/stack';
import { runWorkflowId } from '../../domain/workflow-ids';
import { migrationRunInputSchema } from '../../domain/inputs';
import { createPrng } from '../sandbox/prng';
import { pidOwningLocalPort } from './sockets';
import { deliverAimedKill } from './aimed-kill';
import { describeAction, planChaos, type ChaosOptions, type PlannedAction } from './plan';
import { judge, passed, type PlatformTruth, type Verdict } from './verdict';
import { sandboxAdmin } from '../sandbox/admin-client';

export interface ChaosSummary {
  seed: number;
  accounts: number;
  concurrency: number;
  plan: string[];
  workerKills: number;
  /** Kills after which the sandbox saw a schedule call lose its client before the answer. */
  midScheduleKills: number;
  serverRestarts: number;
  sandboxRestarts: number;
  throttleBursts: number;
  faults: {
    error5xxRate: number;
    responseLostRate: number;
    throttled: number;
    responseLost: number;
    eventsDropped: number;
    eventsDuplicated: number;
    eventsLate: number;
    eventReorder: boolean;
  };
  /** Most accounts seen retrying at once while 5xx faults were on, and how many at the end. */
  retrying: { maxSeen: number; samples: number; atEnd: number };
  seconds: number;
  verdict: { lost: number; duplicated: number; reopened: number; wrong: number; early: number };
  examples: { lost: string[]; duplicated: string[]; reopened: string[]; wrong: Verdict['wrong']; early: unknown[] };
  /** What the harness itself failed to deliver (too few proven mid-schedule kills, no retrying seen…). */
  harnessProblems: string[];
  passed: boolean;
  line: string;
  dataDir: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The stack's environment: the embedded services in the chaos data dir, the faults from the options. */
export function chaosEnv(base: Record<string, string | undefined>, dataDir: string, o: ChaosOptions): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base };
  for (const k of ['DATABASE_URL', 'S3_ENDPOINT', 'SQS_ENDPOINT', 'EVENTS_QUEUE_URL', 'TEMPORAL_ADDRESS']) delete env[k];
  const f = o.faults;
  return {
    ...env,
    DATA_DIR: dataDir,
    SOURCE_DOCUMENTS_DIR: path.join(dataDir, 'source-documents'),
    LOG_LEVEL: base.LOG_LEVEL ?? 'warn',
    SANDBOX_SEED: String(o.seed),
    SANDBOX_PROCESSING_DELAY_MS: '200',
    // Shorter than the default 60 s so that late events (30-120 s) often arrive after polling decided.
    OUTCOME_EVENT_WAIT_SECONDS: '30',
    SANDBOX_FAULT_5XX_RATE: String(f.error5xxRate),
    SANDBOX_FAULT_RESPONSE_LOST_RATE: String(f.responseLostRate),
    SANDBOX_FAULT_RETRY_AFTER_SECONDS: String(f.retryAfterSeconds),
    SANDBOX_EVENT_DROP_RATE: String(f.eventDropRate),
    SANDBOX_EVENT_DUPLICATE_RATE: String(f.eventDuplicateRate),
    SANDBOX_EVENT_LATE_RATE: String(f.eventLateRate),
    SANDBOX_EVENT_REORDER: String(f.eventReorder),
  };
}

// The sandbox's admin routes answer what each caller expects (sandbox/admin-client.ts).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the default of a caller-typed JSON answer
const admin = <T = any>(stack: RunningStack, method: string, route: string, body?: unknown): Promise<T> =>
  sandboxAdmin<T>(stack.info.sandboxUrl, method, route, body);

/** The knobs that only the admin API sets (environment covers the rest, so a restarted sandbox gets them back). */
function adminFaults(o: ChaosOptions) {
  return {
    scheduleLatencyMs: o.faults.scheduleLatencyMs,
    eventLateMinMs: o.faults.eventLateMinMs,
    eventLateMaxMs: o.faults.eventLateMaxMs,
    blindResendTrapMs: o.faults.blindResendTrapMs,
  };
}

async function outcomesRecorded(pool: Pool, runId: string): Promise<number> {
  return (await attemptOutcomes(pool, runId)).filter((r) => r.outcome !== null).length;
}

/**
 * One chaos run: a fresh embedded stack, generated accounts with ground truth, a real migration run
 * with the planned faults, and the verdict from the sandbox and the ledger.
 */
export async function runChaos(
  o: ChaosOptions,
  opts: { env: Record<string, string | undefined>; dataDir: string; log: (line: string) => void; onStack?: (stop: () => Promise<void>) => void },
): Promise<ChaosSummary> {
  const { log, dataDir } = opts;
  const plan = planChaos(o);
  const planText = plan.map(describeAction);
  log(`chaos seed ${o.seed} (replay with --seed ${o.seed}); fault schedule:`);
  for (const l of planText) log(`  ${l}`);

  fs.rmSync(dataDir, { recursive: true, force: true });
  const started = Date.now();
  log(`starting the embedded stack in ${dataDir} (free ports, ${o.workers} worker processes)`);
  const stack = await startStack({ env: chaosEnv(opts.env, dataDir, o), freePorts: true, workers: o.workers, log: (l) => log(`  stack: ${l}`) });
  opts.onStack?.(() => stack.stop());
  const pool = createPool(stack.env.DATABASE_URL, 4);
  let client: Client | undefined;
  try {
    client = await connectClient(stack.config);
    const faults = await admin(stack, 'PUT', '/admin/faults', adminFaults(o));
    log(`sandbox faults: ${JSON.stringify(faults)}`);

    log(`generating ${o.accounts} accounts (seed ${o.seed}, default defect mix)`);
    const items = [...generateDataset({ accounts: o.accounts, seed: o.seed })];
    await writeDatasetToPostgres(pool, items, { documentsDir: stack.config.SOURCE_DOCUMENTS_DIR });
    const truth: GroundTruth[] = items.map((i) => i.expected);
    // The generator writes one legacy record per account except for planted supplier conflicts: the
    // run takes every account the source lists.
    const runId = `chaos-${o.seed}`;
    const args = migrationRunInputSchema.parse({
      runId,
      supplierCode: stack.config.IMPORT_SUPPLIER_CODE,
      source: { kind: 'postgres' },
      selection: { kind: 'all' },
      concurrency: o.concurrency,
      timings: { eventWaitSeconds: stack.config.OUTCOME_EVENT_WAIT_SECONDS, pollMaxSeconds: stack.config.OUTCOME_POLL_MAX_SECONDS, supplierRecheckSeconds: 10 },
    });
    await client.workflow.start('migrationRunWorkflow', { taskQueue: stack.config.TEMPORAL_TASK_QUEUE, workflowId: runWorkflowId(runId), args: [args] });
    log(`run ${runId} started (concurrency ${o.concurrency}); Temporal UI ${stack.info.temporalUiUrl}`);

    const victims = createPrng(o.seed ^ 0x6b11);
    const replacements: Promise<void>[] = [];
    const ready = new Set(stack.info.workerPids);
    let samplerError: string | undefined;
    const counts = { workerKills: 0, midScheduleKills: 0, serverRestarts: 0, sandboxRestarts: 0, throttleBursts: 0 };
    const harnessNotes: string[] = [];
    const retrying = { maxSeen: 0, samples: 0 };
    let done = false;
    // Sampler: accounts retrying, from Temporal's pending activities (5xx faults are on all run long).
    const sampler = (async () => {
      while (!done) {
        const list = await listRetryingAccounts(client, runId, { limit: 200 }).catch((e: Error) => {
          if (samplerError !== e.message) log(`  (retrying list unavailable: ${(samplerError = e.message)})`);
          return undefined;
        });
        if (list) {
          retrying.samples++;
          retrying.maxSeen = Math.max(retrying.maxSeen, list.length);
        }
        await sleep(3_000);
      }
    })();

    const deadline = started + o.timeoutMinutes * 60_000;
    const pending: PlannedAction[] = [...plan];
    let finished = 0;
    let lastLog = 0;
    let lastRunCheck = Date.now();
    let faultsOff = false;
    for (;;) {
      finished = await outcomesRecorded(pool, runId).catch(() => finished);
      const share = finished / o.accounts;
      while (pending.length && pending[0].atShare <= share) {
        const next = pending.shift()!;
        log(`[${Math.round((Date.now() - started) / 1000)} s, ${finished}/${o.accounts}] ${describeAction(next)}`);
        await perform(next);
      }
      if (finished >= o.accounts) break;
      // The last tenth runs without request faults: the retrying list must drain to empty, and the
      // tail is not left to the retry policy's longest backoffs.
      if (!faultsOff && share >= 0.9 && pending.length === 0) {
        faultsOff = true;
        await admin(stack, 'PUT', '/admin/faults', { error5xxRate: 0, responseLostRate: 0, error429Rate: 0 }).catch(() => (faultsOff = false));
        if (faultsOff) log(`[${Math.round((Date.now() - started) / 1000)} s, ${finished}/${o.accounts}] request faults off for the last tenth`);
      }
      // The run may end with fewer rows than accounts generated (then some are lost): stop waiting.
      if (Date.now() - lastRunCheck > 5_000) {
        lastRunCheck = Date.now();
        const d = await client.workflow
          .getHandle(runWorkflowId(runId))
          .describe()
          .catch(() => undefined);
        if (d && d.status.name !== 'RUNNING') break;
      }
      if (Date.now() > deadline) {
        log(`timed out after ${o.timeoutMinutes} min with ${finished}/${o.accounts} outcomes recorded`);
        break;
      }
      if (Date.now() - lastLog > 15_000) {
        lastLog = Date.now();
        log(`[${Math.round((Date.now() - started) / 1000)} s] ${finished}/${o.accounts} outcomes recorded; most retrying at once so far: ${retrying.maxSeen}`);
      }
      await sleep(500);
    }
    // Actions planned past the last outcome still happen (a short run must not skip its faults).
    for (const next of pending) {
      log(`[after the run] ${describeAction(next)}`);
      await perform(next);
    }
    // The run workflow itself ends once every account has reported.
    for (let i = 0; i < 120; i++) {
      const d = await client.workflow
        .getHandle(runWorkflowId(runId))
        .describe()
        .catch(() => undefined);
      if (d && d.status.name !== 'RUNNING') break;
      await sleep(1_000);
    }
    done = true;
    await sampler;
    await Promise.all(replacements);
    const atEnd = (await listRetryingAccounts(client, runId).catch(() => [{}])).length;

    // The verdict: ledger + sandbox only.
    const ledgerRows = await attemptOutcomes(pool, runId);
    const ledger = new Map(ledgerRows.map((r) => [r.external_account_number, r]));
    const gt = await admin<{ accounts: Array<PlatformTruth & { external_identifier: string }> }>(
      stack,
      'GET',
      `/admin/ground-truth?supplier=${encodeURIComponent(stack.config.IMPORT_SUPPLIER_CODE)}`,
    );
    const platform = new Map(gt.accounts.map((a) => [a.external_identifier, a]));
    const witness = await admin(stack, 'GET', '/admin/requests');
    const events = await eventStats(stack);
    const verdict = judge({ truth, ledger, platform, early: witness.early });

    const harnessProblems: string[] = [...harnessNotes];
    if (counts.midScheduleKills < o.midScheduleKills)
      harnessProblems.push(`only ${counts.midScheduleKills} of ${o.midScheduleKills} kills proven mid-schedule`);
    if (o.faults.error5xxRate > 0 && retrying.maxSeen === 0) harnessProblems.push('no retrying account was ever listed while 5xx faults were on');
    if (atEnd !== 0) harnessProblems.push(`${atEnd} accounts still listed as retrying at the end`);
    if (finished < o.accounts) harnessProblems.push(`the run did not finish in ${o.timeoutMinutes} min`);

    const seconds = Math.round((Date.now() - started) / 1000);
    const v = {
      lost: verdict.lost.length,
      duplicated: verdict.duplicated.length,
      reopened: verdict.reopened.length,
      wrong: verdict.wrong.length,
      early: verdict.early,
    };
    const line =
      `chaos: ${o.accounts} accounts, ${counts.workerKills} worker kills (${counts.midScheduleKills} mid-schedule), ` +
      `${counts.serverRestarts} server restart${counts.serverRestarts === 1 ? '' : 's'}, ${counts.sandboxRestarts} sandbox restart${counts.sandboxRestarts === 1 ? '' : 's'}, ` +
      `5xx ${Math.round(o.faults.error5xxRate * 100)}%, ${counts.throttleBursts} 429 bursts (${witness.throttled} throttled), ${witness.responseLost} responses lost, ` +
      `events ${events.dropped} dropped / ${events.duplicated} duplicated / ${events.late} late${o.faults.eventReorder ? ' / reordered' : ''}, ` +
      `retrying seen ≤ ${retrying.maxSeen} (${atEnd} at end), ${seconds} s — ` +
      `lost ${v.lost}, duplicated ${v.duplicated}, reopened ${v.reopened}, wrong ${v.wrong}, early ${v.early}`;
    return {
      seed: o.seed,
      accounts: o.accounts,
      concurrency: o.concurrency,
      plan: planText,
      ...counts,
      faults: {
        error5xxRate: o.faults.error5xxRate,
        responseLostRate: o.faults.responseLostRate,
        throttled: witness.throttled,
        responseLost: witness.responseLost,
        eventsDropped: events.dropped,
        eventsDuplicated: events.duplicated,
        eventsLate: events.late,
        eventReorder: o.faults.eventReorder,
      },
      retrying: { ...retrying, atEnd },
      seconds,
      verdict: v,
      examples: {
        lost: verdict.lost.slice(0, 10),
        duplicated: verdict.duplicated.slice(0, 10),
        reopened: verdict.reopened.slice(0, 10),
        wrong: verdict.wrong.slice(0, 10),
        early: (witness.earlyRequests ?? []).slice(0, 10),
      },
      harnessProblems,
      passed: passed(verdict) && harnessProblems.length === 0,
      line,
      dataDir,
    };

    async function perform(p: PlannedAction): Promise<void> {
      const a = p.action;
      switch (a.kind) {
        case 'kill_worker': {
          // Only workers that are up (a replacement still starting polls nothing); never leave none.
          const up = () => stack.workers().filter((w) => ready.has(w.pid) && w.child.exitCode === null && w.child.signalCode === null);
          const waitForWorkers = async () => {
            for (let i = 0; i < 240 && up().length < 2 && o.workers > 1; i++) await sleep(500);
          };
          type Worker = ReturnType<typeof up>[number];
          const kill = async (victim: Worker, note: string) => {
            await victim.stop('SIGKILL', 5_000);
            counts.workerKills++;
            log(`  killed worker pid ${victim.pid}${note}; starting a replacement`);
            // In the background: the other workers go on, and so does the schedule.
            replacements.push(
              stack.startWorker().then(
                (w) => void ready.add(w.pid),
                (e: Error) => log(`  replacement worker failed to start: ${e.message}`),
              ),
            );
          };
          if (!a.midSchedule) {
            await waitForWorkers();
            const live = up();
            if (live.length > 0) await kill(victims.pick(live), '');
            break;
          }
          // Aimed: delivered for sure (harness/chaos/aimed-kill.ts), or reported as the harness's own problem.
          const requests = () => admin(stack, 'GET', '/admin/requests');
          const r = await deliverAimedKill<Worker>({
            up,
            waitForWorkers,
            async holder(candidates) {
              const w = await requests().catch(() => ({ inFlightSchedulePorts: [] }));
              const ports = w.inFlightSchedulePorts as number[];
              for (const port of ports) {
                const pid = pidOwningLocalPort(
                  candidates.map((x) => x.pid),
                  port,
                );
                const worker = candidates.find((x) => x.pid === pid);
                if (worker) return { worker, ports };
              }
              return undefined;
            },
            cutSchedules: async () => (await requests().catch(() => ({ clientGoneSchedules: 0 }))).clientGoneSchedules as number,
            kill: (w) => kill(w, ' (it held a schedule call)'),
            stillScheduling: () => accountsLeftToSchedule(pool, runId, o.accounts).then((n) => n > 0),
            sleep,
            now: Date.now,
          });
          for (const k of r.killed)
            log(
              `  pid ${k.worker.pid}: ${k.cut > 0 ? `mid-schedule (${k.cut} schedule call${k.cut === 1 ? '' : 's'} cut off)` : 'its call ended before the kill: aiming again'}`,
            );
          if (r.proven) counts.midScheduleKills++;
          else harnessNotes.push(`an aimed kill was not delivered: ${r.problem}`);
          break;
        }
        case 'restart_temporal':
          await stack.restartTemporal();
          counts.serverRestarts++;
          log('  Temporal server back on the same database');
          break;
        case 'restart_sandbox':
          await stack.restartPlatformServices();
          await admin(stack, 'PUT', '/admin/faults', adminFaults(o));
          counts.sandboxRestarts++;
          log('  sandbox back');
          break;
        case 'throttle_burst': {
          await admin(stack, 'PUT', '/admin/faults', { error429Rate: a.rate, retryAfterSeconds: a.retryAfterSeconds });
          await sleep(a.seconds * 1000);
          await admin(stack, 'PUT', '/admin/faults', { error429Rate: 0 }).catch(() => undefined);
          counts.throttleBursts++;
          break;
        }
      }
    }
  } finally {
    await client?.connection.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await stack.stop();
  }
}

/**
 * Accounts of the run not yet scheduled and without an outcome (those not even opened included):
 * while there are some, a schedule call can still be in flight for an aimed kill to cut.
 */
async function accountsLeftToSchedule(pool: Pool, runId: string, accounts: number): Promise<number> {
  const r = await pool.query<{ opened: number; waiting: number }>(
    `select count(*)::int as opened, count(*) filter (where outcome is null and scheduled_at is null)::int as waiting
       from migrate.account_attempts where run_id = $1`,
    [runId],
  );
  const { opened, waiting } = r.rows[0];
  return waiting + Math.max(accounts - opened, 0);
}

async function eventStats(stack: RunningStack): Promise<{ dropped: number; duplicated: number; late: number }> {
  const out = { dropped: 0, duplicated: 0, late: 0 };
  let after = 0;
  for (;;) {
    const page = await admin<{ events: Array<{ dropped: boolean; duplicated: boolean; late_ms: number }>; last_seq: number }>(
      stack,
      'GET',
      `/admin/events?limit=5000&after=${after}`,
    );
    for (const e of page.events) {
      if (e.dropped) out.dropped++;
      if (e.duplicated) out.duplicated++;
      if (e.late_ms > 0) out.late++;
    }
    if (page.events.length < 5000) return out;
    after = page.last_seq;
  }
}
