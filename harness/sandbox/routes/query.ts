import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { authenticate, type AuthContext } from '../auth/credentials';
import { injectRequestFaults } from '../faults';
import { importProcessPage, transferStatus, type ImportProcessList, type ImportProcessRow } from '../imports/census';
import type { Prng } from '../prng';
import type { RuntimeState } from '../state';
import { isoSeconds } from '../time';

export interface QueryDeps {
  pool: pg.Pool;
  state: RuntimeState;
  prng: Prng;
  auth: AuthContext;
  /** Rows read per query while a list is written (the answer is one array, not paginated). */
  pageRows?: number;
}

const LIST_PATHS: Record<ImportProcessList, string> = {
  all: '/v1/data-import/all-account-import-processes/:import_supplier_code/',
  imported: '/v1/data-import/imported-account-import-processes/:import_supplier_code/',
  pending: '/v1/data-import/pending-account-import-processes/:import_supplier_code/',
};

const item = (r: ImportProcessRow) =>
  JSON.stringify({
    external_account_number: r.external_account_number,
    kraken_account_number: r.kraken_account_number,
    account_created_at: r.account_created_at ? isoSeconds(r.account_created_at) : null,
  });

/**
 * One list as the spec's one JSON array (`ImportProcess` items; pending ones with
 * `kraken_account_number` and `account_created_at` null, as the operation's description says),
 * written page by page so that a supplier of a million accounts is never held in memory here either.
 */
function listBody(deps: QueryDeps, list: ImportProcessList, supplier: string): Readable {
  const pageRows = deps.pageRows ?? 5000;
  return Readable.from(
    (async function* () {
      yield '[';
      let after = '';
      let first = true;
      for (;;) {
        const rows = await importProcessPage(deps.pool, list, supplier, after, pageRows);
        if (rows.length === 0) break;
        yield (first ? '' : ',') + rows.map(item).join(',');
        first = false;
        after = rows[rows.length - 1].external_account_number;
        if (rows.length < pageRows) break;
      }
      yield ']';
    })(),
  );
}

/** The `query` tag's lists and the transfer status: what the tenant holds for a supplier, whoever imported it. */
export function registerQueryRoutes(app: FastifyInstance, deps: QueryDeps): void {
  app.register(async (scope) => {
    scope.addHook('onRequest', async (req, reply) => {
      if (await injectRequestFaults(req, reply, deps.state, deps.prng)) return reply;
      const outcome = authenticate(req.headers.authorization, deps.auth);
      if (!outcome.ok) return reply.code(401).header('WWW-Authenticate', 'Token').send(outcome.body);
    });

    for (const [list, path] of Object.entries(LIST_PATHS) as Array<[ImportProcessList, string]>) {
      scope.get<{ Params: { import_supplier_code: string } }>(path, async (req, reply) =>
        // An unknown supplier has no import processes: an empty list (the spec documents no other answer).
        reply
          .code(200)
          .type('application/json')
          .send(listBody(deps, list, req.params.import_supplier_code)),
      );
    }

    scope.get<{ Params: { import_supplier_code: string; external_account_number: string } }>(
      '/v1/data-import/account-transfer-status/:import_supplier_code/:external_account_number/',
      async (req, reply) => {
        const s = await transferStatus(deps.pool, req.params.import_supplier_code, req.params.external_account_number);
        if (!s) return reply.code(404).send({ detail: 'The account import process or account have not been found.' });
        // `account_number` is the deprecated twin of `kraken_account_number` (the spec's example sends both).
        return { status: s.status, account_number: s.kraken_account_number, kraken_account_number: s.kraken_account_number };
      },
    );
  });
}
