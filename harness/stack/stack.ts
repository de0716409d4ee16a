import fs from 'node:fs';
import path from 'node:path';
import { maskUrlPassword, parseConfig, sandboxPlatformUrls, type Config } from '../../config';
import { createS3Client, createSqsClient, ensureBucket, ensureQueue } from '../../clients/aws';
import { connectClient } from '../../clients/temporal';
import { createPool } from '../../clients/db';
import { createLedger } from '../../ledger';
import { awaitTaskQueueRouting, setCurrentVersion, workerTaskQueues } from '../../clients/worker-deployments';
import { platformTaskQueue } from '../../domain/task-queues';
import { workerDeploymentVersion } from '../../workers/deployment-version';
import { migrate, migrateAll } from '../../db/migrate';
import { SANDBOX_COMPONENT } from '../sandbox/migrations';
import { assertPortFree, canConnect, freePort, reservePort, startProcess, waitForPort, type ManagedProcess } from './child-process';
import { startLocalAws } from './fauxqs';
import { startPostgres } from './postgres';
import { loadOrCreateDevSecrets } from '../../config/dev-secrets';
import { provisionTemporalCli } from './temporal-cli';
import { startTemporalFullServer } from './temporal-full-server';
import { provisionTemporalServer, type ServerToolPaths } from './temporal-server-build';
import { startTemporalDevServer, type TemporalDevServer } from './temporal-server';
import { readStackInfo, stackInfoSchema, type StackInfo } from '../../config/dev-stack-info';
import { WORKER_NODE_FLAGS } from '../../workers/node-flags';

const ROOT = path.resolve(__dirname, '../..');

export { readStackInfo, stackInfoSchema, type StackInfo };

export interface StackOptions {
  /** Environment the stack is configured from (process.env plus .env by default). */
  env: Record<string, string | undefined>;
  /** Pick free ports instead of the configured ones (tests). */
  freePorts?: boolean;
  /** How many worker processes to start (0: none; tests may run their own). */
  workers?: number;
  log?: (line: string) => void;
  /** Node flags for the sandbox's and the events receiver's processes (the bench's `--cpu-prof`). */
  serviceNodeArgs?: readonly string[];
  /** Settings for the embedded Postgres (`-c name=value`); ignored with DATABASE_URL. */
  postgresSettings?: Readonly<Record<string, string>>;
}

