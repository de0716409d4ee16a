import { ApplicationFailure } from '@temporalio/common';
import type pino from 'pino';
import { PlatformTransientError, toActivityFailure } from '../clients/platform';
import type { ItemRef } from '../ledger/post-import-items';
import { itemKey, postImportItemSchema, RESOURCE_TYPE_OF, type PostImportItem } from '../schemas/post-import';
import { importEventSignalOf, type ImportEventSignal, type SourceSpecRef } from '../domain/inputs';
import { ERROR_ATTR_OF } from '../domain/post-import-kinds';
import type { ItemRefInput, ReconcileResult, SendItemResult } from '../domain/post-import-inputs';
import type { ActivityContext } from './deps';
import { stageDocument } from './documents';
import { readBackAccount } from './read-back';

/** Activities of reconciliation and of changes carried over after import (main task queue). */
export interface PostImportMainActivities {
  collectChanges(input: {
    deltaId: string;
    runId: string;
    supplierCode: string;
    externalAccountNumber: string;
    accountNumber: string;
    source: SourceSpecRef;
    retryFailed: boolean;
  }): Promise<Array<{ kind: ItemRefInput['kind']; key: string }>>;
  findPostImportEvent(input: ItemRefInput & { sinceMs: number }): Promise<ImportEventSignal | undefined>;
  recordItemOutcome(
    input: ItemRefInput & { status: 'completed' | 'post_import_failed'; source: string; code?: string; attr?: string; eventId?: string },
  ): Promise<void>;
  listDeltaAccounts(input: {
    runId: string;
    accounts: 'completed' | 'failed_items';
    after?: string;
    limit: number;
  }): Promise<Array<{ externalAccountNumber: string; accountNumber: string }>>;
}

/** Platform calls (rate-limited task queue). */
export interface PostImportPlatformActivities {
  reconcileAccount(input: {
    runId: string;
    supplierCode: string;
    externalAccountNumber: string;
    accountNumber: string;
    checkedBy: 'workflow' | 'reconcile_command';
  }): Promise<ReconcileResult>;
  sendPostImportItem(input: ItemRefInput & { deltaId: string; workflowId: string; reask: boolean }): Promise<SendItemResult>;
}

function toItem(kind: ItemRefInput['kind'], raw: unknown): PostImportItem {
  return postImportItemSchema.parse({ kind, item: raw });
}

/** Reconciliation and changes carried over, main task queue: built from the shared context like every stage. */
export function postImportMainActivities(
  ctx: Pick<ActivityContext, 'changeFeedFor' | 'config' | 'logger' | 's3' | 'postImportItems' | 'ledger' | 'reconciliations'>,
): PostImportMainActivities {
  const { postImportItems: items, ledger, reconciliations: recon } = ctx;

  return {
    async collectChanges(input) {
      const since = await items.extractedAt(input.runId, input.externalAccountNumber);
      if (!since)
        throw ApplicationFailure.nonRetryable(`no extraction recorded for ${input.externalAccountNumber} in run ${input.runId}`, 'extraction_unknown');
      const changes = await ctx.changeFeedFor(input.source).changesSince(input.externalAccountNumber, since);
      const supplier = await ledger.supplier(input.supplierCode);
      const staged: typeof changes = [];
      const missing: Array<{ ref: ItemRef; detail: string; code: string; attr: string }> = [];
      for (const c of changes) {
        if (c.change.kind === 'statement' && c.document_path) {
          if (!supplier?.documentRoot) throw ApplicationFailure.nonRetryable(`import supplier ${input.supplierCode} has no document root`, 'supplier_unknown');
          const r = await stageDocument({
            s3: ctx.s3,
            bucket: ctx.config.PLATFORM_BUCKET,
            documentRoot: supplier.documentRoot,
            sourceDir: ctx.config.SOURCE_DOCUMENTS_DIR,
            doc: {
              payloadPath: c.change.item.statement_path.startsWith('/') ? c.change.item.statement_path : `/${c.change.item.statement_path}`,
              sourcePath: c.document_path,
              contentType: 'application/pdf',
              attr: 'statements.0.statement_path',
            },
            partSizeBytes: ctx.config.MULTIPART_THRESHOLD_BYTES,
          });
          if (!r.ok) {
            missing.push({
              ref: { supplierCode: input.supplierCode, externalAccountNumber: input.externalAccountNumber, kind: 'statement', key: itemKey(c.change) },
              code: r.code,
              attr: r.attr,
              detail: r.detail,
            });
          }
        }
        staged.push(c);
      }
      await items.addChanges(
        input.supplierCode,
        input.externalAccountNumber,
        staged.map((c) => ({
          runId: input.runId,
          deltaId: input.deltaId,
          platformAccountNumber: input.accountNumber,
          recordedAt: c.recorded_at,
          change: c.change,
          key: itemKey(c.change),
        })),
      );
      for (const m of missing) await items.finish(m.ref, { status: 'post_import_failed', source: 'local', code: m.code, attr: m.attr, detail: m.detail });
      const open = await items.openItems(input.supplierCode, input.externalAccountNumber, { retryFailed: input.retryFailed });
      const skip = new Set(missing.map((m) => `${m.ref.kind}|${m.ref.key}`));
      return open.filter((o) => !skip.has(`${o.kind}|${o.key}`)).map(({ kind, key }) => ({ kind, key }));
    },

    async findPostImportEvent(input) {
      const e = await items.claimEvent(input.externalAccountNumber, RESOURCE_TYPE_OF[input.kind], input.key, input.sinceMs);
      if (!e) return undefined;
      return importEventSignalOf({ ...e, resourceType: RESOURCE_TYPE_OF[input.kind] });
    },

    async recordItemOutcome(input) {
      const detail = input.eventId ? await items.eventErrorDetail(input.eventId) : undefined;
      await items.finish(input, { status: input.status, source: input.source, code: input.code, attr: input.attr, detail });
      ctx.logger.info(
        { account: input.externalAccountNumber, kind: input.kind, status: input.status, code: input.code, source: input.source },
        'post-import item outcome',
      );
    },

    async listDeltaAccounts({ runId, accounts, after, limit }) {
      if (accounts === 'completed')
        return (await recon.completedAccounts(runId, after, limit)).map(({ externalAccountNumber, accountNumber }) => ({
          externalAccountNumber,
          accountNumber,
        }));
      const failed = (await items.accountsWith(runId, 'post_import_failed')).filter((e) => after === undefined || e > after).slice(0, limit);
      return items.accountNumbers(runId, failed);
    },
  };
}

