import { describe, expect, it } from 'vitest';
import { createGraphqlApi, graphqlAuthorization } from '../../../clients/platform/graphql';
import { PlatformFinalError, PlatformTransientError, type PlatformAuth } from '../../../clients/platform';
import { ACCOUNT_READ_BACK_QUERY } from '../../../contract/graphql';

const ACCOUNT = {
  number: 'A-1',
  balance: 4217,
  ledgers: [{ number: 'L-1', ledgerType: 'MAIN', balance: 4217, amountOwedByCustomer: -4217 }],
  users: [{ givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com', mobile: '+447700900123', landline: '', dateOfBirth: '1990-01-02' }],
  billingName: 'Ada Lovelace',
  billingAddressLine1: '1 Road',
  billingAddressLine2: null,
  billingAddressLine3: null,
  billingAddressLine4: null,
  billingAddressLine5: null,
  billingAddressPostcode: 'SW1A 1AA',
};

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

function harness(answers: Answer[]) {
  const sent: Array<{ authorization: string | null; body: { query: string; variables: unknown } }> = [];
  let n = 0;
  const invalidated: Array<string | undefined> = [];
  const auth: PlatformAuth = {
    header: () => Promise.resolve(`Token jwt-${n}`),
    invalidate: (r) => {
      invalidated.push(r);
    },
  };
  const fetch = (async (_url: unknown, init?: RequestInit) => {
    const h = new Headers(init?.headers);
    sent.push({ authorization: h.get('authorization'), body: JSON.parse(String(init?.body)) });
    const a = answers[Math.min(n++, answers.length - 1)];
    return new Response(JSON.stringify(a.body), { status: a.status, headers: a.headers });
  }) as typeof globalThis.fetch;
  const api = createGraphqlApi({ PLATFORM_GRAPHQL_URL: 'http://tenant.test/v1/graphql/', PLATFORM_HTTP_TIMEOUT_MS: 1000 }, { fetch, auth });
  return { api, sent, invalidated };
}

describe('GraphQL account read-back client', () => {
  it('posts the contract query with the account number and the bare token in Authorization, as the tenant documents', async () => {
    const h = harness([{ status: 200, body: { data: { account: ACCOUNT } } }]);
    expect(await h.api.readAccount('A-1')).toEqual(ACCOUNT);
    expect(h.sent).toEqual([{ authorization: 'jwt-0', body: { query: ACCOUNT_READ_BACK_QUERY, variables: { accountNumber: 'A-1' } } }]);
    expect(graphqlAuthorization('Token abc')).toBe('abc');
    expect(graphqlAuthorization('abc')).toBe('abc');
  });

  it('an account the tenant does not have is undefined', async () => {
    expect(await harness([{ status: 200, body: { data: { account: null } } }]).api.readAccount('A-9')).toBeUndefined();
  });

  it('a refused token (KT-CT-1111, 1112, 1124, or HTTP 401) is renewed once and the read repeated', async () => {
    for (const first of [
      { status: 200, body: { data: { account: null }, errors: [{ message: 'x', extensions: { errorCode: 'KT-CT-1124' } }] } },
      { status: 200, body: { errors: [{ message: 'x', extensions: { errorCode: 'KT-CT-1112' } }] } },
      { status: 200, body: { errors: [{ message: 'x', extensions: { errorCode: 'KT-CT-1111' } }] } },
      { status: 401, body: {} },
    ]) {
      const h = harness([first, { status: 200, body: { data: { account: ACCOUNT } } }]);
      expect(await h.api.readAccount('A-1')).toEqual(ACCOUNT);
      expect(h.invalidated).toEqual(['Token jwt-0']);
      expect(h.sent.map((s) => s.authorization)).toEqual(['jwt-0', 'jwt-1']);
    }
  });

  it('a token refused twice is final (auth), with no second renewal', async () => {
    const h = harness([{ status: 200, body: { errors: [{ message: 'x', extensions: { errorCode: 'KT-CT-1111' } }] } }]);
    const err = await h.api.readAccount('A-1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformFinalError);
    expect((err as PlatformFinalError).code).toBe('platform_auth_failed');
    expect(h.sent).toHaveLength(2);
  });

  it('429, 408 and 5xx are transient (Retry-After kept); other statuses, other GraphQL errors and a wrong shape are final', async () => {
    const transient = await harness([{ status: 429, body: {}, headers: { 'retry-after': '7' } }])
      .api.readAccount('A-1')
      .catch((e: unknown) => e);
    expect(transient).toBeInstanceOf(PlatformTransientError);
    expect((transient as PlatformTransientError).retryAfterMs).toBe(7000);
    for (const status of [408, 500, 503])
      expect(
        await harness([{ status, body: {} }])
          .api.readAccount('A-1')
          .catch((e: unknown) => e),
      ).toBeInstanceOf(PlatformTransientError);
    expect(
      await harness([{ status: 404, body: {} }])
        .api.readAccount('A-1')
        .catch((e: unknown) => e),
    ).toBeInstanceOf(PlatformFinalError);
    const coded = await harness([{ status: 200, body: { errors: [{ message: 'Ada Lovelace', extensions: { errorCode: 'KT-CT-4177' } }] } }])
      .api.readAccount('A-1')
      .catch((e: unknown) => e);
    expect(coded).toBeInstanceOf(PlatformFinalError);
    expect(String((coded as Error).message)).toContain('KT-CT-4177');
    expect(String((coded as Error).message)).not.toContain('Ada');
    const shape = await harness([{ status: 200, body: { data: { account: { ...ACCOUNT, balance: 42.17 } } } }])
      .api.readAccount('A-1')
      .catch((e: unknown) => e);
    expect(shape).toBeInstanceOf(PlatformFinalError);
    expect((shape as PlatformFinalError).code).toBe('platform_rejected');
  });
});
