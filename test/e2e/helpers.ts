import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import type { Client } from '@temporalio/client';
import { createPool, type Pool } from '../../clients/db';
import { loadCodecKeys } from '../../codec/keys';
import { useLedgerKeys } from '../../ledger/sealing';
import { awaitTaskQueueRouting, describeDeployment, workerTaskQueues } from '../../clients/worker-deployments';
import { workerDeploymentVersion } from '../../workers/deployment-version';
import { platformTaskQueue } from '../../domain/task-queues';
import { connectClient } from '../../clients/temporal';
import { parseConfig, type Config } from '../../config';
import { writeDatasetToPostgres } from '../../harness/synthetic/dataset-postgres';
import { generateDataset, type GenerateOptions, type GroundTruth } from '../../harness/synthetic/generator';
import { runWorkflowId } from '../../domain/workflow-ids';
import { migrationRunInputSchema, type MigrationRunInput } from '../../domain/inputs';
import type { RunProgress } from '../../domain/messages';
import type { migrationRunWorkflow } from '../../workflows/migration-run';
import { sandboxAdmin } from '../../harness/sandbox/admin-client';
import { finishMinutes, runSummary } from '../../ledger/run-summary';
import { WORKER_NODE_FLAGS } from '../../workers/node-flags';

/** What an end-to-end test needs of the stack the global setup started. */
export interface E2E {
  env: Record<string, string>;
  config: Config;
  client: Client;
  pool: Pool;
  sandboxUrl: string;
  close(): Promise<void>;
}

/**
 * The environment of this test worker's own stack (test/setup/global-stack.ts starts one per fork):
 * files running at the same time never share a database, sandbox or Temporal.
 */
export function stackEnv(): Record<string, string> {
  const envs = inject('stackEnvs');
  const worker = Number(process.env.VITEST_POOL_ID ?? '1');
  return envs[(worker - 1) % envs.length];
}

export async function connectE2E(): Promise<E2E> {
  const env = stackEnv();
  const config = parseConfig(env);
  const client = await connectClient(config);
  // The stack's keys: the ledger's personal columns are sealed with them (ledger/sealing.ts).
  const pool = useLedgerKeys(createPool(config.DATABASE_URL!, 5), loadCodecKeys(config));
  return {
    env,
    config,
    client,
    pool,
    sandboxUrl: `http://127.0.0.1:${config.SANDBOX_PORT}`,
    async close() {
      await client.connection.close();
      await pool.end();
    },
  };
}

/**
 * The stack's connection for the tests of one file (or `describe`): connected in a `beforeAll`, closed
 * in an `afterAll` registered here, so a file's own `afterAll` hooks registered after it run before
 * the close (vitest runs after-hooks in reverse). Read it inside tests and hooks; before the
 * connection it throws instead of giving `undefined`.
 */
export function useE2E(): E2E {
  let e: E2E | undefined;
  beforeAll(async () => {
    e = await connectE2E();
  });
  afterAll(async () => {
    await e?.close();
  });
  return new Proxy({} as E2E, {
    get(_target, key) {
      if (key === 'then') return undefined; // not a promise: `await` and vitest may ask
      if (!e) throw new Error(`the e2e stack is connected in beforeAll: read e.${String(key)} inside a test or hook`);
      return Reflect.get(e, key);
    },
  });
}

/** Generates accounts into the legacy schema (and their documents into the source folder). */
export async function seedAccounts(e: E2E, opts: GenerateOptions): Promise<GroundTruth[]> {
  // Tests share one legacy schema: ids continue after the highest one.
  const max = await e.pool.query(`select coalesce(max(account_id), 0)::bigint as n from legacy.accounts`);
  const items = [...generateDataset({ accountIdOffset: Number(max.rows[0].n), ...opts })];
  await writeDatasetToPostgres(e.pool, items, { documentsDir: e.config.SOURCE_DOCUMENTS_DIR });
  return items.map((i) => i.expected);
}

export function accountsFile(e: E2E, name: string, accounts: string[]): string {
  const file = path.join(e.config.DATA_DIR, 'lists', `${name}.txt`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, accounts.join('\n') + '\n');
  return file;
}

/** A run's selection of exactly these seeded accounts, written as the list file an operator would pass. */
export function listOf(e: E2E, name: string, truth: readonly GroundTruth[]): { kind: 'list'; path: string } {
  return {
    kind: 'list',
    path: accountsFile(
      e,
      name,
      truth.map((t) => t.external_account_number),
    ),
  };
}

/**
 * A plan's cohorts: `n` fresh accounts per wave, each wave's list written as `<dir>/<wave>.txt` (the
 * file a plan names), account numbers prefixed `<tag><first letter of the wave>`.
 */
