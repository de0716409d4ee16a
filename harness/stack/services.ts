import type { S3Client } from '@aws-sdk/client-s3';
import type { Client } from '@temporalio/client';
import { createSqsClient } from '../../clients/aws';
import { createPool } from '../../clients/db';
import { createLogger } from '../../logging/logger';
import { connectClient } from '../../clients/temporal';
import type { Config } from '../../config';
import { startEventsReceiver } from '../../events/server';
import { createSandbox } from '../sandbox/server';
import { sandboxOptionsFromConfig } from '../sandbox/options';
import { createLedger } from '../../ledger';
import { loadCodecKeys } from '../../codec/keys';
import { useLedgerKeys } from '../../ledger/sealing';
import { serveProcessMetrics } from '../../metrics/server';
import { SANDBOX_APPLICATION_NAME } from '../measure/pg-statements';

/**
 * The platform sandbox and the events receiver run in the stack's own process. The ledger's
 * supplier mirror is seeded with the configured supplier (the operator changes it with the CLI).
 */
export async function startPlatformServices(config: Config, s3: S3Client) {
  // Two pools, named to Postgres: the sandbox stands in for the tenant, the events receiver is the
  // pipeline's, and the bench counts their backends' CPU apart (harness/measure/cpu-groups.ts).
  const pool = useLedgerKeys(createPool(config.DATABASE_URL!, 10, { applicationName: 'events-receiver' }), loadCodecKeys(config));
  const sandboxPool = createPool(config.DATABASE_URL!, 10, { applicationName: SANDBOX_APPLICATION_NAME });
  await createLedger(pool).setSupplierIfAbsent(config.IMPORT_SUPPLIER_CODE, config.IMPORT_SUPPLIER_DOCUMENT_ROOT);
  const sqs = createSqsClient(config);
  const sandbox = await createSandbox({
    pool: sandboxPool,
    s3,
    sqs,
    options: sandboxOptionsFromConfig(config),
    logger: createLogger('sandbox', { level: config.LOG_LEVEL }),
  });
  const sandboxUrl = await sandbox.listen(config.SANDBOX_PORT, '127.0.0.1');
  let client: Promise<Client> | undefined;
  const metrics = await serveProcessMetrics(config.METRICS_ADDRESS, 'events');
  const events = await startEventsReceiver({
    config,
    metrics: metrics.registry,
    pool,
    temporalClient: () => (client ??= connectClient(config)),
    logger: createLogger('events', { level: config.LOG_LEVEL }),
    sqs: config.EVENTS_QUEUE_URL ? { client: sqs, queueUrl: config.EVENTS_QUEUE_URL } : undefined,
  });
  return {
    sandboxUrl,
    eventsUrl: events.url,
    async stop() {
      await events.close();
      await metrics.close();
      await sandbox.close();
      if (client) await (await client).connection.close();
      await pool.end();
      await sandboxPool.end();
    },
  };
}
