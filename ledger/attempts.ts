import type { Pool } from '../clients/db';
import type { AccountOutcome, MigrationRunArgs, RunTotals, SupplierStatus } from '../domain/inputs';
import { openJson, openString, SEALED, sealJson, sealString } from './sealing';
import type { AttemptRef } from './types';
import { beginEventWait } from './event-waits';
import { accountLines, type AccountLines } from './account-lines';
import { OUTCOME_SELECT, outcomeArrays, outcomeUpdate, rowToOutcome } from './outcome-columns';

export interface LedgerError {
  stage: string;
  code: string;
  attr?: string;
  detail?: string;
  sourceField?: string;
}

/** One document in the platform bucket, as staging recorded it. */
export interface StagedDocument {
  key: string;
  sha256: string;
  size: number;
  action: 'uploaded' | 'already_present';
}

/** The details sealed (ledger/sealing.ts): they may quote the account's values. */
function errorsJson(pool: Pool, errors: LedgerError[]): string {
  return JSON.stringify(
    errors.map((e) => ({
      code: e.code,
      attr: e.attr ?? '',
      detail: sealString(pool, SEALED.errorDetail, e.detail ?? ''),
      source_field: e.sourceField ?? null,
    })),
  );
}

/**
 * A stage's recorded errors replaced by `$4` (a JSON array from errorsJson), as CTEs of one
 * statement on ($1 run, $2 account, $3 stage): atomic without a transaction.
 */
const REPLACE_STAGE_ERRORS = `gone as (delete from migrate.account_errors where run_id = $1 and external_account_number = $2 and stage = $3),
  noted as (
    insert into migrate.account_errors (run_id, external_account_number, stage, code, attr, detail, source_field)
    select $1, $2, $3, e.code, e.attr, e.detail, e.source_field
    from jsonb_to_recordset($4::jsonb) as e(code text, attr text, detail text, source_field text))`;

/** A run's accounts a rerun selects ($1 run, $2 codes or null for all): failed and not attempted. */
const RERUN_SELECTION = `run_id = $1 and outcome in ('failed', 'not_attempted') and ($2::text[] is null or error_code = any($2))`;
const rerunCodes = (codes: string[] | undefined) => (codes && codes.length > 0 ? codes : null);

/**
 * The ledger's reads and writes. Every write is idempotent (activities retry): an outcome is set
 * once per attempt and never overwritten, so each account ends with exactly one recorded outcome.
 */