export interface RunningStack {
  info: StackInfo;
  /** Environment for processes and clients that should talk to this stack (includes secrets). */
  env: Record<string, string>;
  config: Config;
  /** `nodeArgs`: flags for the worker's node process before its script (the bench's `--cpu-prof`). */
  startWorker(extraEnv?: Record<string, string>, nodeArgs?: readonly string[]): Promise<ManagedProcess>;
  /** Worker processes started so far (dead ones included). */
  workers(): ManagedProcess[];
  /**
   * Chaos: kill -9 a service and start it again on the same ports and data (Temporal on the same
   * SQLite file; the sandbox and events receiver on the same database).
   */
  restartTemporal(): Promise<void>;
  restartPlatformServices(): Promise<void>;
  /** A platform outage (the rehearsal's maintenance window): the sandbox is down until started again. */
  stopPlatformServices(): Promise<void>;
  /** Starts the platform services again after `stopPlatformServices` (no-op while they run). */
  startPlatformServices(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Brings up the embedded stack: Postgres (or DATABASE_URL), S3 + SQS on loopback (or S3_ENDPOINT /
 * SQS_ENDPOINT), Temporal (KRAKEN_TEMPORAL_ENGINE: the CLI's dev server, or the full server on the
 * same Postgres), the platform sandbox, the events receiver, the codec server and workers.
 * Everything it starts is stopped by `stop()`, in reverse order.
 */
export async function startStack(opts: StackOptions): Promise<RunningStack> {
  const log = opts.log ?? (() => {});
  const base = parseConfig(opts.env);
  // Before anything starts: a missing prerequisite stops the stack at once, with one line.
  const toolEnv = { ...process.env, ...stringEnv(opts.env) };
  const binaries: TemporalBinaries =
    base.KRAKEN_TEMPORAL_ENGINE === 'server'
      ? { engine: 'server', tools: provisionTemporalServer({ root: ROOT, env: toolEnv }) }
      : { engine: 'dev', cliPath: provisionTemporalCli({ root: ROOT, env: toolEnv }).path };
  const dataDir = path.resolve(ROOT, base.DATA_DIR);
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((e) => log(`stop failed: ${(e as Error).message}`));
    stops.length = 0;
  };

  try {
    const port = async (configured: number, what: string) => {
      if (opts.freePorts) return freePort();
      await assertPortFree(configured, what);
      // Bound only as its server starts: the metrics ports drawn meanwhile must not take it.
      reservePort(configured);
      return configured;
    };
    const secrets = loadOrCreateDevSecrets(dataDir);
    const ports = {
      temporal: await port(base.TEMPORAL_PORT, 'Temporal gRPC (TEMPORAL_PORT)'),
      temporalUi: await port(base.TEMPORAL_UI_PORT, 'Temporal Web UI (TEMPORAL_UI_PORT)'),
      pg: base.DATABASE_URL ? 0 : await port(base.PG_PORT, 'embedded Postgres (PG_PORT)'),
      aws: base.S3_ENDPOINT && base.SQS_ENDPOINT ? 0 : await port(base.S3_PORT, 'local S3/SQS (S3_PORT)'),
      sandbox: await port(base.SANDBOX_PORT, 'platform sandbox (SANDBOX_PORT)'),
      events: await port(base.EVENTS_PORT, 'events receiver (EVENTS_PORT)'),
      codec: await port(base.CODEC_PORT, 'codec server (CODEC_PORT)'),
    };

    log('starting Postgres');
    const pg = await startPostgres({
      databaseUrl: base.DATABASE_URL,
      dataDir: path.join(dataDir, 'postgres'),
      port: ports.pg,
      log,
      settings: opts.postgresSettings,
    });
    stops.push(() => pg.stop());
    await migrateAll(pg.url, ROOT);
    await migrate(pg.url, { ...SANDBOX_COMPONENT, dir: path.join(ROOT, SANDBOX_COMPONENT.dir) });

    let s3Endpoint = base.S3_ENDPOINT;
    let sqsEndpoint = base.SQS_ENDPOINT;
    if (!s3Endpoint || !sqsEndpoint) {
      log('starting local S3/SQS');
      const aws = await startLocalAws({ port: ports.aws, logDir });
      stops.push(() => aws.proc.stop());
      s3Endpoint ??= aws.endpoint;
      sqsEndpoint ??= aws.endpoint;
    }

    const env: Record<string, string> = {
      ...stringEnv(opts.env),
      ...secrets,
      DATA_DIR: dataDir,
      DATABASE_URL: pg.url,
      S3_ENDPOINT: s3Endpoint,
      SQS_ENDPOINT: sqsEndpoint,
      TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
      TEMPORAL_UI_URL: `http://127.0.0.1:${ports.temporalUi}`,
      SANDBOX_PORT: String(ports.sandbox),
      EVENTS_PORT: String(ports.events),
      CODEC_PORT: String(ports.codec),
      ...sandboxPlatformUrls(`http://127.0.0.1:${ports.sandbox}`),
      SANDBOX_EVENT_WEBHOOK_URL: `http://127.0.0.1:${ports.events}/events/eventbridge`,
    };
    let config = parseConfig(env);
    const s3 = createS3Client(config);
    await ensureBucket(s3, config.PLATFORM_BUCKET);
    const queueUrl = config.EVENTS_QUEUE_URL ?? (await ensureQueue(createSqsClient(config), config.EVENTS_QUEUE_NAME));
    env.EVENTS_QUEUE_URL = queueUrl;
    config = parseConfig(env);

    // Each process serves its metrics on its own loopback port (stack.json's `metrics`, by name).
    const metrics: Record<string, string> = {};
    const metricsAddress = async (name: string) => {
      const address = `127.0.0.1:${await freePort()}`;
      metrics[name] = `http://${address}/metrics`;
      return address;
    };
    /** `metricsName` absent: a process that serves no metrics (the sandbox). */
    const tsx = async (name: string, script: string, metricsName?: string, nodeArgs: readonly string[] = []) =>
      startProcess({
        name,
        command: process.execPath,
        args: [...nodeArgs, '--import', 'tsx', path.join(ROOT, script)],
        env: { ...process.env, ...env, METRICS_ADDRESS: metricsName ? await metricsAddress(metricsName) : '' },
        cwd: ROOT,
        logFile: path.join(logDir, `${name}.log`),
      });
    const codecProc = await tsx('codec-server', 'codec/main.ts', 'codec');
    stops.push(() => codecProc.stop());
    await waitForPort(config.CODEC_PORT, { timeoutMs: 60_000, proc: codecProc, logFile: path.join(logDir, 'codec-server.log') });
    const codecUrl = `http://127.0.0.1:${config.CODEC_PORT}`;

    const launchTemporal = () =>
      startTemporal(config, binaries, { port: ports.temporal, uiPort: ports.temporalUi, dataDir, logDir, codecEndpoint: codecUrl, postgresUrl: pg.url, log });
    let temporal = await launchTemporal();
    stops.push(() => temporal.stop());

    // The ledger's supplier mirror starts with the configured supplier (the operator changes it with the CLI).
    const ledgerPool = createPool(pg.url, 1);
    await createLedger(ledgerPool)
      .setSupplierIfAbsent(config.IMPORT_SUPPLIER_CODE, config.IMPORT_SUPPLIER_DOCUMENT_ROOT)
      .finally(() => ledgerPool.end());

    // The sandbox and the events receiver: two processes, as a deployment runs the receiver on its own
    // (docker-compose.yml), each ready when its port answers. They stop and start together, and start
    // side by side: neither needs the other to start (the sandbox retries its webhook deliveries).
    log('starting the platform sandbox and the events receiver');
    const startServices = (): Promise<ManagedProcess[]> =>
      Promise.all(
        (
          [
            ['platform-services', 'harness/stack/platform-services-main.ts', undefined, config.SANDBOX_PORT],
            ['events-receiver', 'events/main.ts', 'events', config.EVENTS_PORT],
          ] as const
        ).map(async ([name, script, metricsName, p]) => {
          const proc = await tsx(name, script, metricsName, opts.serviceNodeArgs);
          await waitForPort(p, { timeoutMs: 120_000, proc, logFile: path.join(logDir, `${name}.log`) });
          return proc;
        }),
      );
    let servicesProcs = await startServices();
    stops.push(async () => {
      for (const proc of [...servicesProcs].reverse()) await proc.stop();
    });

    let written: StackInfo | undefined;
    const writeInfo = (info: StackInfo | undefined = written) => {
      if (!info) return;
      written = info;
      fs.writeFileSync(path.join(dataDir, 'stack.json'), JSON.stringify({ ...info, metrics }, null, 2));
    };
    const workers: ManagedProcess[] = [];
    let temporalClient: Promise<import('@temporalio/client').Client> | undefined;
    const startWorker = async (extraEnv: Record<string, string> = {}, nodeArgs: readonly string[] = []) => {
      const n = workers.length + 1;
      const logFile = path.join(logDir, `worker-${n}.log`);
      const readyFile = path.join(dataDir, `worker-${n}.ready`);
      fs.rmSync(readyFile, { force: true });
      const proc = startProcess({
        name: `worker ${n}`,
        command: process.execPath,
        args: [...WORKER_NODE_FLAGS, ...nodeArgs, '--import', 'tsx', path.join(ROOT, 'workers', 'main.ts')],
        // METRICS_ADDRESS '' in extraEnv: a worker without metrics (the bench's metrics-off pass).
        env: {
          ...process.env,
          ...env,
          WORKER_READY_FILE: readyFile,
          ...(extraEnv.METRICS_ADDRESS === '' ? {} : { METRICS_ADDRESS: await metricsAddress(`worker-${n}`) }),
          ...extraEnv,
        },
        cwd: ROOT,
        logFile,
      });
      workers.push(proc);
      stops.push(() => proc.stop('SIGTERM', 15_000));
      await waitForWorkerReady(readyFile, logFile, proc);
      // Worker Versioning: the server sends new workflows only to the deployment's current version.
      // The embedded stack makes each worker's version current as it starts (production leaves it to
      // the operator: README, "Upgrading during a migration").
      const version = workerDeploymentVersion(parseConfig({ ...env, ...extraEnv }));
      if (!temporalClient) {
        const c = connectClient(config);
        temporalClient = c;
        stops.push(async () => (await c).connection.close());
      }
      // A dev data directory may remember task queues an earlier version polled (a test's, a bench's):
      // the embedded stack's worker takes over without them.
      await setCurrentVersion(await temporalClient, version, { identity: 'kraken-migrate-stack', timeoutMs: 120_000, ignoreMissingTaskQueues: true });
      const queue = parseConfig({ ...env, ...extraEnv }).TEMPORAL_TASK_QUEUE;
      await awaitTaskQueueRouting(await temporalClient, version, workerTaskQueues(queue, platformTaskQueue(queue)), 120_000);
      log(`worker ${n}: ${version.deploymentName}:${version.buildId} is the current version`);
      // A worker added to a running stack: its metrics address joins stack.json.
      writeInfo();
      return proc;
    };
    for (let i = 0; i < (opts.workers ?? 1); i++) await startWorker();

    const stopPlatformServices = async () => {
      for (const proc of servicesProcs) await proc.stop('SIGKILL', 5_000);
      // The kernel frees the ports with the process; wait until they are really free.
      for (const p of [config.SANDBOX_PORT, config.EVENTS_PORT]) {
        for (let i = 0; i < 50 && (await canConnect('127.0.0.1', p)); i++) await new Promise((r) => setTimeout(r, 100));
      }
    };
    const startPlatformServices = async () => {
      if (servicesProcs.every((proc) => proc.child.exitCode === null && proc.child.signalCode === null)) return;
      for (const proc of servicesProcs) await proc.stop('SIGKILL', 5_000);
      servicesProcs = await startServices();
    };

    const info: StackInfo = {
      temporalEngine: config.KRAKEN_TEMPORAL_ENGINE,
      temporalUiUrl: temporal.uiUrl,
      temporalAddress: temporal.address,
      temporalNamespace: config.TEMPORAL_NAMESPACE,
      // The embedded server's local password is no secret; a given DATABASE_URL's is.
      databaseUrl: pg.embedded ? pg.url : maskUrlPassword(pg.url),
      s3Endpoint,
      sqsEndpoint,
      eventsQueueUrl: queueUrl,
      platformBucket: config.PLATFORM_BUCKET,
      sandboxUrl: `http://127.0.0.1:${config.SANDBOX_PORT}`,
      eventsUrl: `http://127.0.0.1:${config.EVENTS_PORT}`,
      codecUrl,
      metrics,
      dataDir,
      workerPids: workers.map((w) => w.pid),
      startedAt: new Date().toISOString(),
    };
    writeInfo(info);
    return {
      info,
      env,
      config,
      startWorker,
      workers: () => [...workers],
      async restartTemporal() {
        await (temporal.proc ? temporal.proc.stop('SIGKILL', 5_000) : temporal.stop());
        temporal = await launchTemporal();
      },
      async restartPlatformServices() {
        await stopPlatformServices();
        await startPlatformServices();
      },
      stopPlatformServices,
      startPlatformServices,
      async stop() {
        await stopAll();
        fs.rmSync(path.join(dataDir, 'stack.json'), { force: true });
      },
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

type TemporalBinaries = { engine: 'server'; tools: ServerToolPaths } | { engine: 'dev'; cliPath: string };

/** The engine KRAKEN_TEMPORAL_ENGINE names, with the Web UI pointed at the codec server. */
async function startTemporal(
  config: Config,
  binaries: TemporalBinaries,
  o: { port: number; uiPort: number; dataDir: string; logDir: string; codecEndpoint: string; postgresUrl: string; log: (l: string) => void },
): Promise<TemporalDevServer> {
  if (binaries.engine === 'server') {
    o.log(`starting the Temporal server on Postgres (${binaries.tools.server}, ${config.TEMPORAL_HISTORY_SHARDS} history shards) and its Web UI`);
    return startTemporalFullServer({
      tools: binaries.tools,
      postgresUrl: o.postgresUrl,
      port: o.port,
      uiPort: o.uiPort,
      dir: path.join(o.dataDir, 'temporal-server'),
      logDir: o.logDir,
      namespace: config.TEMPORAL_NAMESPACE,
      historyShards: config.TEMPORAL_HISTORY_SHARDS,
      codecEndpoint: o.codecEndpoint,
      log: o.log,
    });
  }
  o.log(`starting Temporal dev server (${binaries.cliPath})`);
  return startTemporalDevServer({
    cliPath: binaries.cliPath,
    port: o.port,
    uiPort: o.uiPort,
    dbFile: path.join(o.dataDir, 'temporal.db'),
    logDir: o.logDir,
    codecEndpoint: o.codecEndpoint,
    namespace: config.TEMPORAL_NAMESPACE,
  });
}

async function waitForWorkerReady(readyFile: string, logFile: string, proc: ManagedProcess): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (fs.existsSync(readyFile)) return;
    if (proc.child.exitCode !== null) {
      const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
      throw new Error(`${proc.name} exited before it was ready:\n${text.split('\n').slice(-20).join('\n')}`);
    }
    if (Date.now() > deadline) throw new Error(`${proc.name} not ready after 180 s (see ${logFile})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function stringEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') out[k] = v;
  return out;
}

export { waitForPort };
