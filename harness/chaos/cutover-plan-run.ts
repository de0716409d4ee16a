import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { loadPlanFile } from '../../cli/plan-file';
import { planArgsOf } from '../../cli/actions/plan';
import { createPool } from '../../clients/db';
import { connectClient } from '../../clients/temporal';
import { attemptOutcomes } from '../../ledger';
import { controlPlan, planStatusQuery, type PlanStatus } from '../../domain/plan-messages';
import type { cutoverPlanWorkflow } from '../../workflows/cutover-plan';
import { planWorkflowId } from '../../domain/workflow-ids';
import { sandboxAdmin } from '../sandbox/admin-client';
import { createPrng } from '../sandbox/prng';
import { startStack } from '../stack/stack';
import { writeDatasetToPostgres } from '../synthetic/dataset-postgres';
import { generateDataset } from '../synthetic/generator';
import { judgePlanWindows, planWindowsPassed, type PlanLedgerRow, type PlanPlatformRow, type PlanWaveTruth } from './plan-verdict';
import { judge, passed, type LedgerOutcome, type PlatformTruth } from './verdict';

/** `chaos --plan`: a cutover plan of two waves under worker kill -9s and a Temporal restart. */
export interface PlanChaosSummary {
  seed: number;
  accounts: { first: number; second: number };
  workerKills: number;
  serverRestarts: number;
  seconds: number;
  /** Events of the run, in order, with seconds since the plan started. */
  timeline: string[];
  verdict: {
    lost: number;
    duplicated: number;
    wrong: number;
    dispatchedOutside: number;
    scheduledOutside: number;
    overCap: number;
    notAttemptedButScheduled: number;
  };
  perDay: Record<string, Record<string, number>>;
  dispatchedPerDay: Record<string, Record<string, number>>;
  examples: Record<string, unknown[]>;
  harnessProblems: string[];
  passed: boolean;
  line: string;
  dataDir: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** How long after a window's end an account dispatched just before it may still reach the platform. */
const IN_FLIGHT_GRACE_MS = 60_000;

/**
 * The scenario, on a fresh embedded stack with two workers: wave `first` (30 accounts) has two
 * windows with a gap; wave `second` (12 accounts) a daily cap of 8. A worker is killed (kill -9)
 * while `first` dispatches in its first window, the Temporal server is killed and restarted in the
 * gap (the plan waits on a durable timer for the second window), a worker is killed while `second`
 * dispatches; once `second` is capped the operator skips it (its rest recorded not attempted). The
 * verdict, from the ledger and the sandbox only: lost, duplicated and wrong 0; nothing dispatched
 * outside a window nor scheduled with the platform outside one (plus the in-flight grace); no local
 * day over the cap.
 */
export async function runPlanChaos(opts: {
  seed: number;
  env: Record<string, string | undefined>;
  dataDir: string;
  log: (line: string) => void;
  timeoutMinutes?: number;
  onStack?: (stop: () => Promise<void>) => void;
}): Promise<PlanChaosSummary> {
  const { log, dataDir, seed } = opts;
  const counts = { first: 30, second: 12, cap: 8 };
  fs.rmSync(dataDir, { recursive: true, force: true });
  const started = Date.now();
  const base: Record<string, string | undefined> = { ...opts.env };
  for (const k of ['DATABASE_URL', 'S3_ENDPOINT', 'SQS_ENDPOINT', 'EVENTS_QUEUE_URL', 'TEMPORAL_ADDRESS']) delete base[k];
  log(`chaos --plan seed ${seed}: starting the embedded stack in ${dataDir} (free ports, 2 worker processes)`);
  const stack = await startStack({
    env: {
      ...base,
      DATA_DIR: dataDir,
      SOURCE_DOCUMENTS_DIR: path.join(dataDir, 'source-documents'),
      LOG_LEVEL: base.LOG_LEVEL ?? 'warn',
      SANDBOX_SEED: String(seed),
      SANDBOX_PROCESSING_DELAY_MS: '200',
      OUTCOME_EVENT_WAIT_SECONDS: '10',
    },
    freePorts: true,
    workers: 2,
    log: (l) => log(`  stack: ${l}`),
  });
  opts.onStack?.(() => stack.stop());
  const pool = createPool(stack.env.DATABASE_URL, 4);
  let client: Client | undefined;
  const timeline: string[] = [];
  const harnessProblems: string[] = [];
  const kills = { worker: 0, server: 0 };
  try {
    client = await connectClient(stack.config);
    // Schedule calls held 2 s at the sandbox: kills land mid-call, and `first` (2 in flight) starts at
    // most one account a second, so even an idle machine leaves some of it for the second window.
    await sandboxAdmin(stack.info.sandboxUrl, 'PUT', '/admin/faults', { scheduleLatencyMs: 2_000 });
    const items = [...generateDataset({ accounts: counts.first + counts.second, seed, accountNumberPrefix: `PLAN${seed}-` })];
    await writeDatasetToPostgres(pool, items, { documentsDir: stack.config.SOURCE_DOCUMENTS_DIR });
    const accounts = items.map((i) => i.expected.external_account_number);
    const cohorts = { first: accounts.slice(0, counts.first), second: accounts.slice(counts.first) };
    const dir = path.join(dataDir, 'plan');
    fs.mkdirSync(dir, { recursive: true });
    for (const [name, list] of Object.entries(cohorts)) fs.writeFileSync(path.join(dir, `${name}.txt`), list.join('\n') + '\n');

    const t0 = Date.now();
    const first = [
      { start: t0 + 20_000, end: t0 + 40_000 },
      { start: t0 + 75_000, end: t0 + 20 * 60_000 },
    ];
    const second = [{ start: t0 + 20_000, end: t0 + 20 * 60_000 }];
    const iso = (t: number) => new Date(t).toISOString();
    const windows = (ws: Array<{ start: number; end: number }>) => ws.map((w) => `{ start: "${iso(w.start)}", end: "${iso(w.end)}" }`).join(', ');
    // Stop the line off in effect (the generated defects are data errors, and the platform fails none on purpose).
    const planFile = path.join(dir, 'plan.yaml');
    fs.writeFileSync(
      planFile,
      `name: chaos-plan
timezone: Europe/London
waves:
  - name: first
    supplier: ${stack.config.IMPORT_SUPPLIER_CODE}
    source: postgres
    accounts: first.txt
    concurrency: 2
    windows: [${windows(first)}]
    gates:
      stop_line: { max_same_code: 1000, max_failure_rate: 1 }
  - name: second
    supplier: ${stack.config.IMPORT_SUPPLIER_CODE}
    source: postgres
    accounts: second.txt
    concurrency: 3
    daily_cap: ${counts.cap}
    windows: [${windows(second)}]
    gates:
      stop_line: { max_same_code: 1000, max_failure_rate: 1 }
`,
    );
    const planId = `chaos-plan-${seed}`;
    const args = await planArgsOf(loadPlanFile(planFile), stack.config, planId, 2);
    const handle = await client.workflow.start<typeof cutoverPlanWorkflow>('cutoverPlanWorkflow', {
      workflowId: planWorkflowId(planId),
      taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
      args: [args],
    });
    const at = () => `${Math.round((Date.now() - t0) / 1000)} s`;
    const note = (m: string) => {
      timeline.push(`${at()}: ${m}`);
      log(`[${at()}] ${m}`);
    };
    note(`plan ${planId} started: first ${counts.first} accounts (windows +20-40 s, +75 s on), second ${counts.second} (cap ${counts.cap} a day)`);

    const victims = createPrng(seed ^ 0x91a7);
    const replacements: Promise<void>[] = [];
    const killWorker = async (why: string) => {
      const live = stack.workers().filter((w) => w.child.exitCode === null && w.child.signalCode === null);
      if (live.length === 0) return harnessProblems.push(`no live worker to kill (${why})`);
      const victim = victims.pick(live);
      await victim.stop('SIGKILL', 5_000);
      kills.worker++;
      note(`kill -9 worker pid ${victim.pid} (${why}); starting a replacement`);
      // In the background: the other worker goes on, and so does the scenario.
      replacements.push(
        stack.startWorker().then(
          () => undefined,
          (e: Error) => void harnessProblems.push(`a replacement worker failed to start: ${e.message}`),
        ),
      );
    };
    const done = { killFirst: false, restart: false, killSecond: false, skipped: false };
    const deadline = started + (opts.timeoutMinutes ?? 15) * 60_000;
    let status: PlanStatus | undefined;
    let lastLog = 0;
    for (;;) {
      status = await handle.query(planStatusQuery).catch(() => status);
      const d = await handle.describe().catch(() => undefined);
      if (d && d.status.name !== 'RUNNING') break;
      const [a, b] = status?.waves ?? [];
      const now = Date.now();
      if (!done.killFirst && a && a.accounts.started >= 4 && a.accounts.in_flight > 0 && now < first[0].end) {
        done.killFirst = true;
        await killWorker(`wave first: ${a.accounts.started} started, ${a.accounts.in_flight} in flight, in its first window`);
      }
      if (!done.restart && now >= first[0].end + 8_000 && now < first[1].start - 5_000) {
        done.restart = true;
        note(`kill -9 the Temporal server between the windows (wave first ${a?.state ?? '?'}: ${a?.accounts.started ?? '?'} started); restarting it`);
        await stack.restartTemporal();
        kills.server++;
        note('Temporal server back on the same database');
      }
      if (!done.killSecond && b && b.accounts.started >= 3 && b.accounts.in_flight > 0) {
        done.killSecond = true;
        await killWorker(`wave second: ${b.accounts.started} started, ${b.accounts.in_flight} in flight`);
      }
      // Capped: until the next local midnight in a window; with none before its window ends, out of windows.
      if (!done.skipped && b && (b.state === 'capped' || b.state === 'out_of_windows') && b.accounts.in_flight === 0) {
        done.skipped = true;
        note(`wave second ${b.state} with ${b.started_today} started today (cap ${counts.cap}); the operator skips it`);
        await handle.executeUpdate(controlPlan, { args: [{ action: 'skip', wave: 'second' }] });
      }
      if (now > deadline) {
        harnessProblems.push(`the plan did not end in ${opts.timeoutMinutes ?? 15} min`);
        break;
      }
      if (now - lastLog > 15_000 && status) {
        lastLog = now;
        note(status.waves.map((w) => `${w.name} ${w.state} ${w.accounts.started}/${w.accounts.planned ?? '?'} started`).join('; '));
      }
      await sleep(500);
    }
    if (!done.killFirst) harnessProblems.push('no worker was killed in wave first’s first window');
    if (!done.restart) harnessProblems.push('the Temporal server was not restarted between the windows');
    if (!done.killSecond) harnessProblems.push('no worker was killed in wave second');
    if (!done.skipped) harnessProblems.push('wave second never reached its cap');
    // The skipped wave's run records its rest as not attempted, then ends.
    for (let i = 0; i < 120; i++) {
      const d = await client.workflow
        .getHandle(`migration-run/${planId}.second`)
        .describe()
        .catch(() => undefined);
      if (d && d.status.name !== 'RUNNING') break;
      await sleep(1_000);
    }
    await Promise.all(replacements);
    note('plan ended');

    // The verdict: the ledger's and the sandbox's own records.
    const ledger = new Map<string, PlanLedgerRow & LedgerOutcome>();
    for (const wave of ['first', 'second']) {
      const rows = (await attemptOutcomes(pool, `${planId}.${wave}`)) as Array<LedgerOutcome & { external_account_number: string }>;
      const started = await pool.query<{ external_account_number: string; started_at: Date | null; outcome: string | null }>(
        `select external_account_number, started_at, outcome from migrate.account_attempts where run_id = $1`,
        [`${planId}.${wave}`],
      );
      const startedAt = new Map(started.rows.map((r) => [r.external_account_number, r.outcome === 'not_attempted' ? null : (r.started_at?.getTime() ?? null)]));
      for (const r of rows) ledger.set(r.external_account_number, { ...r, startedAt: startedAt.get(r.external_account_number) ?? null });
    }
    const gt = await sandboxAdmin<{ accounts: Array<PlatformTruth & { external_identifier: string }> }>(
      stack.info.sandboxUrl,
      'GET',
      `/admin/ground-truth?supplier=${encodeURIComponent(stack.config.IMPORT_SUPPLIER_CODE)}`,
    );
    const schedules = await pool.query<{ external_identifier: string; created_at: Date }>(
      `select external_identifier, created_at from sandbox.import_processes where external_identifier = any($1)`,
      [accounts],
    );
    const platform = new Map<string, PlanPlatformRow & PlatformTruth>(
      gt.accounts.map((x) => [x.external_identifier, { ...x, createdCount: x.created_count, scheduledAt: [] }]),
    );
    for (const s of schedules.rows) {
      const p = platform.get(s.external_identifier) ?? { created_count: 0, account_number: null, createdCount: 0, scheduledAt: [] };
      p.scheduledAt.push(s.created_at.getTime());
      platform.set(s.external_identifier, p);
    }
    const waves: PlanWaveTruth[] = [
      { name: 'first', accounts: cohorts.first, windows: first },
      { name: 'second', accounts: cohorts.second, windows: second, dailyCap: counts.cap },
    ];
    const w = judgePlanWindows({ waves, zone: 'Europe/London', ledger, platform, graceMs: IN_FLIGHT_GRACE_MS });
    // Outcomes against the generator's truth, for the accounts the plan dispatched (the skipped wave's rest is not attempted by design).
    const attempted = items.filter((i) => ledger.get(i.expected.external_account_number)?.outcome !== 'not_attempted').map((i) => i.expected);
    const o = judge({ truth: attempted, ledger, platform, early: 0 });
    const secondScheduled = cohorts.second.filter((x) => (platform.get(x)?.scheduledAt.length ?? 0) > 0).length;
    const secondDispatched = cohorts.second.filter((x) => ledger.get(x)?.startedAt != null).length;
    if (done.skipped && secondDispatched < counts.cap) harnessProblems.push(`wave second dispatched ${secondDispatched}, less than its cap ${counts.cap}`);
    const firstInSecondWindow = cohorts.first.filter((x) => (ledger.get(x)?.startedAt ?? 0) >= first[1].start).length;
    if (firstInSecondWindow === 0) harnessProblems.push('wave first finished in its first window: the gap and the second window were not exercised');

    const seconds = Math.round((Date.now() - started) / 1000);
    const verdict = {
      lost: w.lost.length,
      duplicated: w.duplicated.length,
      wrong: o.wrong.length,
      dispatchedOutside: w.dispatchedOutside.length,
      scheduledOutside: w.scheduledOutside.length,
      overCap: w.overCap.length,
      notAttemptedButScheduled: w.notAttemptedButScheduled.length,
    };
    const ok = planWindowsPassed(w) && passed({ ...o, lost: [], duplicated: [] }) && harnessProblems.length === 0;
    const line =
      `chaos --plan: 2 waves (${counts.first} + ${counts.second} accounts), ${kills.worker} worker kills, ${kills.server} Temporal restart, ` +
      `first: ${counts.first - firstInSecondWindow} in window 1 / ${firstInSecondWindow} in window 2, second: ${secondDispatched} dispatched / ${secondScheduled} scheduled (cap ${counts.cap}/day), ${seconds} s — ` +
      `lost ${verdict.lost}, duplicated ${verdict.duplicated}, wrong ${verdict.wrong}, outside windows ${verdict.dispatchedOutside} dispatched / ${verdict.scheduledOutside} scheduled, over cap ${verdict.overCap}`;
    return {
      seed,
      accounts: { first: counts.first, second: counts.second },
      workerKills: kills.worker,
      serverRestarts: kills.server,
      seconds,
      timeline,
      verdict,
      perDay: w.perDay,
      dispatchedPerDay: w.dispatchedPerDay,
      examples: {
        lost: w.lost.slice(0, 10),
        duplicated: w.duplicated.slice(0, 10),
        wrong: o.wrong.slice(0, 10),
        dispatchedOutside: w.dispatchedOutside.slice(0, 10),
        scheduledOutside: w.scheduledOutside.slice(0, 10),
        overCap: w.overCap,
        notAttemptedButScheduled: w.notAttemptedButScheduled.slice(0, 10),
      },
      harnessProblems,
      passed: ok,
      line,
      dataDir,
    };
  } finally {
    await client?.connection.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await stack.stop();
  }
}