export function createLedger(pool: Pool) {
  /**
   * The account's stored payload row, with its supplier's mirror beside it (`s`), in one read;
   * `payload_missing` when prepare has not stored one. `columns` is one of this module's literals.
   */
  async function payloadRow(ref: AttemptRef, columns: 's.document_root, p.documents' | 's.status, p.request' | 'p.request, p.documents') {
    const r = await pool.query(
      `select ${columns} from migrate.account_payloads p
         left join migrate.supplier_status s on s.supplier_code = $3
        where p.run_id = $1 and p.external_account_number = $2`,
      [ref.runId, ref.externalAccountNumber, ref.supplierCode],
    );
    if (r.rowCount === 0) throw Object.assign(new Error(`no stored payload for ${ref.runId}/${ref.externalAccountNumber}`), { code: 'payload_missing' });
    return r.rows[0];
  }

  /**
   * Opens (or touches) the attempts of a batch of accounts in one statement; returns the
   * accounts whose outcome is already recorded (a retried dispatch must not start them again).
   */
  async function openAttempts(
    run: { runId: string; supplierCode: string; dryRun: boolean },
    accounts: Array<{ externalAccountNumber: string; workflowId: string }>,
  ): Promise<Set<string>> {
    // One row per account: a statement may not upsert the same row twice.
    const unique = [...new Map(accounts.map((a) => [a.externalAccountNumber, a])).values()];
    if (unique.length === 0) return new Set();
    const r = await pool.query(
      `insert into migrate.account_attempts (run_id, external_account_number, supplier_code, dry_run, workflow_id)
       select $1, a.ext, $2, $3, a.workflow_id from unnest($4::text[], $5::text[]) as a(ext, workflow_id)
       on conflict (run_id, external_account_number) do update set updated_at = now()
       returning external_account_number, outcome`,
      [run.runId, run.supplierCode, run.dryRun, unique.map((a) => a.externalAccountNumber), unique.map((a) => a.workflowId)],
    );
    return new Set(r.rows.filter((x) => x.outcome != null).map((x) => x.external_account_number as string));
  }

  return {
    async registerRun(input: MigrationRunArgs): Promise<void> {
      const parent = input.selection.kind === 'failed_of_run' ? input.selection.runId : null;
      await pool.query(
        `insert into migrate.runs (run_id, supplier_code, dry_run, source, selection, parent_run_id, concurrency)
         values ($1, $2, $3, $4, $5, $6, $7) on conflict (run_id) do nothing`,
        [input.runId, input.supplierCode, input.dryRun, JSON.stringify(input.source), JSON.stringify(input.selection), parent, input.concurrency],
      );
    },

    async finishRun(runId: string, status: string, totals: RunTotals): Promise<void> {
      await pool.query(`update migrate.runs set status = $2, totals = $3, finished_at = coalesce(finished_at, now()) where run_id = $1`, [
        runId,
        status,
        JSON.stringify(totals),
      ]);
    },

    openAttempts,

    async openAttempt(ref: AttemptRef, workflowId: string): Promise<{ alreadyFinished: boolean }> {
      const finished = await openAttempts(ref, [{ externalAccountNumber: ref.externalAccountNumber, workflowId }]);
      return { alreadyFinished: finished.has(ref.externalAccountNumber) };
    },

    /**
     * A prepared account in one statement (prepare's happy path runs for every account): the attempt
     * opened (or touched) at `stage`, the stage's earlier validation errors cleared, the payload
     * stored; returns the supplier's mirror (undefined when unknown).
     */
    async storePrepared(
      ref: AttemptRef,
      p: { workflowId: string; request: unknown; documents: unknown[]; stage: string },
    ): Promise<{ status: SupplierStatus; documentRoot: string } | undefined> {
      const r = await pool.query(
        `with attempt as (
           insert into migrate.account_attempts (run_id, external_account_number, supplier_code, dry_run, workflow_id, stage)
           values ($1, $2, $3, $4, $5, $6)
           on conflict (run_id, external_account_number) do update
             set updated_at = now(),
                 stage = case when migrate.account_attempts.outcome is null then excluded.stage else migrate.account_attempts.stage end
           returning 1),
         cleared as (delete from migrate.account_errors where run_id = $1 and external_account_number = $2 and stage = 'validate'),
         payload as (
           insert into migrate.account_payloads (run_id, external_account_number, request, documents) values ($1, $2, $7, $8)
           on conflict (run_id, external_account_number) do update set request = excluded.request, documents = excluded.documents, created_at = now())
         select s.status, s.document_root from (select 1) one left join migrate.supplier_status s on s.supplier_code = $3`,
        [
          ref.runId,
          ref.externalAccountNumber,
          ref.supplierCode,
          ref.dryRun,
          p.workflowId,
          p.stage,
          sealJson(pool, SEALED.payloadRequest, p.request),
          JSON.stringify(p.documents),
        ],
      );
      const row = r.rows[0];
      return row?.status ? { status: row.status, documentRoot: row.document_root } : undefined;
    },

    /** What staging needs, in one read: the supplier's document root and the account's documents (not the payload). */
    async stagingInput<D = unknown>(ref: AttemptRef): Promise<{ documentRoot: string | undefined; documents: D[] }> {
      const row = await payloadRow(ref, 's.document_root, p.documents');
      return { documentRoot: row.document_root ?? undefined, documents: row.documents };
    },

    /** The staged documents recorded and the attempt moved on to `stage`, in one statement. */
    async recordDocuments(ref: AttemptRef, docs: StagedDocument[], stage: string): Promise<void> {
      await pool.query(
        `with staged as (
           insert into migrate.documents_staged (run_id, external_account_number, object_key, sha256, size_bytes, action)
           select $1, $2, d.key, d.sha256, d.size, d.action from jsonb_to_recordset($3::jsonb) as d(key text, sha256 text, size bigint, action text)
           on conflict (run_id, external_account_number, object_key) do update
             set sha256 = excluded.sha256, size_bytes = excluded.size_bytes, action = excluded.action, staged_at = now())
         update migrate.account_attempts set stage = $4, updated_at = now() where run_id = $1 and external_account_number = $2 and outcome is null`,
        [ref.runId, ref.externalAccountNumber, JSON.stringify(docs), stage],
      );
    },

    /** What scheduling needs, in one read: the supplier's mirrored status and the stored payload. */
    async scheduleInput<T = unknown>(ref: AttemptRef): Promise<{ supplierStatus: SupplierStatus | undefined; request: T }> {
      const row = await payloadRow(ref, 's.status, p.request');
      return { supplierStatus: row.status ?? undefined, request: openJson<T>(pool, SEALED.payloadRequest, row.request) };
    },

    async setStage(ref: AttemptRef, stage: string): Promise<void> {
      await pool.query(
        `update migrate.account_attempts set stage = $3, updated_at = now() where run_id = $1 and external_account_number = $2 and outcome is null`,
        [ref.runId, ref.externalAccountNumber, stage],
      );
    },

    /**
     * An accepted schedule whose activity waits for the event: the stage, the wait and the inbox
     * read in one statement (ledger/event-waits.ts).
     */
    awaitEvent: (ref: AttemptRef, wait: { activityId: string; seconds: number }) => beginEventWait(pool, ref, wait),

    /**
     * Just before the schedule call: the stage's notes (the tariff pre-flight's) replaced and the
     * attempt marked scheduled, in one statement. The first try's time is kept: an event for it may
     * arrive while a retry is under way.
     */
    async markScheduled(ref: AttemptRef, notes: { stage: string; errors: LedgerError[] }): Promise<void> {
      await pool.query(
        `with ${REPLACE_STAGE_ERRORS}
         update migrate.account_attempts set scheduled_at = coalesce(scheduled_at, now()), stage = 'schedule', updated_at = now()
          where run_id = $1 and external_account_number = $2`,
        [ref.runId, ref.externalAccountNumber, notes.stage, errorsJson(pool, notes.errors)],
      );
    },

    /** The recorded errors (or notes) of one stage of an attempt. */
    async errorsOf(ref: AttemptRef, stage: string): Promise<Array<{ code: string; attr: string | null; detail: string | null }>> {
      const r = await pool.query(
        `select code, attr, detail from migrate.account_errors where run_id = $1 and external_account_number = $2 and stage = $3 order by id`,
        [ref.runId, ref.externalAccountNumber, stage],
      );
      return r.rows.map((x) => ({ ...x, detail: openString(pool, SEALED.errorDetail, x.detail as string | null) }));
    },

    /**
     * Replaces the errors of one stage (a retried activity writes them again). One statement, so
     * atomic without a transaction: it runs for every account at several stages, mostly with none.
     */
    async replaceErrors(ref: AttemptRef, stage: string, errors: LedgerError[]): Promise<void> {
      const key = [ref.runId, ref.externalAccountNumber, stage];
      if (errors.length === 0) {
        await pool.query(`delete from migrate.account_errors where run_id = $1 and external_account_number = $2 and stage = $3`, key);
        return;
      }
      await pool.query(`with ${REPLACE_STAGE_ERRORS} select 1`, [...key, errorsJson(pool, errors)]);
    },

    async loadPayload<T = unknown, D = unknown>(ref: AttemptRef): Promise<{ request: T; documents: D[] }> {
      const row = await payloadRow(ref, 'p.request, p.documents');
      return { request: openJson<T>(pool, SEALED.payloadRequest, row.request), documents: row.documents };
    },

    /** Sets the attempt's outcome unless one is already recorded; returns whether this call set it. */
    async recordOutcome(ref: AttemptRef, o: AccountOutcome): Promise<boolean> {
      const set = outcomeUpdate(o, 3);
      const r = await pool.query(set.sql, [ref.runId, ref.externalAccountNumber, ...set.values]);
      return (r.rowCount ?? 0) > 0;
    },

    async recordedOutcomes(runId: string, externalAccountNumbers: string[]): Promise<AccountOutcome[]> {
      const r = await pool.query(
        `select ${OUTCOME_SELECT} from migrate.account_attempts where run_id = $1 and external_account_number = any($2) and outcome is not null`,
        [runId, externalAccountNumbers],
      );
      return r.rows.map(rowToOutcome);
    },

    /** The platform account number an earlier run recorded for this account, if any. */
    async earlierCompletion(supplierCode: string, ext: string): Promise<string | undefined> {
      const r = await pool.query(
        `select platform_account_number from migrate.account_attempts
          where supplier_code = $1 and external_account_number = $2 and outcome in ('completed', 'completed_with_differences') and not dry_run
          order by finished_at desc limit 1`,
        [supplierCode, ext],
      );
      return r.rows[0]?.platform_account_number ?? undefined;
    },

    /**
     * Outcomes of accounts the run settles without starting them (domain/outcomes.ts builds them),
     * one finished row each, in one statement; an account that already has a row keeps it.
     */
    async insertOutcomes(
      run: { runId: string; supplierCode: string; dryRun: boolean },
      outcomes: AccountOutcome[],
      workflowIdOf: (ext: string) => string,
    ): Promise<number> {
      if (outcomes.length === 0) return 0;
      const rows = outcomeArrays(outcomes, 5);
      const r = await pool.query(
        `insert into migrate.account_attempts (run_id, supplier_code, dry_run, workflow_id, ${rows.columns}, finished_at)
         select $1, $2, $3, wf, ${rows.columns}, now()
           from unnest($4::text[], ${rows.params}) as t(wf, ${rows.columns})
         on conflict (run_id, external_account_number) do nothing`,
        [run.runId, run.supplierCode, run.dryRun, outcomes.map((o) => workflowIdOf(o.externalAccountNumber)), ...rows.values],
      );
      return r.rowCount ?? 0;
    },

    /** Failed or not-attempted accounts of a run, in pages (keyset on the account number). */
    async failedAccounts(runId: string, codes: string[] | undefined, after: string | undefined, limit: number): Promise<string[]> {
      const r = await pool.query(
        `select external_account_number from migrate.account_attempts
          where ${RERUN_SELECTION} and ($3::text is null or external_account_number > $3)
          order by external_account_number limit $4`,
        [runId, rerunCodes(codes), after ?? null, limit],
      );
      return r.rows.map((row) => row.external_account_number as string);
    },

    /** The same accounts as failedAccounts, a page as lines (`run rerun-failed --list`). */
    failedAccountLines(runId: string, codes: string[] | undefined, after: string | undefined, limit: number): Promise<AccountLines> {
      return accountLines(pool, RERUN_SELECTION, [runId, rerunCodes(codes)], after, limit);
    },

    async supplier(supplierCode: string): Promise<{ status: SupplierStatus; documentRoot: string } | undefined> {
      const r = await pool.query(`select status, document_root from migrate.supplier_status where supplier_code = $1`, [supplierCode]);
      return r.rows[0] ? { status: r.rows[0].status, documentRoot: r.rows[0].document_root } : undefined;
    },

    async setSupplier(supplierCode: string, fields: { status?: SupplierStatus; documentRoot?: string; reason?: string; updatedBy: string }): Promise<void> {
      await pool.query(
        `insert into migrate.supplier_status (supplier_code, status, document_root, reason, updated_by)
         values ($1, coalesce($2, 'ONGOING'), coalesce($3, ''), $4, $5)
         on conflict (supplier_code) do update set
           status = coalesce($2, migrate.supplier_status.status),
           document_root = coalesce($3, migrate.supplier_status.document_root),
           reason = $4, updated_by = $5, updated_at = now()`,
        [supplierCode, fields.status ?? null, fields.documentRoot ?? null, fields.reason ?? null, fields.updatedBy],
      );
    },

    async setSupplierIfAbsent(supplierCode: string, documentRoot: string): Promise<void> {
      await pool.query(
        `insert into migrate.supplier_status (supplier_code, status, document_root, updated_by) values ($1, 'ONGOING', $2, 'stack')
         on conflict (supplier_code) do nothing`,
        [supplierCode, documentRoot],
      );
    },

    /** The platform refused an account for the supplier: pause our mirror unless the operator already changed it. */
    async learnSupplierNotOngoing(supplierCode: string): Promise<void> {
      await pool.query(
        `update migrate.supplier_status set status = 'PAUSED', reason = 'platform answered import_supplier_migration_not_ongoing',
                updated_by = 'platform', updated_at = now()
          where supplier_code = $1 and status = 'ONGOING'`,
        [supplierCode],
      );
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
