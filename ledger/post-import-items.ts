import type { Pool } from '../clients/db';
import type { PostImportItem, PostImportKind } from '../schemas/post-import';
import { eventErrorDetailOf } from './inbox';
import { openJson, openString, SEALED, sealJson, sealString } from './sealing';

/**
 * `migrate.post_import_items`: every change carried over after import, keyed by supplier, account,
 * kind and the identifier the platform's endpoint offers. The row is the idempotency record: an
 * item that is completed is never sent again, whichever delta or retry comes next.
 */

export interface ItemRef {
  supplierCode: string;
  externalAccountNumber: string;
  kind: PostImportKind;
  key: string;
}

export type ItemStatus = 'pending' | 'sending' | 'sent' | 'completed' | 'post_import_failed';

export interface NewChange {
  runId: string;
  deltaId: string;
  platformAccountNumber: string;
  recordedAt: string;
  change: PostImportItem;
  key: string;
}

const where = 'supplier_code = $1 and external_account_number = $2 and kind = $3 and item_key = $4';
const refArgs = (r: ItemRef) => [r.supplierCode, r.externalAccountNumber, r.kind, r.key];

export function createPostImportLedger(pool: Pool) {
  return {
    /** When the account's payload was built from the source: changes after it are the delta. */
    async extractedAt(runId: string, ext: string): Promise<Date | undefined> {
      const r = await pool.query<{ created_at: Date }>('select created_at from migrate.account_payloads where run_id = $1 and external_account_number = $2', [
        runId,
        ext,
      ]);
      return r.rows[0]?.created_at;
    },

    /** Records changes not yet known; known ones (any status) are left as they are. */
    async addChanges(supplierCode: string, ext: string, changes: NewChange[]): Promise<number> {
      if (changes.length === 0) return 0;
      const r = await pool.query(
        `insert into migrate.post_import_items (supplier_code, external_account_number, kind, item_key, run_id, delta_id, platform_account_number, item, recorded_at)
         select $1, $2, * from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[], $9::timestamptz[])
         on conflict (supplier_code, external_account_number, kind, item_key) do nothing`,
        [
          supplierCode,
          ext,
          changes.map((c) => c.change.kind),
          changes.map((c) => c.key),
          changes.map((c) => c.runId),
          changes.map((c) => c.deltaId),
          changes.map((c) => c.platformAccountNumber),
          changes.map((c) => sealJson(pool, SEALED.postImportItem, c.change.item)),
          changes.map((c) => c.recordedAt),
        ],
      );
      return r.rowCount ?? 0;
    },

    /** Items of the account still to carry over, oldest first (failed ones only when asked). */
    async openItems(
      supplierCode: string,
      ext: string,
      opts: { retryFailed: boolean },
    ): Promise<Array<{ kind: PostImportKind; key: string; status: ItemStatus }>> {
      const statuses = opts.retryFailed ? ['pending', 'sending', 'sent', 'post_import_failed'] : ['pending', 'sending', 'sent'];
      const r = await pool.query<{ kind: PostImportKind; item_key: string; status: ItemStatus }>(
        `select kind, item_key, status from migrate.post_import_items
          where supplier_code = $1 and external_account_number = $2 and status = any($3) order by recorded_at, kind, item_key`,
        [supplierCode, ext, statuses],
      );
      return r.rows.map((x) => ({ kind: x.kind, key: x.item_key, status: x.status }));
    },

    async load(ref: ItemRef): Promise<{ item: unknown; status: ItemStatus; attempts: number; sentAt: Date | null } | undefined> {
      const r = await pool.query<{ item: unknown; status: ItemStatus; attempts: number; sent_at: Date | null }>(
        `select item, status, attempts, sent_at from migrate.post_import_items where ${where}`,
        refArgs(ref),
      );
      const row = r.rows[0];
      return row && { item: openJson(pool, SEALED.postImportItem, row.item), status: row.status, attempts: row.attempts, sentAt: row.sent_at };
    },

    /** Before each request: counts the attempt and names the workflow that waits for its event. */
    async markSending(ref: ItemRef, workflowId: string, deltaId: string): Promise<{ priorAttempts: number }> {
      const r = await pool.query<{ attempts: number }>(
        `update migrate.post_import_items set status = 'sending', attempts = attempts + 1, workflow_id = $5, delta_id = $6,
           sent_at = coalesce(sent_at, now()), updated_at = now(), error_code = null, error_attr = null, error_detail = null
         where ${where} and status <> 'completed' returning attempts`,
        [...refArgs(ref), workflowId, deltaId],
      );
      return { priorAttempts: (r.rows[0]?.attempts ?? 1) - 1 };
    },

    /** Another item of the same kind already completed for the account (payment instructions: one active). */
    async otherCompleted(ref: ItemRef): Promise<boolean> {
      const r = await pool.query(
        `select 1 from migrate.post_import_items where supplier_code = $1 and external_account_number = $2 and kind = $3 and item_key <> $4 and status = 'completed' limit 1`,
        refArgs(ref),
      );
      return (r.rowCount ?? 0) > 0;
    },

    async markSent(ref: ItemRef): Promise<void> {
      await pool.query(`update migrate.post_import_items set status = 'sent', updated_at = now() where ${where} and status = 'sending'`, refArgs(ref));
    },

    /** The item's outcome; a completed item stays completed. */
    async finish(
      ref: ItemRef,
      o: { status: 'completed' | 'post_import_failed'; source: string; code?: string; attr?: string; detail?: string },
    ): Promise<void> {
      await pool.query(
        `update migrate.post_import_items set status = $5, outcome_source = $6, error_code = $7, error_attr = $8, error_detail = $9,
           finished_at = now(), updated_at = now()
         where ${where} and status <> 'completed'`,
        [...refArgs(ref), o.status, o.source, o.code ?? null, o.attr ?? null, sealString(pool, SEALED.postImportErrorDetail, o.detail)],
      );
    },

    /** Workflows waiting on post-import events of this account (for the events router). */
    async waitingWorkflows(ext: string): Promise<string[]> {
      const r = await pool.query<{ workflow_id: string }>(
        `select distinct workflow_id from migrate.post_import_items
          where external_account_number = $1 and status in ('sending', 'sent') and workflow_id is not null`,
        [ext],
      );
      return r.rows.map((x) => x.workflow_id);
    },

    /** Accounts of a run with items in a given status (for rerun-failed --stage post-import). */
    async accountsWith(runId: string, status: ItemStatus): Promise<string[]> {
      const r = await pool.query<{ external_account_number: string }>(
        'select distinct external_account_number from migrate.post_import_items where run_id = $1 and status = $2 order by 1',
        [runId, status],
      );
      return r.rows.map((x) => x.external_account_number);
    },

    async summary(
      runId: string,
    ): Promise<{ byStatus: Record<string, number>; byKind: Record<string, Record<string, number>>; failedByCode: Record<string, number> }> {
      const r = await pool.query<{ kind: string; status: string; error_code: string | null; n: number }>(
        'select kind, status, error_code, count(*)::int as n from migrate.post_import_items where run_id = $1 group by 1, 2, 3',
        [runId],
      );
      const byStatus: Record<string, number> = {};
      const byKind: Record<string, Record<string, number>> = {};
      const failedByCode: Record<string, number> = {};
      for (const row of r.rows) {
        byStatus[row.status] = (byStatus[row.status] ?? 0) + row.n;
        (byKind[row.kind] ??= {})[row.status] = (byKind[row.kind]?.[row.status] ?? 0) + row.n;
        if (row.status === 'post_import_failed') failedByCode[row.error_code ?? 'unknown'] = (failedByCode[row.error_code ?? 'unknown'] ?? 0) + row.n;
      }
      return { byStatus, byKind, failedByCode };
    },

    /**
     * An inbox event that gives this item's outcome, marked matched: a completed event naming the
     * item, or an error event of its kind received after it was sent (error events name no item).
     */
    async claimEvent(
      ext: string,
      resourceType: string,
      key: string,
      sinceMs: number,
    ): Promise<{ eventId: string; eventType: string; identifier: string | null; errorCode: string | null } | undefined> {
      const r = await pool.query<{ event_id: string; event_type: string; identifier: string | null; error_code: string | null }>(
        `select event_id, event_type, identifier, error_code from migrate.inbox
          where external_identifier = $1 and match_status <> 'ambiguous'
            and resource_type = $2
            and ((event_type = 'data_import.import_process.post_import.completed' and identifier = $3)
              or (event_type = 'data_import.import_process.post_import.error' and received_at >= to_timestamp($4::float8 / 1000)
                  and match_status <> 'matched'))
          order by received_at limit 1`,
        [ext, resourceType, key, sinceMs],
      );
      const row = r.rows[0];
      if (!row) return undefined;
      await pool.query(
        `update migrate.inbox set match_status = 'matched', note = 'read by the post-import workflow' where event_id = $1 and match_status <> 'matched'`,
        [row.event_id],
      );
      return { eventId: row.event_id, eventType: row.event_type, identifier: row.identifier, errorCode: row.error_code };
    },

    /** The platform's `error_detail` of a kept event. */
    async eventErrorDetail(eventId: string): Promise<string | undefined> {
      const r = await pool.query<{ raw: unknown }>(`select raw from migrate.inbox where event_id = $1`, [eventId]);
      return r.rows[0] ? eventErrorDetailOf(openJson(pool, SEALED.inboxRaw, r.rows[0].raw)) : undefined;
    },

    /** Platform account numbers of some of a run's accounts. */
    async accountNumbers(runId: string, exts: string[]): Promise<Array<{ externalAccountNumber: string; accountNumber: string }>> {
      const r = await pool.query<{ external_account_number: string; platform_account_number: string }>(
        'select external_account_number, platform_account_number from migrate.account_attempts where run_id = $1 and external_account_number = any($2) and platform_account_number is not null order by 1',
        [runId, exts],
      );
      return r.rows.map((x) => ({ externalAccountNumber: x.external_account_number, accountNumber: x.platform_account_number }));
    },

    /** A run's post_import_failed items: a page after (account, kind, key). */
    async failedItems(
      runId: string,
      page: { after?: { externalAccountNumber: string; kind: string; key: string }; limit?: number } = {},
    ): Promise<Array<{ externalAccountNumber: string; kind: string; key: string; code: string | null; attr: string | null; detail: string | null }>> {
      const a = page.after;
      const r = await pool.query<{
        external_account_number: string;
        kind: string;
        item_key: string;
        error_code: string | null;
        error_attr: string | null;
        error_detail: string | null;
      }>(
        `select external_account_number, kind, item_key, error_code, error_attr, error_detail from migrate.post_import_items
          where run_id = $1 and status = 'post_import_failed' and ($2::text is null or (external_account_number, kind, item_key) > ($2, $3, $4))
          order by 1, 2, 3 limit $5`,
        [runId, a?.externalAccountNumber ?? null, a?.kind ?? null, a?.key ?? null, page.limit ?? null],
      );
      return r.rows.map((x) => ({
        externalAccountNumber: x.external_account_number,
        kind: x.kind,
        key: x.item_key,
        code: x.error_code,
        attr: x.error_attr,
        detail: openString(pool, SEALED.postImportErrorDetail, x.error_detail),
      }));
    },
  };
}

export type PostImportLedger = ReturnType<typeof createPostImportLedger>;
