import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { stageDocument } from '../../../activities/documents';
import { useLoopbackS3 } from './loopback-s3';
import { PATH_DOES_NOT_EXIST, SOURCE_NOT_REGULAR_FILE, SOURCE_OUTSIDE_FOLDER } from '../../../source/documents';
import type { DocumentRef } from '../../../source/types';

/** Staging against a real (loopback) S3: what lands in the bucket, under which key, and what a retry does. */

const base = path.resolve('.data/test-stage-document');
const sourceDir = path.join(base, 'source');
const bucket = 'stage-document-test';
const PART = 5 * 1024 * 1024;
const aws = useLoopbackS3(base, bucket);

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const doc = (sourcePath: string, payloadPath = `/letters/${sourcePath}`): DocumentRef => ({
  sourcePath,
  payloadPath,
  attr: 'notes.0.document_paths.0.document_path',
  contentType: 'application/pdf',
});
const stage = (d: DocumentRef) => stageDocument({ s3: aws.s3, bucket, documentRoot: 'migrations/test', sourceDir, doc: d, partSizeBytes: PART });

async function objectBytes(key: string): Promise<Buffer> {
  const r = await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await r.Body!.transformToByteArray());
}

beforeAll(() => {
  fs.mkdirSync(sourceDir, { recursive: true });
});

describe('stageDocument', () => {
  it('puts a small file at <document root>/<payload path> with its checksum, and a retry leaves the same bytes', async () => {
    const bytes = Buffer.from('%PDF-1.4 a letter\n');
    fs.writeFileSync(path.join(sourceDir, 'letter.pdf'), bytes);
    const first = await stage(doc('letter.pdf'));
    expect(first).toEqual({ ok: true, key: 'migrations/test/letters/letter.pdf', sha256: sha(bytes), size: bytes.length, action: 'uploaded' });
    const head = await aws.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'migrations/test/letters/letter.pdf' }));
    expect(head.Metadata?.sha256).toBe(sha(bytes));
    expect(head.ContentType).toBe('application/pdf');

    const again = await stage(doc('letter.pdf'));
    expect(again).toMatchObject({ ok: true, sha256: sha(bytes), size: bytes.length });
    expect(await objectBytes('migrations/test/letters/letter.pdf')).toEqual(bytes);
  });

  it('sends a file larger than one part in parts, and leaves it alone when the same file is already there', async () => {
    const bytes = Buffer.alloc(PART + 1024 * 1024, 7);
    bytes.write('%PDF-1.4 a long statement\n');
    fs.writeFileSync(path.join(sourceDir, 'statement.pdf'), bytes);
    const first = await stage(doc('statement.pdf', '/statements/statement.pdf'));
    expect(first).toEqual({ ok: true, key: 'migrations/test/statements/statement.pdf', sha256: sha(bytes), size: bytes.length, action: 'uploaded' });
    expect(sha(await objectBytes('migrations/test/statements/statement.pdf'))).toBe(sha(bytes));

    const again = await stage(doc('statement.pdf', '/statements/statement.pdf'));
    expect(again).toMatchObject({ ok: true, action: 'already_present', sha256: sha(bytes) });
  }, 60_000);

  it('refuses a missing source file with the platform code, and a source path that leaves the source folder', async () => {
    expect(await stage(doc('absent.pdf'))).toMatchObject({ ok: false, code: PATH_DOES_NOT_EXIST, attr: 'notes.0.document_paths.0.document_path' });
    expect(await stage(doc('../outside.pdf'))).toMatchObject({ ok: false, code: 'invalid_document_path' });
  });

  it('refuses a real symlink out of the source folder (docs/etcdir -> /etc), naming the path, and puts nothing in the bucket', async () => {
    const outside = path.join(base, 'outside');
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(outside, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    fs.mkdirSync(path.join(sourceDir, 'docs'), { recursive: true });
    fs.symlinkSync(outside, path.join(sourceDir, 'docs', 'etcdir'));
    fs.symlinkSync(path.join(outside, 'passwd'), path.join(sourceDir, 'docs', 'passwd.pdf'));

    for (const p of ['docs/etcdir/passwd', 'docs/passwd.pdf']) {
      const r = await stage(doc(p, '/letters/leak.pdf'));
      expect(r).toEqual({
        ok: false,
        code: SOURCE_OUTSIDE_FOLDER,
        attr: 'notes.0.document_paths.0.document_path',
        detail: expect.stringContaining(p) as string,
      });
    }
    await expect(aws.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'migrations/test/letters/leak.pdf' }))).rejects.toThrow();
  });

  it('follows a link that stays inside the source folder, and refuses a folder or a FIFO as not a regular file', async () => {
    const bytes = Buffer.from('%PDF-1.4 linked\n');
    fs.mkdirSync(path.join(sourceDir, 'real'), { recursive: true });
    fs.writeFileSync(path.join(sourceDir, 'real', 'bill.pdf'), bytes);
    fs.symlinkSync(path.join(sourceDir, 'real'), path.join(sourceDir, 'alias'));
    expect(await stage(doc('alias/bill.pdf', '/bills/bill.pdf'))).toMatchObject({ ok: true, sha256: sha(bytes), size: bytes.length });

    expect(await stage(doc('real', '/bills/folder.pdf'))).toMatchObject({ ok: false, code: SOURCE_NOT_REGULAR_FILE });
    execFileSync('mkfifo', [path.join(sourceDir, 'pipe.pdf')]);
    expect(await stage(doc('pipe.pdf', '/bills/pipe.pdf'))).toMatchObject({
      ok: false,
      code: SOURCE_NOT_REGULAR_FILE,
      detail: expect.stringContaining('pipe.pdf') as string,
    });
  });

  it("refuses `..` in a path under a team's bucket prefix before asking the bucket", async () => {
    const r = await stageDocument({
      s3: aws.s3,
      bucket,
      documentRoot: 'migrations/test',
      sourceDir,
      doc: { ...doc('../other-team/bill.pdf', '/bills/other.pdf'), sourceRoot: `s3://${bucket}/team-a` },
      partSizeBytes: PART,
    });
    expect(r).toMatchObject({ ok: false, code: 'invalid_document_path', detail: expect.stringContaining('../other-team/bill.pdf') as string });
  });
});
