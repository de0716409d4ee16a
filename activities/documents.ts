import { createHash } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { StagedDocument } from '../ledger';
import { resolveDocumentPath } from '../schemas/document-path';
import { openSourceFile, PATH_DOES_NOT_EXIST, sha256Handle } from '../source/documents';
import type { DocumentRef } from '../source/types';

export type StageOneResult = ({ ok: true } & StagedDocument) | { ok: false; code: string; attr: string; detail: string };

/**
 * Puts one document into the platform bucket at `<supplier root>/<payload path>`, read from the
 * document's own `sourceRoot` when it has one (a folder, or a team's bucket: `s3://bucket/prefix`), else the
 * source folder.
 * Idempotent either way:
 * - a file up to one part (`partSizeBytes`, 8 MiB by default: statements and letters) is read
 *   once, hashed and sent in one PUT. A second PUT of the same bytes to the same key changes
 *   nothing, and costs what the HEAD that could spare it would; so it is not asked first;
 * - a larger file is hashed while streamed, and left alone when an object with the same checksum
 *   and size is already there; otherwise it goes up in parts (lib-storage), so a retry after a
 *   crash re-sends at most one large file.
 */
export async function stageDocument(opts: {
  s3: S3Client;
  bucket: string;
  documentRoot: string;
  sourceDir: string;
  doc: DocumentRef;
  partSizeBytes: number;
  onProgress?: (loaded: number) => void;
}): Promise<StageOneResult> {
  const { doc } = opts;
  const resolved = resolveDocumentPath(opts.documentRoot, doc.payloadPath);
  if (!resolved.ok) return { ok: false, code: resolved.code, attr: doc.attr, detail: resolved.detail };

  const sourceRoot = doc.sourceRoot ?? opts.sourceDir;
  if (sourceRoot.startsWith('s3://')) return copyFromBucket(opts, sourceRoot, resolved.key);

  // The source path is ours to read: its real location (links followed) must stay inside the
  // source folder, and it must be a regular file (see openSourceFile).
  const opened = await openSourceFile(sourceRoot, doc.sourcePath);
  if (!opened.ok) return { ok: false, code: opened.code, attr: doc.attr, detail: opened.detail };
  const { handle, size } = opened;
  try {
    if (size <= opts.partSizeBytes) return await putSmall(opts, resolved.key, await handle.readFile());
    const sha256 = await sha256Handle(handle);
    const existing = await headObject(opts.s3, opts.bucket, resolved.key);
    if (existing && existing.sha256 === sha256 && existing.size === size) {
      return { ok: true, key: resolved.key, sha256, size, action: 'already_present' };
    }
    return await putLarge(opts, resolved.key, handle.createReadStream({ start: 0, end: size - 1, autoClose: false }), sha256, size);
  } finally {
    await handle.close();
  }
}

type StageOpts = Parameters<typeof stageDocument>[0];

/** One PUT of a file read whole (up to one part). */
async function putSmall(opts: StageOpts, key: string, body: Buffer): Promise<StageOneResult> {
  const sha256 = createHash('sha256').update(body).digest('hex');
  await opts.s3.send(new PutObjectCommand({ Bucket: opts.bucket, Key: key, Body: body, ContentType: opts.doc.contentType, Metadata: { sha256 } }));
  opts.onProgress?.(body.length);
  return { ok: true, key, sha256, size: body.length, action: 'uploaded' };
}

/** A multipart upload (lib-storage); `sha256` may be known only once the body has been read. */
async function putLarge(opts: StageOpts, key: string, body: Readable, sha256: string | (() => string), size: number): Promise<StageOneResult> {
  const upload = new Upload({
    client: opts.s3,
    params: { Bucket: opts.bucket, Key: key, Body: body, ContentType: opts.doc.contentType, ...(typeof sha256 === 'string' ? { Metadata: { sha256 } } : {}) },
    partSize: opts.partSizeBytes,
    queueSize: 2,
    leavePartsOnError: false,
  });
  if (opts.onProgress) upload.on('httpUploadProgress', (p) => opts.onProgress?.(p.loaded ?? 0));
  await upload.done();
  return { ok: true, key, sha256: typeof sha256 === 'string' ? sha256 : sha256(), size, action: 'uploaded' };
}

/**
 * A document in the team's own bucket (`--documents s3://bucket/prefix`): copied through this
 * worker into the platform bucket (the two may sit in different accounts, so no server-side copy).
 */
async function copyFromBucket(opts: StageOpts, sourceRoot: string, targetKey: string): Promise<StageOneResult> {
  const { doc } = opts;
  const [bucket, ...prefix] = sourceRoot.slice('s3://'.length).split('/');
  // A key is literal in S3, but `.`/`..` segments are normalised by some endpoints and proxies on
  // the way: a source path stays inside the team's prefix by having none.
  if (doc.sourcePath.split('/').some((seg) => seg === '..' || seg === '.') || doc.sourcePath.includes('\\')) {
    return {
      ok: false,
      code: 'invalid_document_path',
      attr: doc.attr,
      detail: `source document path ${doc.sourcePath} leaves the source prefix ${sourceRoot}`,
    };
  }
  const sourceKey = [...prefix.filter((p) => p !== ''), doc.sourcePath].join('/');
  const head = await headObject(opts.s3, bucket, sourceKey);
  if (!head) return { ok: false, code: PATH_DOES_NOT_EXIST, attr: doc.attr, detail: `source document s3://${bucket}/${sourceKey} is missing` };
  const got = await opts.s3.send(new GetObjectCommand({ Bucket: bucket, Key: sourceKey }));
  const body = got.Body as Readable & { transformToByteArray(): Promise<Uint8Array> };
  const size = head.size ?? 0;
  if (size <= opts.partSizeBytes) return putSmall(opts, targetKey, Buffer.from(await body.transformToByteArray()));
  const hash = createHash('sha256');
  const hashed = body.pipe(new PassThrough({ transform: (chunk, _enc, cb) => (hash.update(chunk), cb(null, chunk)) }));
  return putLarge(opts, targetKey, hashed, () => hash.digest('hex'), size);
}

async function headObject(s3: S3Client, bucket: string, key: string): Promise<{ sha256?: string; size?: number } | undefined> {
  try {
    const r = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return { sha256: r.Metadata?.sha256, size: r.ContentLength };
  } catch (e) {
    const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 404 || (e as Error).name === 'NotFound') return undefined;
    throw e;
  }
}
