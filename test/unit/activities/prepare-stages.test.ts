import fs from 'node:fs';
import path from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { prepareActivities } from '../../../activities/prepare';
import { parseConfig } from '../../../config';
import { freePort } from '../../../harness/stack/child-process';
import type { Ledger, StagedDocument } from '../../../ledger';
import { realisticAccount } from '../../../schemas/fixtures';
import { payloadDocuments } from '../../../source/payload-documents';
import { useLoopbackS3 } from './loopback-s3';

/**
 * Prepare stages the account's documents in the same activity, from what it holds: the document root
 * from its ledger statement's answer, the documents from the payload (no read-back). Real files and a
 * real (loopback) S3; the ledger is a recorder. What the workflow decides from its answer is in
 * test/unit/durable-time/account-staging.test.ts.
 */

const base = path.resolve('.data/test-prepare-stages');
const bucket = 'prepare-stages-test';
const ROOT = 'migrations/LEGACY_ENERGY';
const aws = useLoopbackS3(base, bucket);

/** The ledger's statements prepare and staging make, recorded. */
function recordingLedger() {
  const calls = {
    stored: [] as string[],
    documents: [] as Array<{ docs: StagedDocument[]; stage: string }>,
    errors: [] as Array<{ stage: string; code: string; attr?: string }>,
  };
  const ledger = {
    storePrepared: async (_ref: unknown, p: { stage: string }) => (calls.stored.push(p.stage), { status: 'ONGOING' as const, documentRoot: ROOT }),
    recordDocuments: async (_ref: unknown, docs: StagedDocument[], stage: string) => void calls.documents.push({ docs, stage }),
    replaceErrors: async (_ref: unknown, _stage: string, errors: Array<{ stage: string; code: string; attr?: string }>) => void calls.errors.push(...errors),
    openAttempt: async () => ({ alreadyFinished: false }),
    stagingInput: async () => {
      throw new Error('prepare must not read back what it just stored');
    },
  } as unknown as Ledger;
  return { calls, ledger };
}

/** Prepare over one team payload whose documents are in `dir` (written there unless `missing`), staging into `client`. */
function prepare(tag: string, client: S3Client, opts: { missing?: boolean } = {}) {
  const dir = path.join(base, tag);
  const payload = realisticAccount();
  const docs = payloadDocuments(payload, dir);
  expect(docs.length, 'the fixture names documents').toBeGreaterThan(1);
  if (!opts.missing) {
    for (const d of docs) {
      fs.mkdirSync(path.dirname(path.join(dir, d.sourcePath)), { recursive: true });
      fs.writeFileSync(path.join(dir, d.sourcePath), `%PDF-1.4 ${d.sourcePath}\n`);
    }
  }
  const { calls, ledger } = recordingLedger();
  const config = { ...parseConfig({}), PLATFORM_BUCKET: bucket };
  const activities = prepareActivities({
    ledger,
    config,
    s3: client,
    mapping: undefined as never,
    adapterFor: () => {
      throw new Error('a payload source, not the legacy one');
    },
    payloadsFor: () => ({ getPayload: async () => ({ ok: true as const, payload, where: 'line 1' }), close: async () => {} }) as never,
  });
  const answer = activities.prepareAccount({
    runId: `run-${tag}`,
    supplierCode: 'LEGACY_ENERGY',
    externalAccountNumber: 'EXT-1001',
    dryRun: false,
    workflowId: `wf-${tag}`,
    source: { kind: 'payloads', path: path.join(dir, 'accounts.jsonl'), documents: dir },
  });
  return { answer, calls, docs };
}

describe('prepare stages the documents it holds', () => {
  it('puts every document under the root its statement answered, records them, and says so in its answer', async () => {
    const { answer, calls, docs } = prepare('staged', aws.s3);
    expect(await answer).toEqual({
      ok: true,
      documentCount: docs.length,
      supplierStatus: 'ONGOING',
      staged: { ok: true, uploaded: docs.length, alreadyPresent: 0 },
    });
    expect(calls.stored).toEqual(['documents']);
    expect(calls.documents).toEqual([{ docs: expect.any(Array), stage: 'guard' }]);
    const keys = calls.documents[0].docs.map((d) => d.key);
    expect(keys).toEqual(docs.map((d) => `${ROOT}${d.payloadPath}`));
    const body = await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: keys[0] }));
    expect(await body.Body!.transformToString()).toBe(`%PDF-1.4 ${docs[0].sourcePath}\n`);
  });

  it('a missing document is its answer (staged ok:false, the code and attr noted at documents), not an error', async () => {
    const { answer, calls, docs } = prepare('missing', aws.s3, { missing: true });
    const expected = { ok: false, code: 'path_does_not_exist_in_file_store', attr: docs[0].attr };
    expect(await answer).toMatchObject({ ok: true, staged: expected });
    expect(calls.errors).toEqual([expect.objectContaining({ stage: 'documents', code: expected.code, attr: expected.attr })]);
    expect(calls.documents).toEqual([]);
  });

  it("S3 unreachable: the payload is stored, then the error leaves retryable and marked as staging's", async () => {
    const closed = await freePort();
    const down = new S3Client({
      endpoint: `http://127.0.0.1:${closed}`,
      region: 'eu-west-2',
      forcePathStyle: true,
      maxAttempts: 1,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const { answer, calls } = prepare('down', down);
    const failure = await answer.then(
      () => undefined,
      (e: unknown) => e,
    );
    down.destroy();
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ nonRetryable: false, details: [{ stage: 'documents' }] });
    expect(calls.stored).toEqual(['documents']);
    expect(calls.documents).toEqual([]);
  });
});
