import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { authenticateRest, type AuthContext } from '../auth/credentials';

/**
 * `GET /v1/accounts/<account_number>/`, the one ordinary REST endpoint document 1 lists. It takes
 * the token or the API key by HTTP Basic (empty password). Document 1 does not show the body: the
 * sandbox answers `{number, import_supplier, external_account_number}` of an account it created
 * (an assumption, listed in sandbox/README.md), 404 `{detail, code: 'not_found'}` otherwise.
 */
export function registerAccountRoutes(app: FastifyInstance, deps: { pool: pg.Pool; auth: AuthContext }): void {
  app.get<{ Params: { number: string } }>('/v1/accounts/:number/', async (req, reply) => {
    const outcome = authenticateRest(req.headers.authorization, deps.auth);
    if (!outcome.ok) return reply.code(401).header('WWW-Authenticate', 'Token').send(outcome.body);
    const r = await deps.pool.query<{ number: string; import_supplier: string; external_identifier: string }>(
      'SELECT number, import_supplier, external_identifier FROM sandbox.accounts WHERE number = $1',
      [req.params.number],
    );
    const row = r.rows[0];
    if (!row) return reply.code(404).send({ detail: 'The requested resource was not found.', code: 'not_found' });
    return { number: row.number, import_supplier: row.import_supplier, external_account_number: row.external_identifier };
  });
}
