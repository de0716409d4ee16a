import type { S3Client } from '@aws-sdk/client-s3';
import { createSqsClient } from '../../clients/aws';
import { createPool } from '../../clients/db';
import { createLogger } from '../../logging/logger';
import type { Config } from '../../config';
import { createSandbox } from '../sandbox/server';
import { sandboxOptionsFromConfig } from '../sandbox/options';
import { SANDBOX_APPLICATION_NAME } from '../measure/pg-statements';

/**
 * The platform sandbox, in a process of the stack's own. The events receiver runs apart
 * (events/main.ts), as a deployment runs it, so the bench counts its CPU as the pipeline's.
 */
export async function startPlatformServices(config: Config, s3: S3Client) {
  // Named to Postgres: the sandbox stands in for the tenant, and the bench counts its backends' CPU
  // apart from the pipeline's (harness/measure/cpu-groups.ts).
  const sandboxPool = createPool(config.DATABASE_URL!, 10, { applicationName: SANDBOX_APPLICATION_NAME });
  const sandbox = await createSandbox({
    pool: sandboxPool,
    s3,
    sqs: createSqsClient(config),
    options: sandboxOptionsFromConfig(config),
    logger: createLogger('sandbox', { level: config.LOG_LEVEL }),
  });
  const sandboxUrl = await sandbox.listen(config.SANDBOX_PORT, '127.0.0.1');
  return {
    sandboxUrl,
    async stop() {
      await sandbox.close();
      await sandboxPool.end();
    },
  };
}
