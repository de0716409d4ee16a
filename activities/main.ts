import fs from 'node:fs';
import readline from 'node:readline';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { S3Client } from '@aws-sdk/client-s3';
import type pino from 'pino';
import type { Pool } from '../clients/db';
import type { Config } from '../config';
import type { TariffPreflight } from '../clients/platform';
import { validateAccount } from '../schemas/validate';
import { applyBalanceFields } from '../schemas/balance-fields';
import type { EnergyAccount } from '../schemas/account';
import type { CountryCode } from '../schemas/formats';
import { createSourceAdapter, type SourceAdapter } from '../source/adapter';
import { loadMapping, defaultMapping, type CodeMapping } from '../source/mapping';
import { transformAccount } from '../source/transform';
import { PREFLIGHT_STAGE, preflightNotes, tariffAttrFor, tariffsOf } from '../source/catalogue-check';
import type { DocumentRef } from '../source/types';
import { accountWorkflowId } from '../workflows/ids';
import type { ImportEventSignal, Selection, SourceSpecRef } from '../workflows/inputs';
import { stageDocument } from './documents';
import { createLedger, type LedgerError } from './ledger';
import type { AccountPage, AttemptRef, MainActivities } from './types';

export interface MainActivityDeps {
  pool: Pool;
  s3: S3Client;
  config: Config;
  logger: pino.Logger;
  /** A tariff pre-flight per run, so one run's catalogue cache is reused by all its accounts. */
  tariffPreflight(runId: string): TariffPreflight;
  /** For describing account workflows that already exist (reruns). */
  temporal?: () => Promise<Client>;
  mapping?: CodeMapping;
}

const TERMINAL = {
  real: ['data_import.import_process.complete', 'data_import.import_process.error', 'data_import.import_process.cancelled'],
  dry: ['data_import.import_process.dry_run_complete', 'data_import.import_process.dry_run_error', 'data_import.import_process.cancelled'],
};

