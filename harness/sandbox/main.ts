import { getConfig, ConfigError } from '../../config';
import { createPool } from '../../clients/db';
import { createS3Client, createSqsClient, ensureBucket } from '../../clients/aws';
import { createLogger } from '../../logging/logger';
import { migrate } from '../../db/migrate';
import { SANDBOX_COMPONENT } from './migrations';
import { createSandbox, sandboxOptionsFromConfig } from './server';

/** Runs the sandbox alone: `npx tsx harness/sandbox/main.ts` (needs DATABASE_URL and S3_ENDPOINT). */
async function main(): Promise<void> {
  const cfg = getConfig();
  const logger = createLogger('sandbox', { level: cfg.LOG_LEVEL });
  const missing = [!cfg.DATABASE_URL && 'DATABASE_URL', !cfg.S3_ENDPOINT && 'S3_ENDPOINT'].filter(Boolean);
  if (missing.length) throw new ConfigError(missing.map((m) => `${m}: required to run the sandbox alone`));
  await migrate(cfg.DATABASE_URL!, SANDBOX_COMPONENT);
  const pool = createPool(cfg.DATABASE_URL!, cfg.PG_POOL_MAX);
  const s3 = createS3Client(cfg);
  await ensureBucket(s3, cfg.PLATFORM_BUCKET);
  const sqs = cfg.SQS_ENDPOINT || cfg.EVENTS_QUEUE_URL ? createSqsClient(cfg) : undefined;
  const options = sandboxOptionsFromConfig(cfg);
  if (!options.organizationSecretKey && !options.dataImportKey) {
    logger.warn('neither PLATFORM_ORGANIZATION_SECRET_KEY nor PLATFORM_API_KEY is set: no client can authenticate');
  }
  const sandbox = await createSandbox({ pool, s3, sqs, options, logger });
  const url = await sandbox.listen(cfg.SANDBOX_PORT, '127.0.0.1');
  logger.info({ url }, 'platform sandbox listening');
  const stop = async () => {
    await sandbox.close();
    await pool.end();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(1);
});
