import { holdStopSignals } from '../process/stop-signals';
import { createSqsClient, ensureQueue } from '../clients/aws';
import { createPool } from '../clients/db';
import { EVENTS_APPLICATION_NAME } from './server';
import { createLogger } from '../logging/logger';
import { connectClient } from '../clients/temporal';
import { getConfig } from '../config';
import { startEventsReceiver } from './server';
import { loadCodecKeys } from '../codec/keys';
import { useLedgerKeys } from '../ledger/sealing';
import { serveProcessMetrics } from '../metrics/server';

/**
 * Runs the events receiver alone: `npx tsx events/main.ts`. Needs DATABASE_URL (the stack's
 * Postgres) and a reachable Temporal; uses the SQS queue when SQS_ENDPOINT or EVENTS_QUEUE_URL is set.
 * `--allow-unsigned` accepts unsigned webhook deliveries in development when no secret is set.
 */
async function main(): Promise<void> {
  const config = getConfig();
  const logger = createLogger('events', { level: config.LOG_LEVEL });
  if (!config.DATABASE_URL) {
    logger.fatal({ code: 'config_invalid' }, 'DATABASE_URL is required (start the stack, or point it at Postgres)');
    process.exit(2);
  }
  // Deliveries are sealed in the inbox with the payload codec's keyring. Named to Postgres
  // (pg_stat_activity), where the bench tells its statements from the workers'.
  const pool = useLedgerKeys(createPool(config.DATABASE_URL, config.PG_POOL_MAX, { applicationName: EVENTS_APPLICATION_NAME }), loadCodecKeys(config));
  let client: ReturnType<typeof connectClient> | undefined;
  const temporalClient = () => (client ??= connectClient(config));

  let sqs;
  if (config.EVENTS_QUEUE_URL || config.SQS_ENDPOINT) {
    const sqsClient = createSqsClient(config);
    const queueUrl = config.EVENTS_QUEUE_URL ?? (await ensureQueue(sqsClient, config.EVENTS_QUEUE_NAME));
    sqs = { client: sqsClient, queueUrl };
  }

  const metrics = await serveProcessMetrics(config.METRICS_ADDRESS, 'events');
  const receiver = await startEventsReceiver({
    config,
    metrics: metrics.registry,
    pool,
    temporalClient,
    logger,
    sqs,
    allowUnsigned: process.argv.includes('--allow-unsigned'),
  });
  const shutdown = async () => {
    await receiver.close();
    await metrics.close();
    if (client) await (await client).connection.close();
    await pool.end();
    process.exit(0);
  };
  const stops = holdStopSignals();
  void stops.requested.then(() => shutdown());
  stops.onRepeat(() => process.exit(130));
}

main().catch((err) => {
  const logger = createLogger('events');
  logger.fatal({ code: (err as { code?: string }).code ?? 'events_receiver_failed', err }, 'events receiver could not start');
  process.exit(1);
});
