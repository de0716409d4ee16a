import fs from 'node:fs';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { createS3Client, ensureBucket } from '../../../clients/aws';
import { freePort, type ManagedProcess } from '../../../harness/stack/child-process';
import { startLocalAws } from '../../../harness/stack/fauxqs';

/**
 * A real (loopback) S3 for a test file (harness/stack/fauxqs.ts): started before its tests with
 * `bucket` made, its logs in `base` (emptied first), stopped after them. Read `.s3` inside a test.
 */
export function useLoopbackS3(base: string, bucket: string): { readonly s3: S3Client } {
  let aws: ManagedProcess | undefined;
  const box = { s3: undefined as unknown as S3Client };
  beforeAll(async () => {
    fs.rmSync(base, { recursive: true, force: true });
    fs.mkdirSync(base, { recursive: true });
    const started = await startLocalAws({ port: await freePort(), logDir: base });
    aws = started.proc;
    box.s3 = createS3Client({
      S3_ENDPOINT: started.endpoint,
      S3_REGION: 'eu-west-2',
      S3_ACCESS_KEY_ID: 'test',
      S3_SECRET_ACCESS_KEY: 'test',
      S3_FORCE_PATH_STYLE: true,
    });
    await ensureBucket(box.s3, bucket);
  }, 60_000);
  afterAll(async () => {
    box.s3?.destroy();
    await aws?.stop();
  });
  return box;
}
