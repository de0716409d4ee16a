import type { FastifyInstance, FastifyReply } from 'fastify';
import type pg from 'pg';
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { authenticate, authenticateRest, type AuthContext } from '../auth/credentials';
import { injectRequestFaults } from '../faults';
import { POST_IMPORT_EVENT_TYPES } from '../events/envelope';
import type { EventOutbox } from '../events/outbox';
import type { FieldError, SpecValidator } from '../openapi/validator';
import type { Prng } from '../prng';
import type { RuntimeState } from '../state';
import { documentKey, type SupplierStore } from '../suppliers';
import { accountRecordFromPayload, alterField, isAltered, omitFields } from '../post-import/account-record';
import {
  accountByExternal,
  accountByNumber,
  activePaymentInstruction,
  insertItem,
  lockAccount,
  type ImportedAccount,
  type NewItem,
} from '../post-import/store';

export interface PostImportDeps {
  pool: pg.Pool;
  s3: S3Client;
  bucket: string;
  validator: SpecValidator;
  suppliers: SupplierStore;
  outbox: EventOutbox;
  state: RuntimeState;
  prng: Prng;
  auth: AuthContext;
}

/** Component schemas of the four v1 post-import request bodies. */
export const POST_IMPORT_SCHEMAS = ['AccountNote', 'Transactions', 'HistoricalStatements', 'LegacyPaymentInstruction'];

type Obj = Record<string, unknown>;

const IDENTIFY = 'Either account_number or external_account_number must be provided.';
const bodies = {
  // The spec's documented 400 for a body that names no account.
  identify: () => ({ non_field_errors: [IDENTIFY] }),
  // 400 shapes for rule failures are not documented for v1: we answer like v2 validation (assumed).
  invalid: (errors: FieldError[]) => ({ detail: 'Invalid data.', code: errors[0]?.code ?? 'invalid', errors }),
  notOngoing: (code: string, status: string) => {
    const detail = `Import supplier ${code} is not accepting changes: its migration is ${status.toLowerCase()}.`;
    return {
      detail,
      code: 'import_supplier_migration_not_ongoing',
      errors: [{ detail, code: 'import_supplier_migration_not_ongoing', attr: 'import_supplier' }],
    };
  },
  notFound: () => ({
    detail: 'The account import process or account have not been found.',
    code: 'account_not_found',
  }),
};

/**
 * `GET /v1/accounts/<number>/` and the v1 post-import endpoints (notes, transactions, historical
 * statements, payment instructions). Items are created synchronously under the account's row lock,
 * deduplicated only as the spec says, and each new one emits `post_import.completed` (or, under the
 * `postImportErrorRate` fault, is refused after acceptance with `post_import.error`).
 */
