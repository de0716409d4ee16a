import type { FastifyInstance, FastifyReply } from 'fastify';
import type pg from 'pg';
import { authenticate, type AuthContext } from '../auth/credentials';
import { injectRequestFaults, loseResponse, sendServerError, sendThrottled } from '../faults';
import type { ForcedOutcomeStore } from '../forced-outcomes';
import { latestProcess, releaseHeldImport, scheduleImport } from '../imports/store';
import { resolveWindow, type TaskParamsInput } from '../imports/task-params';
import type { FieldError, SpecValidator } from '../openapi/validator';
import type { Prng } from '../prng';
import type { RuntimeState } from '../state';
import type { Supplier, SupplierStore } from '../suppliers';
import { iso } from '../time';
import { sleep } from '../loop';
import { accountKeyOf, type RequestWitness } from '../witness';
import { sendConcurrencyLimited } from '../concurrency-limit';

export interface DataImportDeps {
  pool: pg.Pool;
  validator: SpecValidator;
  suppliers: SupplierStore;
  forced: ForcedOutcomeStore;
  state: RuntimeState;
  prng: Prng;
  auth: AuthContext;
  windowStartToleranceMs: number;
  witness: RequestWitness;
}

// Response bodies, as the spec shows them.
export const bodies = {
  validationFailed: (errors: FieldError[]) => ({ detail: 'Account failed validation.', code: 'account_failed_validation', errors }),
  importFailed: () => ({
    code: 'import_process_failed_validation',
    detail: 'Import process validation failed during account creation. Please validate the import process to get full details of the validation errors.',
    domain: 'import_process',
  }),
  notOngoing: (s: Supplier) => {
    const detail = `Import supplier ${s.code} is not accepting new accounts: its migration is ${s.status.toLowerCase()}.`;
    return {
      detail,
      code: 'import_supplier_migration_not_ongoing',
      errors: [{ detail, code: 'import_supplier_migration_not_ongoing', attr: 'import_supplier' }],
    };
  },
  alreadyImported: (ext: string, accountId: string) => ({
    non_field_errors: {
      detail: `The account import process with the account number ${ext} has already been imported.`,
      code: 'account_import_process_already_imported',
    },
    account_id: accountId,
  }),
  notFound: () => ({ detail: 'The requested resource was not found.', code: 'not_found' }),
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** attrs inside the account payload are relative to it (`customers.0.mobile`), as the platform reports them. */
export function relativeToPayload(errors: FieldError[]): FieldError[] {
  return errors.map((e) => (e.attr.startsWith('payload.') ? { ...e, attr: e.attr.slice('payload.'.length) } : e));
}

type SupplierCheck = { kind: 'ok'; supplier: Supplier } | { kind: 'unknown'; error: FieldError } | { kind: 'not_ongoing'; supplier: Supplier };

function checkSupplier(suppliers: SupplierStore, code: unknown): SupplierCheck | undefined {
  if (typeof code !== 'string') return undefined; // the schema already reported it
  const supplier = suppliers.get(code);
  if (!supplier) return { kind: 'unknown', error: { attr: 'import_supplier', code: 'invalid_choice', detail: `"${code}" is not a valid choice.` } };
  if (supplier.status !== 'ONGOING') return { kind: 'not_ongoing', supplier };
  return { kind: 'ok', supplier };
}

export function registerDataImportRoutes(app: FastifyInstance, deps: DataImportDeps): void {
  app.register(async (scope) => {
    // A gateway fails requests before the application sees them: faults first, then auth. (preHandler,
    // not onRequest: the witness needs the parsed body to know which account a request is about.)
    scope.addHook('preHandler', async (req, reply) => {
      if (req.method === 'POST' && req.routeOptions.url === '/v2/data-import/accounts/') {
        deps.witness.trackSchedule(reply);
        if (deps.state.faults.scheduleLatencyMs > 0) await sleep(deps.state.faults.scheduleLatencyMs);
      }
      const key = accountKeyOf(req);
      await deps.witness.arrived(key, req.method, req.url);
      if (await injectRequestFaults(req, reply, deps.state, deps.prng, (s) => deps.witness.throttled(key, s))) return reply;
      const outcome = authenticate(req.headers.authorization, deps.auth);
      if (!outcome.ok) return reply.code(401).header('WWW-Authenticate', 'Token').send(outcome.body);
    });

    scope.post('/v2/data-import/accounts/validate/', async (req, reply) => {
      const body = req.body;
      const errors = relativeToPayload(deps.validator.validate('ValidateAccount', body));
      const check = checkSupplier(deps.suppliers, isObject(body) && isObject(body.payload) ? body.payload.import_supplier : undefined);
      if (check?.kind === 'unknown') errors.push(check.error);
      if (check?.kind === 'not_ongoing') {
        if (errors.length === 0) return reply.code(400).send(bodies.notOngoing(check.supplier));
        errors.push(bodies.notOngoing(check.supplier).errors[0]);
      }
      if (errors.length) return reply.code(400).send(bodies.validationFailed(errors));
      return reply.code(200).send();
    });

    scope.post('/v2/data-import/accounts/', async (req, reply) => {
      const body = req.body;
      const payload = isObject(body) && isObject(body.payload) ? body.payload : undefined;
      const ext = typeof payload?.external_account_number === 'string' ? payload.external_account_number : undefined;
      if (ext) {
        const forcedStatus = await deps.forced.takeScheduleFailure(ext);
        if (forcedStatus === 429) {
          await deps.witness.throttled(accountKeyOf(req), deps.state.faults.retryAfterSeconds);
          return sendThrottled(reply, deps.state.faults.retryAfterSeconds);
        }
        if (forcedStatus) return sendServerError(reply, forcedStatus);
      }
      const errors = deps.validator.validate('ScheduleAccountCreation', body);
      if (errors.some((e) => e.attr.startsWith('payload.'))) return reply.code(400).send(bodies.importFailed());
      if (errors.length) return reply.code(400).send(bodies.validationFailed(errors));

      const check = checkSupplier(deps.suppliers, payload!.import_supplier);
      if (check?.kind === 'unknown') return reply.code(400).send(bodies.importFailed());
      if (check?.kind === 'not_ongoing') return reply.code(400).send(bodies.notOngoing(check.supplier));
      if (!ext) {
        // Optional in the schema, but an import process is keyed by it (status URL, events).
        return reply.code(400).send(bodies.validationFailed([{ attr: 'external_account_number', code: 'required', detail: 'This field is required.' }]));
      }
      const window = resolveWindow((body as { task_params: TaskParamsInput }).task_params, Date.now(), deps.windowStartToleranceMs);
      if (!window.ok) return reply.code(400).send(bodies.validationFailed(window.errors));

      // The blind-resend trap: every new import is held until its answer is on its way to the client
      // (an answer lost, or a client gone, leaves it held), and a repeat opens a second import.
      const { blindResendTrapMs, processingDelayJitterMs } = deps.state.faults;
      const processingDelayMs = deps.state.faults.processingDelayMs + (processingDelayJitterMs ? Math.floor(deps.prng.next() * processingDelayJitterMs) : 0);
      const result = await scheduleImport(deps.pool, {
        supplier: String(payload!.import_supplier),
        externalIdentifier: ext,
        isDryRun: window.isDryRun,
        payload,
        startMs: window.startMs,
        endMs: window.endMs,
        processingDelayMs: blindResendTrapMs > 0 ? blindResendTrapMs : processingDelayMs,
        repeatOpensSecondImport: blindResendTrapMs > 0,
        holdUntilWindowEnd: deps.forced.holds(ext),
        concurrencyLimit: deps.state.faults.concurrencyLimit,
      });
      if (result.kind === 'already_imported') return reply.code(400).send(bodies.alreadyImported(ext, result.accountNumber));
      if (result.kind === 'over_limit') {
        const { concurrencyLimit, concurrencyRetryAfterSeconds } = deps.state.faults;
        await deps.witness.limited(accountKeyOf(req), concurrencyRetryAfterSeconds);
        return sendConcurrencyLimited(reply, concurrencyLimit, concurrencyRetryAfterSeconds);
      }
      if (await loseResponse(req, reply, deps.state, deps.prng)) {
        deps.witness.responseLost(reply);
        return reply;
      }
      if (blindResendTrapMs > 0 && result.processId !== null && !req.raw.socket.destroyed)
        await releaseHeldImport(deps.pool, result.processId, processingDelayMs);
      // The spec documents no body for 201; a repeat while the import is live gets the same answer.
      return reply.code(201).send();
    });

    scope.get<{ Params: { import_supplier_code: string; external_identifier: string } }>(
      '/v2/data-import/accounts/:import_supplier_code/:external_identifier/',
      async (req, reply: FastifyReply) => {
        const p = await latestProcess(deps.pool, req.params.import_supplier_code, req.params.external_identifier);
        if (!p) return reply.code(404).send(bodies.notFound());
        return {
          status: p.status,
          kraken_identifier: p.kraken_identifier,
          created_at: iso(p.created_at),
          modified_at: iso(p.modified_at),
          latest_event: { event: p.latest_event, occurred_at: iso(p.latest_event_at), data: p.latest_error },
          latest_error: p.latest_error,
        };
      },
    );
  });
}
