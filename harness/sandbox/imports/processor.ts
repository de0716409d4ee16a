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
import type { EventMeta, EventOutbox } from '../events/outbox';
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
    // Checks (S3 calls) run concurrently outside any transaction; outcomes are written in one
    // transaction per batch, so a batch costs one commit, and a crash leaves it to the lease.
    const verdicts = await Promise.all(claimed.map((p) => (p.expired ? Promise.resolve({ kind: 'cancel' } as const) : this.evaluate(p))));
    const client = await this.deps.pool.connect();
    try {
      await client.query('BEGIN');
      for (let i = 0; i < claimed.length; i++) await this.settle(client, claimed[i], verdicts[i]);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
    this.deps.outbox.wake();
    return claimed.length === this.deps.batchSize;
  }

  private async settle(client: pg.PoolClient, p: ClaimedProcess, verdict: Verdict | { kind: 'cancel' }): Promise<void> {
    const meta = {
      importProcessId: p.id,
      importSupplier: p.import_supplier,
      externalIdentifier: p.external_identifier,
      forceDrop: this.deps.forced.dropsEvents(p.external_identifier),
    };
    const base = { resource_type: RESOURCE_TYPE, external_identifier: p.external_identifier };
    const outbox = this.deps.outbox;
    switch (verdict.kind) {
      case 'retry':
        this.deps.logger.warn({ importProcessId: p.id, reason: verdict.reason }, 'import processing deferred');
        await releaseForRetry(client, p.id, 1000);
        return;
      case 'cancel':
        if (await finishProcess(client, p.id, 'CANCELLED', null, null)) {
          await outbox.emit(client, IMPORT_EVENT_TYPES.cancelled, { ...base, expiry_window_end: isoSeconds(p.schedule_window_end) }, meta);
        }
        return;
      case 'error': {
        const error: LatestError = { code: verdict.code, detail: verdict.detail, domain: 'import_process' };
        if (await finishProcess(client, p.id, p.is_dry_run ? 'DRY_RUN_ERRORED' : 'ERRORED', null, error)) {
          const type = p.is_dry_run ? IMPORT_EVENT_TYPES.dry_run_error : IMPORT_EVENT_TYPES.error;
          await outbox.emit(client, type, { ...base, error_code: verdict.code, error_detail: verdict.detail }, meta);
        }
        return;
      }
      case 'ok':
        if (p.is_dry_run) {
          if (await finishProcess(client, p.id, 'DRY_RUN_SUCCEEDED', null, null)) await outbox.emit(client, IMPORT_EVENT_TYPES.dry_run_complete, base, meta);
          return;
        }
        await this.createAccount(client, p, base, meta);
    }
  }

  private async createAccount(
    client: pg.PoolClient,
    p: ClaimedProcess,
    base: { resource_type: string; external_identifier: string },
    meta: EventMeta,
  ): Promise<void> {
    const number = await createAccount(client, { supplier: p.import_supplier, externalIdentifier: p.external_identifier, processId: p.id }, newAccountNumber);
    if (number) {
      if (await finishProcess(client, p.id, 'PROCESSED', number, null)) {
        await this.deps.outbox.emit(client, IMPORT_EVENT_TYPES.complete, { ...base, identifier: number }, meta);
      } else {
        // The process was finished elsewhere (lease taken over, or state reset): undo the account.
        await client.query('DELETE FROM sandbox.accounts WHERE number = $1', [number]);
      }
      return;
    }
    // Another import of the same account won the race: the platform refuses the duplicate.
    const code = 'account_import_process_already_imported';
    const detail = `The account import process with the account number ${p.external_identifier} has already been imported.`;
    if (await finishProcess(client, p.id, 'ERRORED', null, { code, detail, domain: 'import_process' })) {
      await this.deps.outbox.emit(client, IMPORT_EVENT_TYPES.error, { ...base, error_code: code, error_detail: detail }, meta);
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