export function createMainActivities(deps: MainActivityDeps): MainActivities {
  const ledger = createLedger(deps.pool);
  const adapters = new Map<string, SourceAdapter>();
  const mapping = deps.mapping ?? (process.env.SOURCE_MAPPING_FILE ? loadMapping(process.env.SOURCE_MAPPING_FILE) : defaultMapping());
  const adapterFor = (spec: SourceSpecRef): SourceAdapter => {
    const key = JSON.stringify(spec);
    let a = adapters.get(key);
    if (!a) {
      a = createSourceAdapter(spec, { pool: deps.pool });
      adapters.set(key, a);
    }
    return a;
  };
  const log = deps.logger;

  return {
    async registerRun(input) {
      await ledger.registerRun(input);
    },

    async finishRun({ runId, status, totals }) {
      await ledger.finishRun(runId, status, totals);
    },

    async listAccounts({ selection, source, cursor, limit }) {
      return listPage(selection, source, cursor, limit);
    },

    async prepareAccount(input) {
      const ref = attemptRef(input);
      await ledger.openAttempt(ref, input.workflowId);
      const fail = async (stage: 'source' | 'transform' | 'validate' | 'catalogue', errors: LedgerError[]) => {
        await ledger.replaceErrors(ref, stage, errors);
        return { ok: false as const, stage, code: errors[0].code, attr: errors[0].attr, errorCount: errors.length };
      };

      const src = await adapterFor(input.source).getAccount(input.externalAccountNumber);
      if (!src) return fail('source', [{ stage: 'source', code: 'source_account_not_found', detail: 'no such account in the source' }]);

      const transformed = transformAccount(src, {
        importSupplierCode: input.supplierCode,
        mapping,
        defaultRegion: deps.config.PHONE_DEFAULT_REGION,
      });
      if (!transformed.ok) {
        return fail('transform', transformed.errors.map((e) => ({ stage: 'transform', code: e.code, attr: e.attr, detail: e.detail, sourceField: e.sourceField })));
      }

      const validated = validateAccount(transformed.payload, { defaultRegion: deps.config.PHONE_DEFAULT_REGION as CountryCode });
      if (!validated.ok) return fail('validate', validated.errors.map((e) => ({ stage: 'validate', ...e })));

      // Tariff pre-flight (documented catalogue data, cached per run): it never refuses an account;
      // tariffs it cannot confirm are noted, and the report counts the account as not pre-checked.
      const tariffs = tariffsOf(validated.value);
      const verdicts = deps.config.PLATFORM_TARIFF_PREFLIGHT && tariffs.length > 0 ? await deps.tariffPreflight(input.runId).check(tariffs) : [];
      const notes = preflightNotes(tariffs, new Map(verdicts.map((v) => [v.code, v])));
      await ledger.replaceErrors(ref, PREFLIGHT_STAGE, notes.map((n) => ({ stage: PREFLIGHT_STAGE, ...n })));

      // The balance fields the tenant takes (PLATFORM_BALANCE_FIELDS): the stored payload is the one sent.
      const shaped = applyBalanceFields(validated.value, deps.config.PLATFORM_BALANCE_FIELDS);
      if (!shaped.ok) return fail('validate', shaped.errors.map((e) => ({ stage: 'validate', ...e })));

      await ledger.replaceErrors(ref, 'validate', []);
      await ledger.storePayload(ref, shaped.payload, transformed.documents);
      await ledger.setStage(ref, transformed.documents.length > 0 ? 'documents' : 'guard');
      return { ok: true as const, documentCount: transformed.documents.length };
    },

    async stageDocuments(input) {
      const ref = attemptRef(input);
      const supplier = await ledger.supplier(input.supplierCode);
      if (!supplier || !supplier.documentRoot) {
        throw ApplicationFailure.nonRetryable(`import supplier ${input.supplierCode} has no document root: run "kraken-migrate supplier set-root"`, 'supplier_unknown');
      }
      const { documents } = await ledger.loadPayload<EnergyAccount, DocumentRef>(ref);
      const ctx = Context.current();
      // Resume after a worker crash from the last document fully staged.
      const startAt = typeof ctx.info.heartbeatDetails === 'number' ? ctx.info.heartbeatDetails : 0;
      let uploaded = 0;
      let alreadyPresent = 0;
      for (let i = startAt; i < documents.length; i++) {
        const r = await stageDocument({
          s3: deps.s3,
          bucket: deps.config.PLATFORM_BUCKET,
          documentRoot: supplier.documentRoot,
          sourceDir: deps.config.SOURCE_DOCUMENTS_DIR,
          doc: documents[i],
          partSizeBytes: deps.config.MULTIPART_THRESHOLD_BYTES,
          onProgress: () => ctx.heartbeat(i),
        });
        if (!r.ok) {
          await ledger.replaceErrors(ref, 'documents', [{ stage: 'documents', code: r.code, attr: r.attr, detail: r.detail }]);
          return { ok: false as const, code: r.code, attr: r.attr };
        }
        await ledger.recordDocument(ref, r.key, r.sha256, r.size, r.action);
        if (r.action === 'uploaded') uploaded++;
        else alreadyPresent++;
        ctx.heartbeat(i + 1);
      }
      await ledger.setStage(ref, 'guard');
      return { ok: true as const, uploaded, alreadyPresent };
    },

    async getSupplierStatus({ supplierCode }) {
      const s = await ledger.supplier(supplierCode);
      if (!s) {
        throw ApplicationFailure.nonRetryable(`import supplier ${supplierCode} is unknown: register it with "kraken-migrate supplier set-root"`, 'supplier_unknown');
      }
      return s.status;
    },

    async recordSupplierNotOngoing({ supplierCode }) {
      log.warn({ supplierCode, code: 'import_supplier_migration_not_ongoing' }, 'platform refused an account: supplier paused in the ledger until the operator resumes it');
      await ledger.learnSupplierNotOngoing(supplierCode);
    },

    async findInboxEvent(input) {
      const types = input.dryRun ? TERMINAL.dry : TERMINAL.real;
      const r = await deps.pool.query(
        `select i.event_id, i.event_type, i.identifier, i.error_code
           from migrate.inbox i
           join migrate.account_attempts a on a.run_id = $1 and a.external_account_number = $2
          where i.external_identifier = $2 and i.event_type = any($3) and a.scheduled_at is not null
            and i.match_status <> 'ambiguous'
            and i.received_at >= a.scheduled_at
          order by i.received_at limit 1`,
        [input.runId, input.externalAccountNumber, types],
      );
      const row = r.rows[0];
      if (!row) return undefined;
      await deps.pool.query(`update migrate.inbox set match_status = 'matched', matched_run_id = $2, note = 'read by the workflow' where event_id = $1 and match_status <> 'matched'`, [
        row.event_id,
        input.runId,
      ]);
      const e: ImportEventSignal = { eventId: row.event_id, type: row.event_type };
      if (row.identifier) e.identifier = row.identifier;
      if (row.error_code) e.errorCode = row.error_code;
      return e;
    },

    async recordOutcome(input) {
      const ref = attemptRef(input);
      let o = input.outcome;
      // tariff_code_not_found names no field: the one tariff the pre-flight could not confirm is it.
      if (o.outcome === 'failed' && !o.attr && o.code === 'tariff_code_not_found') {
        const attr = tariffAttrFor(o.code, await ledger.errorsOf(ref, PREFLIGHT_STAGE));
        if (attr) o = { ...o, attr };
      }
      // import_process_failed_validation: explainFailedValidation has recorded the field errors already.
      if (o.outcome === 'failed' && (o.source === 'event' || o.source === 'poll') && o.code && o.code !== 'import_process_failed_validation') {
        const detail = await platformErrorDetail(input.externalAccountNumber, o.code);
        await ledger.replaceErrors(ref, 'platform', [{ stage: 'platform', code: o.code, attr: o.attr, detail }]);
      }
      const set = await ledger.recordOutcome(ref, o);
      log.info({ runId: ref.runId, account: ref.externalAccountNumber, outcome: o.outcome, stage: o.stage, code: o.code, source: o.source, recorded: set }, 'account outcome');
    },

    async findRecordedOutcomes({ runId, externalAccountNumbers }) {
      return ledger.recordedOutcomes(runId, externalAccountNumbers);
    },

    async recordExistingAccountWorkflow(input) {
      const ref = attemptRef(input);
      const workflowId = accountWorkflowId(input.supplierCode, input.externalAccountNumber, input.dryRun, input.runId);
      let status = 'UNKNOWN';
      if (deps.temporal) {
        const client = await deps.temporal();
        status = (await client.workflow.getHandle(workflowId).describe()).status.name;
      }
      await ledger.openAttempt(ref, workflowId);
      const accountNumber = await ledger.earlierCompletion(input.supplierCode, input.externalAccountNumber);
      const outcome =
        status === 'COMPLETED'
          ? { externalAccountNumber: input.externalAccountNumber, outcome: 'completed' as const, stage: 'done', accountNumber, source: 'already_imported' as const }
          : { externalAccountNumber: input.externalAccountNumber, outcome: 'not_attempted' as const, stage: 'guard', code: 'account_in_flight_in_another_run', source: 'local' as const };
      await ledger.recordOutcome(ref, outcome);
      return outcome;
    },

    async recordRemainingNotAttempted(input) {
      const wf = (ext: string) => accountWorkflowId(input.supplierCode, ext, input.dryRun, input.runId);
      let total = await ledger.insertNotAttempted(input.runId, input.supplierCode, input.dryRun, input.buffer, input.code, wf);
      if (input.exhausted) return total;
      let cursor = input.cursor;
      for (;;) {
        const page = await listPage(input.selection, input.source, cursor, 1000);
        total += await ledger.insertNotAttempted(input.runId, input.supplierCode, input.dryRun, page.accounts, input.code, wf);
        Context.current().heartbeat(total);
        if (page.exhausted) return total;
        cursor = page.nextCursor;
      }
    },
  };

  async function platformErrorDetail(ext: string, code: string): Promise<string> {
    const r = await deps.pool.query(
      `select coalesce(raw->'detail'->'payload'->>'error_detail', raw->'detail'->>'error_detail') as detail from migrate.inbox where external_identifier = $1 and error_code = $2 order by received_at desc limit 1`,
      [ext, code],
    );
    return r.rows[0]?.detail ?? '';
  }

  async function listPage(selection: Selection, source: SourceSpecRef, cursor: string | undefined, limit: number): Promise<AccountPage> {
    const c = cursor ? (JSON.parse(cursor) as { after?: string; seen: number }) : { seen: 0 };
    switch (selection.kind) {
      case 'all': {
        const remaining = selection.limit === undefined ? limit : Math.min(limit, selection.limit - c.seen);
        if (remaining <= 0) return { accounts: [], exhausted: true };
        const accounts = await adapterFor(source).listAccountNumbers({ after: c.after, limit: remaining });
        const seen = c.seen + accounts.length;
        const exhausted = accounts.length < remaining || (selection.limit !== undefined && seen >= selection.limit);
        return { accounts, exhausted, nextCursor: JSON.stringify({ after: accounts.at(-1) ?? c.after, seen }) };
      }
      case 'failed_of_run': {
        const accounts = await ledger.failedAccounts(selection.runId, selection.codes, c.after, limit);
        return { accounts, exhausted: accounts.length < limit, nextCursor: JSON.stringify({ after: accounts.at(-1) ?? c.after, seen: c.seen + accounts.length }) };
      }
      case 'list': {
        // Line-numbered keyset over the file: reads past `seen` lines, keeps memory flat.
        const accounts: string[] = [];
        let line = 0;
        const rl = readline.createInterface({ input: fs.createReadStream(selection.path), crlfDelay: Infinity });
        for await (const raw of rl) {
          const ext = raw.trim();
          if (!ext || ext.startsWith('#')) continue;
          line++;
          if (line <= c.seen) continue;
          accounts.push(ext);
          if (accounts.length >= limit) break;
        }
        rl.close();
        return { accounts, exhausted: accounts.length < limit, nextCursor: JSON.stringify({ seen: c.seen + accounts.length }) };
      }
    }
  }
}

function attemptRef(x: AttemptRef): AttemptRef {
  return { runId: x.runId, externalAccountNumber: x.externalAccountNumber, supplierCode: x.supplierCode, dryRun: x.dryRun };
}
