import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type pino from 'pino';
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { isKnownTariffCode } from '../catalogue';
import { collectMarkedValues } from '../openapi/to-json-schema';
import type { JsonSchemaObject } from '../openapi/spec';
import { documentKey, type SupplierStore } from '../suppliers';
import type { ForcedOutcomeStore } from '../forced-outcomes';
import { IMPORT_EVENT_TYPES } from '../events/envelope';
import type { EventOutbox } from '../events/outbox';
import { startLoop, type Loop } from '../loop';
import { isoSeconds } from '../time';
import { claimDue, createAccount, finishProcess, releaseForRetry, type ClaimedProcess, type LatestError } from './store';

export interface ProcessorDeps {
  pool: pg.Pool;
  s3: S3Client;
  bucket: string;
  suppliers: SupplierStore;
  forced: ForcedOutcomeStore;
  outbox: EventOutbox;
  definitions: Record<string, JsonSchemaObject>;
  logger: pino.Logger;
  pollIntervalMs: number;
  batchSize: number;
  leaseMs: number;
}

type Verdict = { kind: 'ok' } | { kind: 'error'; code: string; detail: string } | { kind: 'retry'; reason: string };

const RESOURCE_TYPE = 'ACCOUNT';

export const newAccountNumber = () => `A-${randomBytes(4).toString('hex').toUpperCase()}`;

/**
 * Turns accepted imports into outcomes once due: CANCELLED when the window has passed, else the
 * processing-time checks (forced outcome, tariff codes in the catalogue, documents in the bucket),
 * then an account (or, for dry runs, nothing) and the matching event, in one transaction.
 */
export class ImportProcessor {
  private loop: Loop | undefined;

  constructor(private readonly deps: ProcessorDeps) {}

  start(onError: (e: unknown) => void): void {
    this.loop = startLoop(() => this.tick(), this.deps.pollIntervalMs, onError);
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    this.loop = undefined;
  }

  async tick(): Promise<boolean> {
    const claimed = await claimDue(this.deps.pool, this.deps.batchSize, this.deps.leaseMs);
    if (claimed.length === 0) return false;
    await Promise.all(claimed.map((p) => this.process(p)));
    this.deps.outbox.wake();
    return claimed.length === this.deps.batchSize;
  }

  private async process(p: ClaimedProcess): Promise<void> {
    const meta = { importProcessId: p.id, importSupplier: p.import_supplier, externalIdentifier: p.external_identifier };
    if (p.expired) {
      await this.finish(p, 'CANCELLED', null, null, async (client) => {
        await this.deps.outbox.emit(client, IMPORT_EVENT_TYPES.cancelled, {
          resource_type: RESOURCE_TYPE,
          external_identifier: p.external_identifier,
          expiry_window_end: isoSeconds(p.schedule_window_end),
        }, meta);
      });
      return;
    }
    const verdict = await this.evaluate(p);
    if (verdict.kind === 'retry') {
      this.deps.logger.warn({ importProcessId: p.id, reason: verdict.reason }, 'import processing deferred');
      await releaseForRetry(this.deps.pool, p.id, 1000);
      return;
    }
    if (verdict.kind === 'error') {
      const error: LatestError = { code: verdict.code, detail: verdict.detail, domain: 'import_process' };
      await this.finish(p, p.is_dry_run ? 'DRY_RUN_ERRORED' : 'ERRORED', null, error, async (client) => {
        await this.deps.outbox.emit(client, p.is_dry_run ? IMPORT_EVENT_TYPES.dry_run_error : IMPORT_EVENT_TYPES.error, {
          resource_type: RESOURCE_TYPE,
          external_identifier: p.external_identifier,
          error_code: verdict.code,
          error_detail: verdict.detail,
        }, meta);
      });
      return;
    }
    if (p.is_dry_run) {
      await this.finish(p, 'DRY_RUN_SUCCEEDED', null, null, async (client) => {
        await this.deps.outbox.emit(client, IMPORT_EVENT_TYPES.dry_run_complete, { resource_type: RESOURCE_TYPE, external_identifier: p.external_identifier }, meta);
      });
      return;
    }
    const client = await this.deps.pool.connect();
    try {
      await client.query('BEGIN');
      const number = await createAccount(client, { supplier: p.import_supplier, externalIdentifier: p.external_identifier, processId: p.id }, newAccountNumber);
      let ok: boolean;
      if (number) {
        ok = await finishProcess(client, p.id, 'PROCESSED', number, null);
        if (ok) await this.deps.outbox.emit(client, IMPORT_EVENT_TYPES.complete, { resource_type: RESOURCE_TYPE, external_identifier: p.external_identifier, identifier: number }, meta);
      } else {
        // Another import of the same account won the race: the platform refuses the duplicate.
        const code = 'account_import_process_already_imported';
        const detail = `The account import process with the account number ${p.external_identifier} has already been imported.`;
        ok = await finishProcess(client, p.id, 'ERRORED', null, { code, detail, domain: 'import_process' });
        if (ok) await this.deps.outbox.emit(client, IMPORT_EVENT_TYPES.error, { resource_type: RESOURCE_TYPE, external_identifier: p.external_identifier, error_code: code, error_detail: detail }, meta);
      }
      await client.query(ok ? 'COMMIT' : 'ROLLBACK');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  private async finish(
    p: ClaimedProcess,
    status: Parameters<typeof finishProcess>[2],
    krakenIdentifier: string | null,
    error: LatestError | null,
    emit: (client: pg.PoolClient) => Promise<void>,
  ): Promise<void> {
    const client = await this.deps.pool.connect();
    try {
      await client.query('BEGIN');
      const ok = await finishProcess(client, p.id, status, krakenIdentifier, error);
      if (ok) await emit(client);
      await client.query(ok ? 'COMMIT' : 'ROLLBACK');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  private async evaluate(p: ClaimedProcess): Promise<Verdict> {
    const forced = this.deps.forced.forcedError(p.external_identifier);
    if (forced) return { kind: 'error', code: forced.error_code, detail: forced.error_detail };

    const defs = this.deps.definitions;
    for (const { attr, value } of collectMarkedValues(defs, 'EnergyAccount', p.payload, 'tariff_code_not_found')) {
      if (!isKnownTariffCode(value)) return { kind: 'error', code: 'tariff_code_not_found', detail: `Tariff code ${value} not found (${attr}).` };
    }

    const supplier = this.deps.suppliers.get(p.import_supplier);
    if (!supplier) return { kind: 'error', code: 'import_supplier_not_found', detail: `Import supplier ${p.import_supplier} no longer exists.` };
    for (const { attr, value } of collectMarkedValues(defs, 'EnergyAccount', p.payload, 'path_does_not_exist_in_file_store')) {
      const key = documentKey(supplier.document_root, value);
      try {
        await this.deps.s3.send(new HeadObjectCommand({ Bucket: this.deps.bucket, Key: key }));
      } catch (e) {
        const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404 || (e as Error).name === 'NotFound' || (e as Error).name === 'NoSuchKey') {
          return { kind: 'error', code: 'path_does_not_exist_in_file_store', detail: `The path ${value} does not exist in the file store (${attr}).` };
        }
        return { kind: 'retry', reason: `file store check failed: ${(e as Error).name}` };
      }
    }
    return { kind: 'ok' };
  }
}
