import { ApplicationFailure } from '@temporalio/common';
import { validateAccount } from '../schemas/validate';
import { applyBalanceFields } from '../schemas/balance-fields';
import type { CountryCode } from '../schemas/formats';
import { transformAccount } from '../source/transform';
import type { SourceAccount } from '../source/types';
import type { LedgerError } from '../ledger';
import { attemptRef, type ActivityContext } from './deps';
import type { AccountActivities } from './types';

/**
 * Prepare (a local activity: source read, pure transform and validation, one ledger statement):
 * the payload goes to the ledger, history sees only the summary. The supplier's status comes back
 * with it so the guard costs nothing while the supplier is ongoing.
 */
export function prepareActivities(ctx: ActivityContext): Pick<AccountActivities, 'prepareAccount'> {
  const { ledger } = ctx;
  return {
    async prepareAccount(input) {
      const ref = attemptRef(input);
      const fail = async (stage: 'source' | 'transform' | 'validate', errors: LedgerError[]) => {
        await ledger.openAttempt(ref, input.workflowId);
        await ledger.replaceErrors(ref, stage, errors);
        return { ok: false as const, stage, code: errors[0].code, attr: errors[0].attr, errorCount: errors.length };
      };

      let src: SourceAccount | undefined;
      try {
        src = await ctx.adapterFor(input.source).getAccount(input.externalAccountNumber);
      } catch (e) {
        // The attempt's row must exist for the outcome an exhausted or refused prepare still gets
        // (a run opens it at dispatch; a workflow started on its own has only this).
        await ledger.openAttempt(ref, input.workflowId).catch(() => undefined);
        throw e;
      }
      if (!src) return fail('source', [{ stage: 'source', code: 'source_account_not_found', detail: 'no such account in the source' }]);

      const transformed = transformAccount(src, { importSupplierCode: input.supplierCode, mapping: ctx.mapping, defaultRegion: ctx.config.PHONE_DEFAULT_REGION });
      if (!transformed.ok) {
        return fail('transform', transformed.errors.map((e) => ({ stage: 'transform', code: e.code, attr: e.attr, detail: e.detail, sourceField: e.sourceField })));
      }
      const validated = validateAccount(transformed.payload, { defaultRegion: ctx.config.PHONE_DEFAULT_REGION as CountryCode });
      if (!validated.ok) return fail('validate', validated.errors.map((e) => ({ stage: 'validate', ...e })));

      // The balance fields the tenant takes (PLATFORM_BALANCE_FIELDS): the stored payload is the one sent.
      const shaped = applyBalanceFields(validated.value, ctx.config.PLATFORM_BALANCE_FIELDS);
      if (!shaped.ok) return fail('validate', shaped.errors.map((e) => ({ stage: 'validate', ...e })));

      const supplier = await ledger.storePrepared(ref, {
        workflowId: input.workflowId,
        request: shaped.payload,
        documents: transformed.documents,
        stage: transformed.documents.length > 0 ? 'documents' : 'guard',
      });
      if (!supplier) {
        throw ApplicationFailure.nonRetryable(`import supplier ${input.supplierCode} is unknown: register it with "kraken-migrate supplier set-root"`, 'supplier_unknown');
      }
      return { ok: true as const, documentCount: transformed.documents.length, supplierStatus: supplier.status };
    },
  };
}
