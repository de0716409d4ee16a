import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { authenticate, type AuthContext } from '../auth/credentials';
import { injectRequestFaults } from '../faults';
import type { EventOutbox } from '../events/outbox';
import type { ForcedOutcomeStore } from '../forced-outcomes';
import type { Prng } from '../prng';
import type { RuntimeState } from '../state';
import { accountByExternal } from '../post-import/store';
import { meterPointsOf, meterPointStatuses, sendFlows } from '../supply/store';
import { cohortByRate } from '../supply/walk';

export interface RegistrationDeps {
  pool: pg.Pool;
  outbox: EventOutbox;
  forced: ForcedOutcomeStore;
  state: RuntimeState;
  prng: Prng;
  auth: AuthContext;
}

type Params = { Params: { import_supplier_code: string; external_account_number: string } };

/**
 * The switch's two endpoints (tags `post_account_import` and `query`): registration flows sent for
 * an imported account's meter points, and each point's status. 404 for an account only staged (or
 * unknown) and for one with no meter points, with the bodies the spec shows.
 */
export function registerRegistrationRoutes(app: FastifyInstance, deps: RegistrationDeps): void {
  app.register(async (scope) => {
    // The spec gives send-registration-flows no request body; a client may still send JSON's
    // content type with an empty one, which a tenant's framework reads as no data (fastify would refuse it).
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(text));
      } catch {
        done(Object.assign(new Error('JSON parse error'), { statusCode: 400 }), undefined);
      }
    });
    scope.addHook('onRequest', async (req, reply) => {
      if (await injectRequestFaults(req, reply, deps.state, deps.prng)) return reply;
      const outcome = authenticate(req.headers.authorization, deps.auth);
      if (!outcome.ok) return reply.code(401).header('WWW-Authenticate', 'Token').send(outcome.body);
    });

    scope.post<Params>('/v1/data-import/send-registration-flows/:import_supplier_code/:external_account_number/', async (req, reply) => {
      const { import_supplier_code: supplier, external_account_number: ext } = req.params;
      const account = await accountByExternal(deps.pool, supplier, ext);
      const notFound = (why: string) => reply.code(404).send({ external_account_number: ext, import_supplier_code: supplier, error_detail: why });
      if (!account) return notFound(`Account not found for ${ext}.`);
      if (meterPointsOf(account.payload).length === 0) return notFound(`No meter points found for ${ext}.`);
      const { faults } = deps.state;
      const cohortOf = (mpxn: string) =>
        deps.forced.registration(mpxn) ?? { cohort: cohortByRate(mpxn, faults), errorDetail: 'Current supplier not confirmed for this meter point.' };
      const meterPoints = await sendFlows(deps.pool, deps.outbox, account, cohortOf, faults.supplyStepMs);
      deps.outbox.wake();
      return reply.code(200).send({ external_account_number: ext, import_supplier_code: supplier, meter_points: meterPoints });
    });

    scope.get<Params>('/v1/data-import/meterpoint-statuses-for-account/:import_supplier_code/:external_account_number/', async (req, reply) => {
      const { import_supplier_code: supplier, external_account_number: ext } = req.params;
      const account = await accountByExternal(deps.pool, supplier, ext);
      const statuses = account ? await meterPointStatuses(deps.pool, account) : [];
      if (statuses.length === 0) return reply.code(404).send({ error: `No meterpoints found for ${ext}.` });
      return statuses;
    });
  });
}