/** Platform calls of reconciliation and carry-over (rate-limited task queue). */
export function postImportPlatformActivities(
  ctx: Pick<ActivityContext, 'logger' | 'platform' | 'postImportItems' | 'ledger' | 'reconciliations'>,
): PostImportPlatformActivities {
  const items = ctx.postImportItems;

  return {
    async reconcileAccount(input) {
      return call(ctx.logger, () => readBackAccount(ctx, input));
    },

    async sendPostImportItem(input) {
      const ref: ItemRef = { supplierCode: input.supplierCode, externalAccountNumber: input.externalAccountNumber, kind: input.kind, key: input.key };
      const row = await items.load(ref);
      if (!row) throw ApplicationFailure.nonRetryable(`no post-import item ${input.kind} ${input.key}`, 'post_import_item_missing');
      if (row.status === 'completed') return { kind: 'already_exists' };
      const { priorAttempts } = await items.markSending(ref, input.workflowId, input.deltaId);
      const sentAtMs = Date.now();
      const r = await call(ctx.logger, () => ctx.platform.sendPostImportItem(input.supplierCode, input.externalAccountNumber, toItem(input.kind, row.item)));
      const resent = input.reask || priorAttempts > 0;
      switch (r.kind) {
        case 'accepted':
          // A payment instruction has no "already exists" answer: a re-send of our reference answered 201 confirms it.
          if (input.reask && input.kind === 'payment_instruction') return { kind: 'already_exists' };
          await items.markSent(ref);
          return { kind: 'accepted', sentAtMs };
        case 'already_exists':
          return { kind: 'already_exists' };
        case 'active_instruction_exists':
          // The answer cannot say whose instruction is active: ours when we sent it before and the
          // ledger knows of no other one for this account; otherwise another instruction is active.
          if (resent && !(await items.otherCompleted(ref))) return { kind: 'already_exists' };
          await items.finish(ref, {
            status: 'post_import_failed',
            source: 'platform_response',
            code: 'payment_instruction_already_active',
            attr: ERROR_ATTR_OF[input.kind],
            detail: 'the account already has an active payment instruction',
          });
          return { kind: 'failed', code: 'payment_instruction_already_active', attr: ERROR_ATTR_OF[input.kind] };
        case 'account_not_found':
          return { kind: 'failed', code: 'account_not_found', attr: 'external_account_number' };
        case 'supplier_not_ongoing':
          return { kind: 'failed', code: 'import_supplier_migration_not_ongoing', attr: 'import_supplier' };
        case 'rejected':
          await items.finish(ref, { status: 'post_import_failed', source: 'platform_response', code: r.code, attr: r.attr, detail: r.detail });
          return { kind: 'failed', code: r.code, attr: r.attr };
      }
    },
  };
}

/** The platform client's errors as Temporal sees them (domain/platform-failure.ts, as every platform activity). */
async function call<T>(logger: pino.Logger, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof PlatformTransientError)
      logger.warn({ code: e.code, status: e.status, retryAfterMs: e.retryAfterMs }, 'platform call failed transiently; Temporal retries');
    throw toActivityFailure(e);
  }
}
