import { ApplicationFailure } from '@temporalio/common';
import { validateAccount } from '../schemas/validate';
import { applyBalanceFields } from '../schemas/balance-fields';
import type { CountryCode } from '../schemas/formats';
import { isPayloadSpec, type PayloadSourceSpec } from '../source/adapter-contract';
import { payloadDocuments } from '../source/payload-documents';
import { transformAccount } from '../source/transform';
import type { DocumentRef, SourceAccount } from '../source/types';
import type { EnergyAccount } from '../schemas/account';
import type { LedgerError } from '../ledger';
import { attemptRef, type ActivityContext } from './deps';
import { asStagingStep, stageAccountDocuments } from './stage-documents';
import type { AccountActivities, PrepareResult } from './types';

type Built = { ok: true; payload: EnergyAccount; documents: DocumentRef[] } | { ok: false; stage: 'source' | 'transform' | 'validate'; errors: LedgerError[] };

/**
 * Prepare (a local activity: source read, pure transform and validation, one ledger statement),
 * then the account's documents staged: the payload goes to the ledger, history sees only the
 * summary and the staging's. The supplier's status comes back with it so the guard costs nothing
 * while the supplier is ongoing. A legacy account is transformed; a team's own payload is taken as
 * it is, validated the same way (and refused, not stripped, when it carries a key the contract does
 * not declare). Staging here spares the account a marker, a workflow activation and the read-back
 * of what was just stored. A retry does it all again safely: the payload is re-validated and stored
 * over itself, and staging is idempotent per document (activities/stage-documents.ts).
 */
export function prepareActivities(
  ctx: Pick<ActivityContext, 'ledger' | 'adapterFor' | 'config' | 'mapping' | 'payloadsFor' | 's3'>,
): Pick<AccountActivities, 'prepareAccount'> {
  const { ledger } = ctx;
  const region = ctx.config.PHONE_DEFAULT_REGION as CountryCode;

  /** The attempt's row must exist for the outcome an exhausted or refused prepare still gets
   * (a run opens it at dispatch; a workflow started on its own has only this). */
  const reading = async <T>(ref: ReturnType<typeof attemptRef>, workflowId: string, read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (e) {
      await ledger.openAttempt(ref, workflowId).catch(() => undefined);
      throw e;
    }
  };

  const notFound: Built = {
    ok: false,
    stage: 'source',
    errors: [{ stage: 'source', code: 'source_account_not_found', detail: 'no such account in the source' }],
  };

  function fromLegacy(src: SourceAccount | undefined, supplierCode: string, sendRegistrationFlows: boolean): Built {
    if (!src) return notFound;
    const transformed = transformAccount(src, { importSupplierCode: supplierCode, mapping: ctx.mapping, defaultRegion: ctx.config.PHONE_DEFAULT_REGION });
    if (!transformed.ok) {
      return {
        ok: false,
        stage: 'transform',
        errors: transformed.errors.map((e) => ({ stage: 'transform', code: e.code, attr: e.attr, detail: e.detail, sourceField: e.sourceField })),
      };
    }
    const validated = validateAccount(transformed.payload, { defaultRegion: region, sendRegistrationFlows });
    if (!validated.ok) return { ok: false, stage: 'validate', errors: validated.errors.map((e) => ({ stage: 'validate', ...e })) };
    return { ok: true, payload: validated.value, documents: transformed.documents };
  }

  async function fromPayloads(
    spec: PayloadSourceSpec,
    ext: string,
    supplierCode: string,
    ref: ReturnType<typeof attemptRef>,
    workflowId: string,
    sendRegistrationFlows: boolean,
  ): Promise<Built> {
    const read = await reading(ref, workflowId, () => ctx.payloadsFor(spec, ref.runId).getPayload(ext));
    if (!read) return notFound;
    if (!read.ok) return { ok: false, stage: 'source', errors: [{ stage: 'source', code: read.code, attr: read.attr, detail: read.detail }] };
    const validated = validateAccount(read.payload, { defaultRegion: region, importSupplier: supplierCode, sendRegistrationFlows });
    if (!validated.ok) return { ok: false, stage: 'validate', errors: validated.errors.map((e) => ({ stage: 'validate', ...e })) };
    return { ok: true, payload: validated.value, documents: payloadDocuments(validated.value, spec.documents ?? ctx.config.SOURCE_DOCUMENTS_DIR) };
  }

  return {
    async prepareAccount(input): Promise<PrepareResult> {
      const ref = attemptRef(input);
      const fail = async (stage: 'source' | 'transform' | 'validate', errors: LedgerError[]) => {
        await ledger.openAttempt(ref, input.workflowId);
        await ledger.replaceErrors(ref, stage, errors);
        return { ok: false as const, stage, code: errors[0].code, attr: errors[0].attr, errorCount: errors.length };
      };

      const source = input.source;
      // Not a switch unless the run says so: agents to appoint are then refused before send.
      const flows = input.sendRegistrationFlows === true;
      const built = isPayloadSpec(source)
        ? await fromPayloads(source, input.externalAccountNumber, input.supplierCode, ref, input.workflowId, flows)
        : fromLegacy(await reading(ref, input.workflowId, () => ctx.adapterFor(source).getAccount(input.externalAccountNumber)), input.supplierCode, flows);
      if (!built.ok) return fail(built.stage, built.errors);

      // The balance fields the tenant takes (PLATFORM_BALANCE_FIELDS): the stored payload is the one sent.
      const shaped = applyBalanceFields(built.payload, ctx.config.PLATFORM_BALANCE_FIELDS);
      if (!shaped.ok)
        return fail(
          'validate',
          shaped.errors.map((e) => ({ stage: 'validate', ...e })),
        );

      const supplier = await ledger.storePrepared(ref, {
        workflowId: input.workflowId,
        request: shaped.payload,
        documents: built.documents,
        stage: built.documents.length > 0 ? 'documents' : 'guard',
      });
      if (!supplier) {
        throw ApplicationFailure.nonRetryable(
          `import supplier ${input.supplierCode} is unknown: register it with "kraken-migrate supplier set-root"`,
          'supplier_unknown',
        );
      }
      const documents = built.documents;
      const staged =
        documents.length > 0
          ? await asStagingStep(() => stageAccountDocuments(ctx, ref, supplier.documentRoot, documents))
          : { ok: true as const, uploaded: 0, alreadyPresent: 0 };
      return { ok: true as const, documentCount: documents.length, supplierStatus: supplier.status, staged };
    },
  };
}
