import { S3Client, CreateBucketCommand, HeadBucketCommand } from '@aws-sdk/client-s3';
import { SQSClient, CreateQueueCommand, GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import type { Config } from '../config';

// The SDK warns on every process start that releases after January 2027 will need Node 22; the
// README says so once instead.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** Static keys when both are given; otherwise none, so the SDK's default chain finds them (an instance or task role, AWS_* variables, a profile). */
function credentialsOf(cfg: Pick<Config, 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY'>) {
  return cfg.S3_ACCESS_KEY_ID && cfg.S3_SECRET_ACCESS_KEY
    ? { credentials: { accessKeyId: cfg.S3_ACCESS_KEY_ID, secretAccessKey: cfg.S3_SECRET_ACCESS_KEY } }
    : {};
}

/** One S3 client per process. Non-AWS S3 servers need path style and checksums only when required. */
export function createS3Client(cfg: Pick<Config, 'S3_ENDPOINT' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_FORCE_PATH_STYLE'>): S3Client {
  return new S3Client({
    region: cfg.S3_REGION,
    endpoint: cfg.S3_ENDPOINT,
    forcePathStyle: cfg.S3_FORCE_PATH_STYLE,
    ...credentialsOf(cfg),
    ...(cfg.S3_ENDPOINT ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
  });
}

export function createSqsClient(cfg: Pick<Config, 'SQS_ENDPOINT' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY'>): SQSClient {
  return new SQSClient({
    region: cfg.S3_REGION,
    endpoint: cfg.SQS_ENDPOINT,
    ...credentialsOf(cfg),
  });
}

export async function ensureBucket(s3: S3Client, bucket: string): Promise<void> {
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  }
}

export async function ensureQueue(sqs: SQSClient, name: string): Promise<string> {
  try {
    const r = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
    if (r.QueueUrl) return r.QueueUrl;
  } catch {
    /* create below */
  }
  const r = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '30' } }));
  if (!r.QueueUrl) throw new Error(`could not create queue ${name}`);
  return r.QueueUrl;
}
