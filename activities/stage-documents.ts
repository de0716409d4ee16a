import { ApplicationFailure } from '@temporalio/common';
import type { EnergyAccount } from '../schemas/account';
import type { DocumentRef } from '../source/types';
import { attemptRef, type ActivityContext } from './deps';
import { stageDocument } from './documents';
import type { AccountActivities } from './types';

/**
 * Stage documents (a local activity): every document of the account into the platform bucket.
 * Idempotent per document (same checksum already there: left alone), so a retry after a crash
 * re-hashes but re-sends nothing already staged.
 */
export function stageDocumentsActivities(ctx: ActivityContext): Pick<AccountActivities, 'stageDocuments'> {
  const { ledger } = ctx;
  return {
    async stageDocuments(input) {
      const ref = attemptRef(input);
      const supplier = await ledger.supplier(input.supplierCode);
      if (!supplier || !supplier.documentRoot) {
        throw ApplicationFailure.nonRetryable(`import supplier ${input.supplierCode} has no document root: run "kraken-migrate supplier set-root"`, 'supplier_unknown');
      }
      const { documents } = await ledger.loadPayload<EnergyAccount, DocumentRef>(ref);
      let uploaded = 0;
      let alreadyPresent = 0;
      for (const doc of documents) {
        const r = await stageDocument({
          s3: ctx.s3,
          bucket: ctx.config.PLATFORM_BUCKET,
          documentRoot: supplier.documentRoot,
          sourceDir: ctx.config.SOURCE_DOCUMENTS_DIR,
          doc,
          partSizeBytes: ctx.config.MULTIPART_THRESHOLD_BYTES,
        });
        if (!r.ok) {
          await ledger.replaceErrors(ref, 'documents', [{ stage: 'documents', code: r.code, attr: r.attr, detail: r.detail }]);
          return { ok: false as const, code: r.code, attr: r.attr };
        }
        await ledger.recordDocument(ref, r.key, r.sha256, r.size, r.action);
        if (r.action === 'uploaded') uploaded++;
        else alreadyPresent++;
      }
      await ledger.setStage(ref, 'guard');
      return { ok: true as const, uploaded, alreadyPresent };
    },
  };
}