export async function seedPlanCohorts<W extends string>(
  e: E2E,
  tag: string,
  seed: number,
  sizes: Record<W, number>,
): Promise<{ dir: string; cohorts: Record<W, string[]> }> {
  const dir = path.join(e.config.DATA_DIR, 'plans', uniqueId('plan'));
  fs.mkdirSync(dir, { recursive: true });
  const cohorts = {} as Record<W, string[]>;
  for (const [wave, n] of Object.entries(sizes) as [W, number][]) {
    const prefix = `${uniqueId(tag + wave[0].toUpperCase())}-`;
    cohorts[wave] = (await seedAccounts(e, { accounts: n, seed, defectRate: 0, accountNumberPrefix: prefix })).map((t) => t.external_account_number);
    fs.writeFileSync(path.join(dir, `${wave}.txt`), cohorts[wave].join('\n') + '\n');
  }
  return { dir, cohorts };
}

/** Starts a run on the stack's queue, or on `taskQueue` (a test's own workers). */
export async function startRun(e: E2E, input: Omit<MigrationRunInput, 'source'> & { source?: MigrationRunInput['source'] }, opts: { taskQueue?: string } = {}) {
  const args = migrationRunInputSchema.parse({ source: { kind: 'postgres' }, ...input });
  return e.client.workflow.start<typeof migrationRunWorkflow>('migrationRunWorkflow', {
    taskQueue: opts.taskQueue ?? e.config.TEMPORAL_TASK_QUEUE,
    workflowId: runWorkflowId(args.runId),
    args: [args],
  });
}

export async function runToEnd(e: E2E, input: Parameters<typeof startRun>[1]): Promise<RunProgress> {
  const handle = await startRun(e, input);
  return handle.result();
}

export function sandbox(e: E2E, method: string, urlPath: string, body?: unknown): Promise<any> {
  return sandboxAdmin(e.sandboxUrl, method, urlPath, body);
}

export async function setSupplierEverywhere(e: E2E, code: string, status: 'ONGOING' | 'PAUSED' | 'COMPLETE', root = e.config.IMPORT_SUPPLIER_DOCUMENT_ROOT) {
  await sandbox(e, 'PUT', `/admin/suppliers/${code}`, { status, document_root: root });
  await e.pool.query(
    `insert into migrate.supplier_status (supplier_code, status, document_root, updated_by) values ($1, $2, $3, 'test')
     on conflict (supplier_code) do update set status = $2, document_root = $3, updated_at = now()`,
    [code, status, root],
  );
}

export interface AttemptRow {
  external_account_number: string;
  outcome: string | null;
  stage: string;
  error_code: string | null;
  error_attr: string | null;
  platform_account_number: string | null;
  outcome_source: string | null;
  /** The worker identity (pid and host) whose ledger connection recorded the outcome. */
  recorded_by: string | null;
}

export async function attempts(e: E2E, runId: string): Promise<Map<string, AttemptRow>> {
  const r = await e.pool.query(`select * from migrate.account_attempts where run_id = $1`, [runId]);
  return new Map(r.rows.map((row: AttemptRow) => [row.external_account_number, row]));
}

export async function groundTruth(
  e: E2E,
  supplier: string,
): Promise<
  Map<string, { account_number: string | null; created_count: number; schedule_accepted_count: number; import_process_count: number; status: string }>
> {
  const gt = await sandbox(e, 'GET', `/admin/ground-truth?supplier=${encodeURIComponent(supplier)}`);
  return new Map(gt.accounts.map((a: any) => [a.external_identifier, a]));
}

