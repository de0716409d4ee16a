import { Runtime, Worker } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { createS3Client } from '../clients/aws';
import { createPool } from '../clients/db';
import { createTemporalLogger, createLogger } from '../logging/logger';
import { createPlatformClient } from '../clients/platform';
import { connectClient } from '../clients/temporal';
import { connectWorker } from '../clients/temporal-worker';
import { createDataConverter } from '../codec/data-converter';
import type { Config } from '../config';
import { createActivities } from '../activities';
import { platformTaskQueue } from '../domain/task-queues';
import { workerDeploymentVersion } from './deployment-version';
import { workflowCacheOptions } from './workflow-cache';
import { workflowBundle } from './workflow-bundle';
import { missingWorkerNodeFlags } from './node-flags';
import { loadCodecKeys } from '../codec/keys';
import { useLedgerKeys } from '../ledger/sealing';
import { fetchText, freeLoopbackPort, processRegistry, startMetricsServer, type MetricsServer } from '../metrics/server';
import { registerMigrationMetrics } from './migration-metrics';

let runtimeInstalled = false;
/** Where this process's Temporal runtime serves its own metrics (loopback), once installed with them. */
let sdkMetricsUrl: string | undefined;

/**
 * The Temporal runtime's telemetry: its metrics to an OTLP collector (METRICS_OTLP_URL), or to a
 * Prometheus exporter on a free loopback port that the process's metrics address serves beside its own.
 */
async function sdkTelemetry(cfg: Config) {
  if (cfg.METRICS_OTLP_URL) return { metrics: { otel: { url: cfg.METRICS_OTLP_URL, http: /^https?:/.test(cfg.METRICS_OTLP_URL) } } };
  if (!cfg.METRICS_ADDRESS) return undefined;
  const port = await freeLoopbackPort();
  sdkMetricsUrl = `http://127.0.0.1:${port}/metrics`;
  return { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}`, useSecondsForDurations: true } } };
}

/**
 * Two workers in one process: the main queue (workflows, ledger / source / S3 activities) and the
 * platform queue, whose activities are rate limited across all workers by the server.
 */
export async function createWorkers(cfg: Config, opts: { identity?: string; workflowInterceptorModules?: readonly string[] } = {}) {
  const logger = createLogger('worker', { level: cfg.LOG_LEVEL });
  const missingFlags = missingWorkerNodeFlags(process.execArgv, process.env.NODE_OPTIONS);
  if (missingFlags.length) logger.warn({ missingFlags }, 'worker started without its node flags (workers/node-flags.ts): it holds more memory than it needs');
  if (!runtimeInstalled) {
    const telemetryOptions = await sdkTelemetry(cfg);
    // Temporal's defaults plus SIGHUP: a worker run in a terminal that is closed stops gracefully too.
    Runtime.install({
      logger: createTemporalLogger(logger),
      shutdownSignals: ['SIGINT', 'SIGTERM', 'SIGQUIT', 'SIGUSR2', 'SIGHUP'],
      ...(telemetryOptions ? { telemetryOptions } : {}),
    });
    runtimeInstalled = true;
  }
  // The ledger seals personal columns with the same keyring as the payload codec.
  const pool = useLedgerKeys(createPool(cfg.DATABASE_URL!, cfg.PG_POOL_MAX, { applicationName: opts.identity }), loadCodecKeys(cfg));
  const s3 = createS3Client(cfg);
  const platform = createPlatformClient(cfg, { logger });
  let client: Promise<Client> | undefined;
  const temporal = () => (client ??= connectClient(cfg));
  const activities = createActivities({ pool, s3, platform, config: cfg, logger, temporal });
  const connection = await connectWorker(cfg);
  const dataConverter = createDataConverter(cfg, { logger });
  const version = workerDeploymentVersion(cfg);
  // Worker Versioning: both workers register this deployment version. A workflow without its own
  // annotation stays pinned to the version that started it (workflows/*.ts say which move on); the
  // server sends new workflows to the deployment's current version only (set-current-version).
  const workerDeploymentOptions = { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' } as const;
  const common = { connection, namespace: cfg.TEMPORAL_NAMESPACE, dataConverter, identity: opts.identity, workerDeploymentOptions };
  const main = await Worker.create({
    ...common,
    taskQueue: cfg.TEMPORAL_TASK_QUEUE,
    workflowBundle: await workflowBundle(opts.workflowInterceptorModules),
    activities: activities.main,
    maxConcurrentActivityTaskExecutions: 50,
    ...workflowCacheOptions(cfg.WORKER_MAX_CACHED_WORKFLOWS),
  });
  const platformWorker = await Worker.create({
    ...common,
    taskQueue: platformTaskQueue(cfg.TEMPORAL_TASK_QUEUE),
    activities: activities.platform,
    maxConcurrentActivityTaskExecutions: 50,
    maxTaskQueueActivitiesPerSecond: cfg.PLATFORM_RATE_LIMIT_PER_SECOND,
  });
  let metrics: MetricsServer | undefined;
  if (cfg.METRICS_ADDRESS) {
    const registry = processRegistry('worker');
    registerMigrationMetrics(registry, { pool, temporal, config: cfg });
    const sdk = sdkMetricsUrl;
    metrics = await startMetricsServer({ address: cfg.METRICS_ADDRESS, registry, more: sdk ? () => fetchText(sdk) : undefined });
    logger.info({ url: metrics.url }, 'metrics served');
  }
  return {
    logger,
    version,
    metricsUrl: metrics?.url,
    workers: [main, platformWorker],
    async run() {
      await Promise.all([main.run(), platformWorker.run()]);
    },
    shutdown() {
      main.shutdown();
      platformWorker.shutdown();
    },
    async close() {
      await metrics?.close();
      await activities.close();
      await connection.close();
      await pool.end();
      if (client) await (await client).connection.close();
    },
  };
}