export function registerPostImportRoutes(app: FastifyInstance, deps: PostImportDeps): void {
  app.register(async (scope) => {
    scope.addHook('onRequest', async (req, reply) => {
      if (await injectRequestFaults(req, reply, deps.state, deps.prng)) return reply;
      // The account endpoint is an ordinary REST endpoint (sandbox/README.md, "Credentials", rules 4-5: the token or HTTP
      // Basic); the v1 data-import endpoints take `Token <…>` only.
      const outcome = req.url.startsWith('/v1/accounts/')
        ? authenticateRest(req.headers.authorization, deps.auth)
        : authenticate(req.headers.authorization, deps.auth);
      if (!outcome.ok) return reply.code(401).header('WWW-Authenticate', 'Token').send(outcome.body);
    });

    scope.get<{ Params: { number: string } }>('/v1/accounts/:number/', async (req, reply) => {
      const account = await accountByNumber(deps.pool, req.params.number);
      if (!account) return reply.code(404).send({ detail: 'Not found.', code: 'not_found' });
      const { accountAlterRate, accountAlterField, accountOmitFields, accountRecordExtras } = deps.state.faults;
      const record = omitFields(accountRecordFromPayload(account.number, account.payload, { extras: accountRecordExtras }), accountOmitFields);
      return isAltered(account.number, accountAlterRate) ? alterField(record, accountAlterField) : record;
    });

    /** Shared front half: schema, account identification, supplier status, account lookup. */
    async function resolve(schema: string, body: unknown, reply: FastifyReply): Promise<{ account: ImportedAccount; body: Obj } | undefined> {
      const errors = deps.validator.validate(schema, body);
      if (errors.length) {
        await reply.code(400).send(bodies.invalid(errors));
        return undefined;
      }
      const b = body as Obj;
      const supplier = String(b.import_supplier);
      const ext = typeof b.external_account_number === 'string' ? b.external_account_number : undefined;
      const number = typeof b.account_number === 'string' ? b.account_number : undefined;
      if (!ext && !number) {
        await reply.code(400).send(bodies.identify());
        return undefined;
      }
      const s = deps.suppliers.get(supplier);
      if (s && s.status !== 'ONGOING') {
        await reply.code(400).send(bodies.notOngoing(s.code, s.status));
        return undefined;
      }
      const account = ext ? await accountByExternal(deps.pool, supplier, ext) : await accountByNumber(deps.pool, number!);
      if (!account || account.import_supplier !== supplier) {
        await reply.code(404).send(bodies.notFound());
        return undefined;
      }
      return { account, body: b };
    }

    async function missingPaths(paths: Array<{ attr: string; path: string }>, supplierCode: string): Promise<FieldError[]> {
      const supplier = deps.suppliers.get(supplierCode);
      const out: FieldError[] = [];
      for (const { attr, path } of paths) {
        try {
          await deps.s3.send(new HeadObjectCommand({ Bucket: deps.bucket, Key: documentKey(supplier?.document_root ?? '', path) }));
        } catch (e) {
          const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
          if (status !== 404 && (e as Error).name !== 'NotFound' && (e as Error).name !== 'NoSuchKey') throw e;
          out.push({ attr, code: 'path_does_not_exist_in_file_store', detail: `The path ${path} does not exist in the file store.` });
        }
      }
      return out;
    }

    /**
     * Creates the items in one transaction under the account lock and emits their events. Returns
     * per item whether it was created (or refused by the error fault) or already existed.
     */
    async function createItems(account: ImportedAccount, items: Array<NewItem & { dedupe: boolean }>): Promise<Array<'created' | 'exists'>> {
      const client = await deps.pool.connect();
      try {
        await client.query('BEGIN');
        await lockAccount(client, account.number);
        const out: Array<'created' | 'exists'> = [];
        for (const item of items) {
          const base = {
            resource_type: item.resourceType,
            import_process_resource_type: 'ACCOUNT',
            import_process_external_identifier: account.external_identifier,
          };
          const meta = { importProcessId: account.import_process_id, importSupplier: account.import_supplier, externalIdentifier: account.external_identifier };
          if (deps.prng.chance(deps.state.faults.postImportErrorRate)) {
            // Accepted, then refused: nothing is created and only the event tells.
            await client.query(
              `INSERT INTO sandbox.post_import_requests (account_number, resource_type, source_key, request_count) VALUES ($1, $2, $3, 1)
               ON CONFLICT (account_number, resource_type, source_key) DO UPDATE SET request_count = sandbox.post_import_requests.request_count + 1`,
              [account.number, item.resourceType, item.sourceKey],
            );
            await deps.outbox.emit(
              client,
              POST_IMPORT_EVENT_TYPES.error,
              {
                ...base,
                error_code: 'post_import_forced_error',
                error_detail: `The ${item.resourceType.toLowerCase()} could not be added (forced by the sandbox).`,
              },
              meta,
            );
            out.push('created');
            continue;
          }
          const r = await insertItem(client, account.number, item, item.dedupe);
          if (r.kind === 'created') await deps.outbox.emit(client, POST_IMPORT_EVENT_TYPES.completed, { ...base, identifier: item.sourceKey }, meta);
          out.push(r.kind);
        }
        await client.query('COMMIT');
        deps.outbox.wake();
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    }

    scope.post('/v1/data-import/notes/create/', async (req, reply) => {
      const r = await resolve('AccountNote', req.body, reply);
      if (!r) return reply;
      const notes = (r.body.notes as Obj[]) ?? [];
      const errors: FieldError[] = [];
      const paths: Array<{ attr: string; path: string }> = [];
      notes.forEach((n, i) => {
        const docs = Array.isArray(n.document_paths) ? (n.document_paths as Obj[]) : [];
        if (!(typeof n.body === 'string' && n.body !== '') && docs.length === 0) {
          errors.push({ attr: `notes.${i}`, code: 'note_body_or_document_path_not_found', detail: 'A note needs a body or document paths.' });
        }
        if (typeof n.created_at === 'string' && typeof n.unpin_at === 'string' && Date.parse(n.unpin_at) < Date.parse(n.created_at)) {
          errors.push({ attr: `notes.${i}.unpin_at`, code: 'note_unpin_at_earlier_than_creation_date', detail: 'unpin_at is earlier than created_at.' });
        }
        docs.forEach((d, j) => paths.push({ attr: `notes.${i}.document_paths.${j}.document_path`, path: String(d.document_path) }));
      });
      errors.push(...(await missingPaths(paths, r.account.import_supplier)));
      if (errors.length) return reply.code(400).send(bodies.invalid(errors));
      // "A new note will only be created if a note on the account with the same body (and created_at, if provided) does not already exist."
      const statuses = await createItems(
        r.account,
        notes.map((n, i) => ({
          resourceType: 'NOTE',
          sourceKey: typeof n.external_id === 'string' ? n.external_id : `note-${i}:${String(n.body ?? '')}`,
          dedupeKey: JSON.stringify([n.body ?? null, n.created_at ?? null]),
          data: n,
          dedupe: true,
        })),
      );
      return reply.code(201).send(notes.map((n, i) => ({ ...n, status: statuses[i] === 'exists' ? 'NOTE_ALREADY_EXISTS' : 'NOTE_CREATION_SUCCESS' })));
    });

    scope.post<{ Querystring: { check_previously_added?: string } }>('/v1/data-import/transactions/create/', async (req, reply) => {
      const r = await resolve('Transactions', req.body, reply);
      if (!r) return reply;
      const txs = (r.body.transactions as Obj[]) ?? [];
      const ids = txs.map((t) => String(t.transaction_id));
      const dup = ids.findIndex((id, i) => ids.indexOf(id) !== i);
      if (dup >= 0)
        return reply
          .code(400)
          .send(bodies.invalid([{ attr: `transactions.${dup}.transaction_id`, code: 'duplicate_transaction_ids', detail: 'Transaction ids must be unique.' }]));
      const today = new Date().toISOString().slice(0, 10);
      const future = txs.findIndex((t) => String(t.transaction_date) > today);
      if (future >= 0)
        return reply
          .code(400)
          .send(
            bodies.invalid([
              { attr: `transactions.${future}.transaction_date`, code: 'transaction_in_future', detail: 'The transaction date is in the future.' },
            ]),
          );
      const check = req.query.check_previously_added !== 'false';
      const statuses = await createItems(
        r.account,
        txs.map((t) => ({ resourceType: 'TRANSACTION', sourceKey: String(t.transaction_id), dedupeKey: String(t.transaction_id), data: t, dedupe: check })),
      );
      const results = txs.map((t, i) => ({
        status: statuses[i] === 'exists' ? 'TRANSACTION_ALREADY_EXISTS' : 'TRANSACTION_ADDED_TO_ACCOUNT',
        transaction_data: t,
      }));
      return reply.code(201).send({ results });
    });

    scope.post('/v1/data-import/historical-statements/create/', async (req, reply) => {
      const r = await resolve('HistoricalStatements', req.body, reply);
      if (!r) return reply;
      const statements = (r.body.statements as Obj[]) ?? [];
      const errors: FieldError[] = [];
      statements.forEach((s, i) => {
        if (typeof s.statement_path !== 'string')
          errors.push({ attr: `statements.${i}`, code: 'missing_statement_path_or_pdf_context', detail: 'A statement needs a statement_path.' });
      });
      errors.push(
        ...(await missingPaths(
          statements.flatMap((s, i) => (typeof s.statement_path === 'string' ? [{ attr: `statements.${i}.statement_path`, path: s.statement_path }] : [])),
          r.account.import_supplier,
        )),
      );
      if (errors.length) return reply.code(400).send(bodies.invalid(errors));
      const statuses = await createItems(
        r.account,
        statements.map((s) => ({ resourceType: 'STATEMENT', sourceKey: String(s.statement_id), dedupeKey: String(s.statement_id), data: s, dedupe: true })),
      );
      const existing = statuses.findIndex((s) => s === 'exists');
      if (existing >= 0) {
        // The others of this request were created: the platform validates per statement (assumed).
        return reply.code(400).send(
          bodies.invalid([
            {
              attr: `statements.${existing}.statement_id`,
              code: 'historical_statement_already_exists',
              detail: 'The account already has this historical statement.',
            },
          ]),
        );
      }
      return reply.code(201).send(r.body);
    });

    scope.post('/v1/data-import/payment-instruction/create/', async (req, reply) => {
      const r = await resolve('LegacyPaymentInstruction', req.body, reply);
      if (!r) return reply;
      const reference =
        typeof r.body.reference === 'string' ? r.body.reference : typeof r.body.instruction_reference === 'string' ? r.body.instruction_reference : undefined;
      if (!reference)
        return reply
          .code(400)
          .send(
            bodies.invalid([
              { attr: 'reference', code: 'mutually_exclusive_field_required', detail: 'Either instruction_reference or reference is required.' },
            ]),
          );
      const client = await deps.pool.connect();
      let active: string | undefined;
      try {
        await client.query('BEGIN');
        await lockAccount(client, r.account.number);
        active = await activePaymentInstruction(client, r.account.number);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      const answer = { account_number: r.account.external_identifier, kraken_account_number: r.account.number, reference };
      if (active !== undefined && active !== reference) {
        return reply.code(400).send({
          error_detail: 'Account already has an active instruction',
          external_account_number: r.account.external_identifier,
          import_supplier: r.account.import_supplier,
          reference,
        });
      }
      // The same reference again is answered like the first time (assumed: the spec says nothing).
      await createItems(r.account, [{ resourceType: 'PAYMENT_INSTRUCTION', sourceKey: reference, dedupeKey: reference, data: r.body, dedupe: true }]);
      return reply.code(201).send(answer);
    });
  });
}