let counter = 0;
export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36).toUpperCase()}${counter}`;
}

/**
 * Every account of the run has the outcome the generator expects (code, attr and stage for the
 * defective ones), the ledger's account numbers are the platform's, and nothing was created twice.
 */
export async function expectOutcomesMatchGroundTruth(e: E2E, runId: string, supplier: string, truth: GroundTruth[]): Promise<void> {
  const ledger = await attempts(e, runId);
  const platform = await groundTruth(e, supplier);
  for (const t of truth) {
    const row = ledger.get(t.external_account_number);
    expect(row, t.external_account_number).toBeDefined();
    if (t.expected.outcome === 'completed') {
      expect({ account: t.external_account_number, outcome: row!.outcome, code: row!.error_code }).toEqual({
        account: t.external_account_number,
        outcome: 'completed',
        code: null,
      });
      const created = platform.get(t.external_account_number);
      expect(created?.created_count).toBe(1);
      expect(row!.platform_account_number).toBe(created?.account_number);
    } else {
      expect({ account: t.external_account_number, outcome: row!.outcome, stage: row!.stage, code: row!.error_code, attr: row!.error_attr }).toEqual({
        account: t.external_account_number,
        outcome: 'failed',
        stage: t.expected.stage,
        code: t.expected.code,
        attr: t.expected.attr,
      });
      if (t.expected.stage !== 'platform') expect(platform.get(t.external_account_number)).toBeUndefined();
    }
  }
  for (const [, a] of platform) expect(a.created_count).toBeLessThanOrEqual(1);
}

/**
 * A worker process of its own on its own task queue (its platform queue derived from it), so a test can
 * kill it or read its log without touching the stack's workers. One node process (no tsx wrapper):
 * SIGKILL kills the worker itself. Resolves once the worker says it is ready.
 */
export async function startOwnWorker(e: E2E, opts: { taskQueue: string; name: string; env?: Record<string, string>; script?: string }): Promise<ChildProcess> {
  const child = await spawnOwnWorker(e, opts);
  // A worker of the stack's (current) version: its queues route to it a moment after its first polls.
  // A worker of another version (the upgrade test's) is routed by making it current.
  const version = workerDeploymentVersion(parseConfig({ ...e.env, ...opts.env }));
  const current = (await describeDeployment(e.client, version.deploymentName))?.currentBuildId;
  if (current === version.buildId) await awaitTaskQueueRouting(e.client, version, workerTaskQueues(opts.taskQueue, platformTaskQueue(opts.taskQueue)));
  return child;
}

function spawnOwnWorker(e: E2E, opts: { taskQueue: string; name: string; env?: Record<string, string>; script?: string }): Promise<ChildProcess> {
  const logFile = path.join(e.config.DATA_DIR, 'logs', `${opts.name}.log`);
  const readyFile = path.join(e.config.DATA_DIR, `${opts.name}.ready`);
  fs.rmSync(readyFile, { force: true });
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, '--import', 'tsx', opts.script ?? 'workers/main.ts'], {
    env: { ...process.env, ...e.env, ...opts.env, TEMPORAL_TASK_QUEUE: opts.taskQueue, WORKER_READY_FILE: readyFile },
    stdio: ['ignore', out, out],
  });
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (fs.existsSync(readyFile)) {
        clearInterval(timer);
        resolve(child);
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`${opts.name} exited: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`));
      }
    }, 250);
  });
}

/** The worker processes a test file starts for itself, and one place that stops them all. */
export function ownWorkers(e: () => E2E) {
  const started: ChildProcess[] = [];
  return {
    async start(taskQueue: string, name: string, env?: Record<string, string>, script?: string): Promise<ChildProcess> {
      const child = await startOwnWorker(e(), { taskQueue, name, env, script });
      started.push(child);
      return child;
    },
    stopAll(signal: NodeJS.Signals = 'SIGKILL'): void {
      for (const w of started) if (w.exitCode === null) w.kill(signal);
    },
  };
}

/** Polls `check` every 250 ms until it holds; fails naming `what` after `timeoutMs`. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The ledger's per-run counters (ledger/run-summary.ts) against a full count of the run's attempts:
 * every (outcome, stage, code, source) group and every minute of finishing, exactly.
 */
export async function expectSummaryExact(pool: Pool, runId: string): Promise<void> {
  const key = (r: { outcome: string | null; stage: string; code: string | null; source: string | null }) =>
    `${r.outcome ?? 'in_progress'}|${r.stage}|${r.code ?? ''}|${r.source ?? ''}`;
  const full = await pool.query<{ outcome: string | null; stage: string; code: string | null; source: string | null; n: number }>(
    // Accounts in progress are counted by stage alone.
    `select outcome, stage, case when outcome is not null then error_code end as code, case when outcome is not null then outcome_source end as source,
            count(*)::int as n from migrate.account_attempts where run_id = $1 group by 1, 2, 3, 4`,
    [runId],
  );
  const summed = (rows: Array<Parameters<typeof key>[0] & { n: number }>) => {
    const m: Record<string, number> = {};
    for (const r of rows) m[key(r)] = (m[key(r)] ?? 0) + r.n;
    return m;
  };
  expect(summed(await runSummary(pool, runId))).toEqual(summed(full.rows));
  const minutes = await pool.query<{ minute: Date; n: number }>(
    `select date_trunc('minute', finished_at) as minute, count(*)::int as n from migrate.account_attempts
      where run_id = $1 and outcome is not null and finished_at is not null group by 1 order by 1`,
    [runId],
  );
  expect((await finishMinutes(pool, runId)).map((m) => [m.minute.toISOString(), m.n])).toEqual(minutes.rows.map((m) => [m.minute.toISOString(), m.n]));
}
