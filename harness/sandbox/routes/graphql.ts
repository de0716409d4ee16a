import type { FastifyInstance } from 'fastify';
import { buildSchema, execute, parse, validate, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type pg from 'pg';
import { prunedSchemaSdl } from '../../../contract/graphql';
import { secretEquals } from '../auth/credentials';
import { signJwt, verifyJwt, type JwtClaims } from '../auth/jwt';
import { graphqlAccountFromPayload, withReadBackFaults } from '../post-import/graphql-account';
import { accountByNumber } from '../post-import/store';
import type { RuntimeState } from '../state';

export interface GraphqlDeps {
  state: RuntimeState;
  organizationSecretKey?: string;
  dataImportKey?: string;
  jwtSecret: string;
  refreshTokenTtlSeconds: number;
  /** The sandbox's store: the accounts it created, with the payloads they came from. */
  pool: pg.Pool;
}

let schema: GraphQLSchema | undefined;
/** The tenant schema pruned to what the client's operations reach (contract/graphql/schema.graphql). */
function readSchema(): GraphQLSchema {
  schema ??= buildSchema(prunedSchemaSdl());
  return schema;
}

/** Query texts seen, parsed and validated once (a client sends a handful of texts, each many times). */
const documents = new Map<string, DocumentNode | readonly GraphQLError[]>();
const DOCUMENTS_KEPT = 64;

/** A query's document, or the errors `graphql()` would answer for its text (syntax, then validation). */
function documentOf(query: string): DocumentNode | readonly GraphQLError[] {
  const known = documents.get(query);
  if (known) return known;
  let found: DocumentNode | readonly GraphQLError[];
  try {
    const document = parse(query);
    const errors = validate(readSchema(), document);
    found = errors.length > 0 ? errors : document;
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    found = [e];
  }
  if (documents.size >= DOCUMENTS_KEPT) documents.delete(documents.keys().next().value!);
  documents.set(query, found);
  return found;
}

/** `graphql()` with the document's parse and validation done once per text. */
async function runQuery(query: string, variableValues: Record<string, unknown> | undefined, rootValue: unknown): Promise<ExecutionResult> {
  const document = documentOf(query);
  if (!('kind' in document)) return { errors: document };
  return execute({ schema: readSchema(), document, variableValues, rootValue });
}

/**
 * The token of an authenticated query: the tenant's API basics guide sets the `Authorization`
 * header to the token itself. A missing header is KT-CT-1112, an expired token KT-CT-1124, any
 * other refusal (a scheme word, a refresh token, a bad signature) KT-CT-1111.
 */
function checkQueryToken(header: string | undefined, deps: GraphqlDeps): { ok: true } | { ok: false; code: string; message: string } {
  const value = header?.trim();
  if (!value) return { ok: false, code: 'KT-CT-1112', message: "'Authorization' header not provided." };
  const now = Math.floor(Date.now() / 1000) + deps.state.faults.clockOffsetSeconds;
  const r = verifyJwt(value, deps.jwtSecret, now);
  if (!r.ok)
    return r.code === 'expired'
      ? { ok: false, code: 'KT-CT-1124', message: 'Signature of the JWT has expired.' }
      : { ok: false, code: 'KT-CT-1111', message: 'Unauthorized.' };
  if (r.claims.tokenUse !== 'access') return { ok: false, code: 'KT-CT-1111', message: 'Unauthorized.' };
  return { ok: true };
}

const FIELDS = ['token', 'payload', 'refreshToken', 'refreshExpiresIn'] as const;
const INPUT_KEYS = ['organizationSecretKey', 'APIKey', 'refreshToken', 'preSignedKey'] as const;

/** The mutation's `input`: from a variable (`input: $input`) or an inline object literal of strings. */
export function extractInput(query: string, variables: unknown): Record<string, unknown> | undefined {
  const vars = typeof variables === 'object' && variables !== null ? (variables as Record<string, unknown>) : {};
  const call = /obtainKrakenToken\s*\(\s*input\s*:\s*(\$\w+|\{[^}]*\})/.exec(query);
  if (!call) return undefined;
  const arg = call[1];
  if (arg.startsWith('$')) {
    const v = vars[arg.slice(1)];
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  }
  const out: Record<string, unknown> = {};
  for (const m of arg.matchAll(/(\w+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|\$(\w+))/g)) out[m[1]] = m[2] !== undefined ? JSON.parse(`"${m[2]}"`) : vars[m[3]];
  return out;
}

function graphqlError(message: string, errorCode: string, path?: string[]) {
  return { message, ...(path ? { path } : {}), extensions: { errorType: 'VALIDATION', errorCode, errorDescription: message } };
}

/**
 * `POST /v1/graphql/`: `obtainKrakenToken` (found by name, which covers what clients send), and
 * queries executed with the `graphql` package against the pruned tenant schema over the sandbox's
 * store: `account(accountNumber)` from the payload the account was created from, with the
 * operator's read-back faults. Bad credentials are a GraphQL error with HTTP 200, as the platform
 * answers.
 */
export function registerGraphqlRoutes(app: FastifyInstance, deps: GraphqlDeps): void {
  // Admin (loopback, no auth): a pre-signed key, as the platform operator would hand one out.
  app.post('/admin/pre-signed-keys', async (req) => {
    const ttl = Number((req.body as { ttlSeconds?: unknown } | undefined)?.ttlSeconds ?? 300);
    const now = Math.floor(Date.now() / 1000) + deps.state.faults.clockOffsetSeconds;
    const exp = now + (Number.isFinite(ttl) && ttl > 0 ? Math.floor(ttl) : 300);
    const preSignedKey = signJwt(
      { sub: 'kraken|pre-signed:sandbox', iss: 'kraken-sandbox', iat: now, exp, tokenUse: 'pre_signed', origIat: now },
      deps.jwtSecret,
    );
    return { preSignedKey, expiresAt: exp };
  });

  app.post('/v1/graphql/', async (req, reply) => {
    const body = req.body as { query?: unknown; variables?: unknown } | undefined;
    if (!body || typeof body.query !== 'string') return reply.code(400).send({ errors: [{ message: 'Must provide query string.' }] });
    const query = body.query;
    if (!/\bobtainKrakenToken\b/.test(query)) {
      const auth = checkQueryToken(req.headers.authorization, deps);
      if (!auth.ok)
        return {
          data: null,
          errors: [
            { ...graphqlError(auth.message, auth.code), extensions: { errorType: 'AUTHORIZATION', errorCode: auth.code, errorDescription: auth.message } },
          ],
        };
      return runQuery(query, (body.variables ?? undefined) as Record<string, unknown> | undefined, {
        account: async ({ accountNumber }: { accountNumber: string }) => {
          const account = await accountByNumber(deps.pool, accountNumber);
          return account ? withReadBackFaults(graphqlAccountFromPayload(account.number, account.payload), deps.state.faults) : null;
        },
      });
    }
    const input = extractInput(query, body.variables);
    const given = INPUT_KEYS.filter((k) => typeof input?.[k] === 'string' && input[k] !== '');
    const invalid = () => ({ data: { obtainKrakenToken: null }, errors: [graphqlError('Invalid data.', 'KT-CT-1135', ['obtainKrakenToken'])] });
    if (given.length !== 1) return invalid();
    const value = String(input![given[0]]);
    const now = Math.floor(Date.now() / 1000) + deps.state.faults.clockOffsetSeconds;

    let sub: string | undefined;
    let origIat = now;
    let refresh: { token: string; exp: number } | undefined;
    if (given[0] === 'organizationSecretKey' && deps.organizationSecretKey && secretEquals(value, deps.organizationSecretKey))
      sub = 'kraken|organization:sandbox';
    else if (given[0] === 'APIKey' && deps.dataImportKey && secretEquals(value, deps.dataImportKey)) sub = 'kraken|data-import-key:sandbox';
    else if (given[0] === 'preSignedKey') {
      // Short-lived keys this sandbox signed (`POST /admin/pre-signed-keys`).
      const r = verifyJwt(value, deps.jwtSecret, now);
      if (r.ok && r.claims.tokenUse === 'pre_signed') sub = r.claims.sub;
    } else if (given[0] === 'refreshToken') {
      const r = verifyJwt(value, deps.jwtSecret, now);
      if (r.ok && r.claims.tokenUse === 'refresh') {
        sub = r.claims.sub;
        origIat = r.claims.origIat;
        refresh = { token: value, exp: r.claims.exp };
      }
    }
    if (!sub) return invalid();

    const claims: JwtClaims = { sub, iss: 'kraken-sandbox', iat: now, exp: now + deps.state.faults.tokenTtlSeconds, tokenUse: 'access', origIat };
    refresh ??= (() => {
      const exp = now + deps.refreshTokenTtlSeconds;
      return { token: signJwt({ sub: sub, iss: 'kraken-sandbox', iat: now, exp, tokenUse: 'refresh', origIat }, deps.jwtSecret), exp };
    })();
    const full = { token: signJwt(claims, deps.jwtSecret), payload: claims, refreshToken: refresh.token, refreshExpiresIn: refresh.exp };
    // Answer the selected fields only; a selection naming none gets the token.
    const selection = query.slice(query.indexOf('obtainKrakenToken'));
    const picked = FIELDS.filter((f) => new RegExp(`\\b${f}\\b`).test(selection.slice(selection.indexOf(')'))));
    const result: Record<string, unknown> = {};
    for (const f of picked.length ? picked : (['token'] as const)) result[f] = full[f];
    return { data: { obtainKrakenToken: result } };
  });
}
