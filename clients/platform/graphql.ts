import { z } from 'zod';
import { ACCOUNT_READ_BACK_QUERY } from '../../contract/graphql';
import type { PlatformAuth } from './auth';
import { errorForStatus, PLATFORM_ERROR_CODES, PlatformFinalError } from './errors';
import { send, type FetchLike, type PlatformLogger } from './transport';
import { pathOf } from './url';

/**
 * The account as `contract/graphql/account-read-back.graphql` reads it. Money is an integer in
 * pence (the schema: "in minor units of currency"). Values are personal data: they go to the
 * comparison in the same activity and nowhere else.
 */
const nullableString = z.string().nullish();
export const graphqlAccountSchema = z.object({
  number: nullableString,
  balance: z.number().int(),
  ledgers: z
    .array(
      z
        .object({
          number: nullableString,
          ledgerType: nullableString,
          balance: z.number().int().nullish(),
          amountOwedByCustomer: z.number().int().nullish(),
        })
        .nullable(),
    )
    .nullish(),
  users: z.array(
    z.object({
      givenName: z.string(),
      familyName: z.string(),
      email: z.string(),
      mobile: z.string(),
      landline: z.string(),
      dateOfBirth: nullableString,
    }),
  ),
  billingName: nullableString,
  billingAddressLine1: nullableString,
  billingAddressLine2: nullableString,
  billingAddressLine3: nullableString,
  billingAddressLine4: nullableString,
  billingAddressLine5: nullableString,
  billingAddressPostcode: nullableString,
});
export type GraphqlAccount = z.infer<typeof graphqlAccountSchema>;

const responseSchema = z.object({
  data: z.object({ account: z.unknown().nullish() }).nullish(),
  errors: z.array(z.looseObject({ extensions: z.looseObject({ errorCode: z.string().optional(), errorType: z.string().optional() }).nullish() })).optional(),
});

/**
 * The tenant's GraphQL errors that mean "the token was refused" (answered with HTTP 200): 1111
 * unauthorized, 1112 `Authorization` header not provided (the tenant's API basics guide), 1124 the
 * JWT has expired. One renewal and one repeat, like a REST 401.
 */
const AUTH_ERROR_CODES = new Set(['KT-CT-1111', 'KT-CT-1112', 'KT-CT-1124']);

export interface GraphqlDeps {
  fetch: FetchLike;
  /** Issues Kraken tokens (`obtainKrakenToken`); its header value is `Token <jwt>`. */
  auth: PlatformAuth;
  logger?: PlatformLogger;
}

/**
 * The tenant's API basics guide: the `Authorization` header of a GraphQL request is the token
 * itself, no scheme word. Our auth yields `Token <jwt>` for the data-import endpoints.
 */
export function graphqlAuthorization(header: string): string {
  return header.startsWith('Token ') ? header.slice('Token '.length) : header;
}

export function createGraphqlApi(cfg: { PLATFORM_GRAPHQL_URL: string; PLATFORM_HTTP_TIMEOUT_MS: number }, deps: GraphqlDeps) {
  const transport = { fetch: deps.fetch, timeoutMs: cfg.PLATFORM_HTTP_TIMEOUT_MS, logger: deps.logger };
  const url = new URL(cfg.PLATFORM_GRAPHQL_URL);
  const path = pathOf(url);
  const at = (status?: number) => ({ method: 'POST', path, status });

  /** One exchange: the account, `null` for none, or `'auth'` when the token was refused. Throws transient/final errors. */
  async function once(accountNumber: string): Promise<{ account: unknown } | { refused: string }> {
    const credential = await deps.auth.header();
    const res = await send(transport, {
      method: 'POST',
      url,
      headers: { Authorization: graphqlAuthorization(credential) },
      body: { query: ACCOUNT_READ_BACK_QUERY, variables: { accountNumber } },
    });
    // The tenant answers 200 whenever it is up; anything else is the transport's transient/final split.
    if (res.status !== 200) {
      if (res.status === 401) return { refused: credential };
      throw errorForStatus({ method: 'POST', path, status: res.status }, res.headers.get('retry-after'));
    }
    const parsed = responseSchema.safeParse(res.body);
    if (res.unparseable || !parsed.success) throw new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, at(200), 'unexpected GraphQL body');
    const codes = (parsed.data.errors ?? []).map((e) => e.extensions?.errorCode ?? 'unknown');
    if (codes.some((c) => AUTH_ERROR_CODES.has(c))) return { refused: credential };
    // Codes only: a message can echo the account number or personal data.
    if (codes.length) throw new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, at(200), `graphql errors ${codes.join(',')}`);
    return { account: parsed.data.data?.account ?? null };
  }

  return {
    /** The account read back through `account(accountNumber)`; undefined when the tenant has none by that number. */
    async readAccount(accountNumber: string): Promise<GraphqlAccount | undefined> {
      let r = await once(accountNumber);
      if ('refused' in r) {
        deps.logger?.debug({ method: 'POST', path }, 'platform refused the token on GraphQL; renewing credentials');
        deps.auth.invalidate(r.refused);
        r = await once(accountNumber);
        if ('refused' in r) throw new PlatformFinalError(PLATFORM_ERROR_CODES.authFailed, at(200));
      }
      if (r.account === null) return undefined;
      const account = graphqlAccountSchema.safeParse(r.account);
      if (!account.success) throw new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, at(200), 'account is not the shape the query selects');
      return account.data;
    },
  };
}

export type GraphqlApi = ReturnType<typeof createGraphqlApi>;
