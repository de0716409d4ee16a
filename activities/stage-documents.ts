import { ApplicationFailure } from '@temporalio/common';
import type { StagedDocument } from '../ledger';
import type { DocumentRef } from '../source/types';
import { attemptRef, type ActivityContext } from './deps';
import { stageDocument } from './documents';
import type { AccountActivities } from './types';

/**
 * Stage documents (a local activity): every document of the account into the platform bucket.
 * Idempotent per document (same checksum already there: left alone), so a retry after a crash
 * re-hashes but re-sends nothing already staged.
 */
export function stageDocumentsActivities(ctx: Pick<ActivityContext, 'ledger' | 'config' | 's3'>): Pick<AccountActivities, 'stageDocuments'> {
  const { ledger } = ctx;
  return {
    async stageDocuments(input) {
      const ref = attemptRef(input);
      const { documentRoot, documents } = await ledger.stagingInput<DocumentRef>(ref);
      if (!documentRoot) {
        throw ApplicationFailure.nonRetryable(
          `import supplier ${input.supplierCode} has no document root: run "kraken-migrate supplier set-root"`,
          'supplier_unknown',
        );
      }
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
          await ledger.replaceErrors(ref, 'documents', [{ stage: 'documents', code: r.code, attr: r.attr, detail: r.detail }]);
          return { ok: false as const, code: r.code, attr: r.attr };
        }
        staged.push({ key: r.key, sha256: r.sha256, size: r.size, action: r.action });
      }
      // Recorded together once all are up: a crash before this re-stages, which sends nothing twice
      // that is large (see stageDocument) and overwrites small objects with the same bytes.
      await ledger.recordDocuments(ref, staged, 'guard');
      const uploaded = staged.filter((d) => d.action === 'uploaded').length;
      return { ok: true as const, uploaded, alreadyPresent: staged.length - uploaded };
    },
  };
}
