import { ApplicationFailure, ensureApplicationFailure, TemporalFailure } from '@temporalio/common';
import { STAGING_FAILED } from '../domain/step-results';
import type { StagedDocument } from '../ledger';
import type { DocumentRef } from '../source/types';
import { attemptRef, type ActivityContext } from './deps';
import { stageDocument } from './documents';
import type { AccountActivities, AttemptRef, StageDocumentsResult } from './types';

type StagingContext = Pick<ActivityContext, 'ledger' | 'config' | 's3'>;

/**
 * Every document of the account into the platform bucket under `documentRoot`, then recorded and the
 * attempt moved on to the guard. Idempotent per document (same checksum already there: left alone),
 * so a retry after a crash re-hashes but re-sends nothing already staged. Called by prepare, which
 * has the documents in hand (activities/prepare.ts), and by the stageDocuments activity that older
 * histories still call.
 */
export async function stageAccountDocuments(
  ctx: StagingContext,
  ref: AttemptRef,
  documentRoot: string,
  documents: readonly DocumentRef[],
): Promise<StageDocumentsResult> {
  const staged: StagedDocument[] = [];
  for (const doc of documents) {
    const r = await stageDocument({
      s3: ctx.s3,
      bucket: ctx.config.PLATFORM_BUCKET,
      documentRoot,
      sourceDir: ctx.config.SOURCE_DOCUMENTS_DIR,
      doc,
      partSizeBytes: ctx.config.MULTIPART_THRESHOLD_BYTES,
    });
    if (!r.ok) {
      await ctx.ledger.replaceErrors(ref, 'documents', [{ stage: 'documents', code: r.code, attr: r.attr, detail: r.detail }]);
      return { ok: false as const, code: r.code, attr: r.attr };
    }
    staged.push({ key: r.key, sha256: r.sha256, size: r.size, action: r.action });
  }
  // Recorded together once all are up: a crash before this re-stages, which sends nothing twice
  // that is large (see stageDocument) and overwrites small objects with the same bytes.
  await ctx.ledger.recordDocuments(ref, staged, 'guard');
  const uploaded = staged.filter((d) => d.action === 'uploaded').length;
  return { ok: true as const, uploaded, alreadyPresent: staged.length - uploaded };
}

/**
 * Staging inside another step's activity: an error it throws leaves as the failure the SDK would
 * have made of it (same type, so the same code; same retryability), marked in its details so the
 * workflow records the account at stage `documents` (workflows/account-import.ts). Cancellation
 * and timeouts pass as they are.
 */
export async function asStagingStep<T>(stage: () => Promise<T>): Promise<T> {
  try {
    return await stage();
  } catch (e) {
    if (e instanceof TemporalFailure && !(e instanceof ApplicationFailure)) throw e;
    const f = ensureApplicationFailure(e);
    const marked = ApplicationFailure.create({
      message: f.message,
      type: f.type ?? undefined,
      nonRetryable: f.nonRetryable ?? undefined,
      details: [STAGING_FAILED],
      cause: f.cause,
      nextRetryDelay: f.nextRetryDelay ?? undefined,
      category: f.category ?? undefined,
    });
    marked.stack = f.stack;
    throw marked;
  }
}

/** Stage documents (a local activity): what prepare wrote, read back and staged. Histories started before prepare staged call it. */
export function stageDocumentsActivities(ctx: StagingContext): Pick<AccountActivities, 'stageDocuments'> {
  return {
    async stageDocuments(input) {
      const ref = attemptRef(input);
      const { documentRoot, documents } = await ctx.ledger.stagingInput<DocumentRef>(ref);
      if (!documentRoot) {
        throw ApplicationFailure.nonRetryable(
          `import supplier ${input.supplierCode} has no document root: run "kraken-migrate supplier set-root"`,
          'supplier_unknown',
        );
      }
      return stageAccountDocuments(ctx, ref, documentRoot, documents);
    },
  };
}
