import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, api, API_KEY, minimalAccount, ORG_KEY, schedule, startStack, type Stack } from './harness';
import { catalogueTariffCodes, defaultCatalogue } from '../../sandbox/catalogue';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('auth');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);

const MUTATION = `mutation Obtain($input: ObtainJSONWebTokenInput!) {
  obtainKrakenToken(input: $input) { token payload refreshToken refreshExpiresIn }
}`;

async function obtain(input: Record<string, string>) {
  const res = await fetch(`${stack.baseUrl}/v1/graphql/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: MUTATION, variables: { input } }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('obtainKrakenToken', () => {
  it('issues an HS256 JWT for the organisation secret key, accepted only as Token <jwt> (the API reference; sandbox/README.md records what it states); every other form is 401', async () => {
    const { status, body } = await obtain({ organizationSecretKey: ORG_KEY });
    expect(status).toBe(200);
    const t = body.data.obtainKrakenToken;
    expect(t.token.split('.')).toHaveLength(3);
    expect(JSON.parse(Buffer.from(t.token.split('.')[0], 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(t.payload.exp - t.payload.iat).toBe(3600);
    expect(t.refreshExpiresIn).toBeGreaterThan(Math.floor(Date.now() / 1000) + 3600);
    const ok = await api(stack, 'GET', '/v2/data-import/accounts/DEMO-SUPPLIER/NOPE-1/', undefined, `Token ${t.token}`);
    expect(ok.status).toBe(404); // authenticated: the import is just unknown
    const basic = `Basic ${Buffer.from(`${API_KEY}:`).toString('base64')}`;
    for (const auth of [`JWT ${t.token}`, `Bearer ${t.token}`, t.token, `token ${t.token}`, basic, `Token${t.token}`]) {
      const r = await api(stack, 'GET', '/v2/data-import/accounts/DEMO-SUPPLIER/NOPE-1/', undefined, auth);
      expect(r.status, auth.slice(0, 6)).toBe(401);
    }
  });

  it('refreshes with the refresh token and refuses bad credentials with KT-CT-1135 over HTTP 200', async () => {
    const first = (await obtain({ organizationSecretKey: ORG_KEY })).body.data.obtainKrakenToken;
    const refreshed = await obtain({ refreshToken: first.refreshToken });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data.obtainKrakenToken.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(refreshed.body.data.obtainKrakenToken.payload.origIat).toBe(first.payload.origIat);

    const badInputs: Array<Record<string, string>> = [{ organizationSecretKey: 'wrong' }, { refreshToken: first.token }, {}];
    for (const input of badInputs) {
      const bad = await obtain(input);
      expect(bad.status).toBe(200);
      expect(bad.body.data.obtainKrakenToken).toBeNull();
      expect(bad.body.errors[0].extensions.errorCode).toBe('KT-CT-1135');
    }
  });

  it('answers 401 not_authenticated for missing or wrong credentials', async () => {
    const missing = await api(stack, 'POST', '/v2/data-import/accounts/', { payload: minimalAccount('AUTH-1') }, '');
    expect(missing.status).toBe(401);
    expect(missing.json.code).toBe('not_authenticated');
    expect(typeof missing.json.detail).toBe('string');
    for (const auth of ['Token wrong-key', 'JWT abc.def.ghi', 'Bearer nonsense']) {
      const r = await schedule(stack, minimalAccount('AUTH-1'), undefined, auth);
      expect(r.status).toBe(401);
      expect(r.json.code).toBe('not_authenticated');
    }
  });

  it('answers 401 token_expired once a short-lived token has expired', async () => {
    await admin(stack, 'PUT', '/admin/faults', { tokenTtlSeconds: 60 });
    try {
      const t = (await obtain({ organizationSecretKey: ORG_KEY })).body.data.obtainKrakenToken;
      expect(t.payload.exp - t.payload.iat).toBe(60);
      const read = () => api(stack, 'GET', '/v2/data-import/accounts/DEMO-SUPPLIER/X/', undefined, `Token ${t.token}`);
      // Still valid 59 s later (404: authenticated, no such import) ...
      await admin(stack, 'PUT', '/admin/faults', { clockOffsetSeconds: 59 });
      expect((await read()).status).toBe(404);
      // ... expired at its exp: the sandbox's clock moves, the test does not sleep.
      await admin(stack, 'PUT', '/admin/faults', { clockOffsetSeconds: 61 });
      const r = await read();
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ detail: expect.any(String), code: 'token_expired' });
    } finally {
      await admin(stack, 'PUT', '/admin/faults', { tokenTtlSeconds: 3600, clockOffsetSeconds: 0 });
    }
  });
});

describe('GraphQL queries', () => {
  async function query(text: string, token: string) {
    const res = await fetch(`${stack.baseUrl}/v1/graphql/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: token },
      body: JSON.stringify({ query: text }),
    });
    return (await res.json()) as any;
  }

  it('answers a text that does not parse or validate with its errors each time it is sent, and a valid one with data', async () => {
    const { token } = (await obtain({ organizationSecretKey: ORG_KEY })).body.data.obtainKrakenToken;
    for (let i = 0; i < 2; i++) {
      const unknownField = await query('query { account(accountNumber: "A-NOPE") { number overdraft } }', token);
      expect(unknownField.data).toBeUndefined();
      expect(unknownField.errors.map((e: { message: string }) => e.message)).toEqual(['Cannot query field "overdraft" on type "AccountType".']);
      const broken = await query('query { account(', token);
      expect(broken.data).toBeUndefined();
      expect(broken.errors).toHaveLength(1);
      expect(broken.errors[0].message).toMatch(/^Syntax Error: /);
      expect(await query('query { account(accountNumber: "A-NOPE") { number } }', token)).toEqual({ data: { account: null } });
    }
  });
});

describe('pre-signed keys and the APIKey input', () => {
  it('obtains a token with a pre-signed key the operator issued, and with the account user API key', async () => {
    const { preSignedKey } = await admin<{ preSignedKey: string }>(stack, 'POST', '/admin/pre-signed-keys', { ttlSeconds: 60 });
    for (const input of [{ preSignedKey }, { APIKey: API_KEY }] as Array<Record<string, string>>) {
      const t = (await obtain(input)).body.data.obtainKrakenToken;
      const r = await api(stack, 'GET', '/v2/data-import/accounts/DEMO-SUPPLIER/NOPE-2/', undefined, `Token ${t.token}`);
      expect(r.status).toBe(404);
    }
    expect((await obtain({ preSignedKey: 'forged.key.value' })).body.errors[0].extensions.errorCode).toBe('KT-CT-1135');
  });
});

describe('ordinary REST endpoints (sandbox/README.md, "Credentials", rule 5)', () => {
  it('GET /v1/accounts/<n>/ takes the API key by HTTP Basic with an empty password, or the token; a password or another form is 401', async () => {
    const basic = (user: string, pass = '') => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    expect((await api(stack, 'GET', '/v1/accounts/A-00000000/', undefined, basic(API_KEY))).status).toBe(404);
    expect((await api(stack, 'GET', '/v1/accounts/A-00000000/', undefined, `Token ${API_KEY}`)).status).toBe(404);
    for (const auth of [basic(API_KEY, 'x'), basic('wrong'), `Bearer ${API_KEY}`, '']) {
      expect((await api(stack, 'GET', '/v1/accounts/A-00000000/', undefined, auth)).status).toBe(401);
    }
  });
});

describe('public catalogue', () => {
  it('paginates /v1/products/ with absolute next links until the end, no duplicates', async () => {
    let url: string | null = `${stack.baseUrl}/v1/products/?page_size=40`;
    const codes: string[] = [];
    let count = -1;
    let pages = 0;
    while (url) {
      const res: Response = await fetch(url); // no auth: public
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        count: number;
        next: string | null;
        previous: string | null;
        results: Array<{ code: string; links: Array<{ href: string }> }>;
      };
      if (pages > 0) expect(body.previous).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/products\/\?/);
      else expect(body.previous).toBeNull();
      count = body.count;
      codes.push(...body.results.map((r) => r.code));
      expect(body.results[0].links[0].href).toBe(`${stack.baseUrl}/v1/products/${body.results[0].code}/`);
      url = body.next;
      pages++;
    }
    expect(count).toBe(defaultCatalogue().length);
    expect(count).toBeGreaterThan(100);
    expect(codes).toHaveLength(count);
    expect(new Set(codes).size).toBe(count);
    expect(pages).toBe(Math.ceil(count / 40));
    const defaultPage = (await (await fetch(`${stack.baseUrl}/v1/products/`)).json()) as { results: unknown[]; next: string };
    expect(defaultPage.results).toHaveLength(100);
    expect(new URL(defaultPage.next).searchParams.get('page')).toBe('2');
  });

  it('filters by brand, is_green and is_prepay (AND)', async () => {
    const body = (await (await fetch(`${stack.baseUrl}/v1/products/?brand=OCTOPUS_ENERGY&is_green=true&page_size=500`)).json()) as {
      count: number;
      results: any[];
    };
    const expected = defaultCatalogue().filter((p) => p.brand === 'OCTOPUS_ENERGY' && p.is_green);
    expect(body.count).toBe(expected.length);
    expect(body.results.every((p) => p.brand === 'OCTOPUS_ENERGY' && p.is_green === true)).toBe(true);
    const prepay = (await (await fetch(`${stack.baseUrl}/v1/products/?is_prepay=true`)).json()) as { count: number; results: any[] };
    expect(prepay.count).toBe(defaultCatalogue().filter((p) => p.is_prepay).length);
    expect(prepay.results.every((p) => p.is_prepay)).toBe(true);
    expect((await fetch(`${stack.baseUrl}/v1/products/?is_green=maybe`)).status).toBe(400);
  });

  it('shows region tariffs on the product and serves half-hour unit rates newest first', async () => {
    const res = await fetch(`${stack.baseUrl}/v1/products/VAR-22-11-01/`);
    expect(res.status).toBe(200);
    const p = (await res.json()) as any;
    expect(Object.keys(p.single_register_electricity_tariffs)).toHaveLength(14);
    const c = p.single_register_electricity_tariffs._C.direct_debit_monthly;
    expect(c.code).toBe('E-1R-VAR-22-11-01-C');
    expect(c.standard_unit_rate_inc_vat).toBeGreaterThan(c.standard_unit_rate_exc_vat);
    expect(p.single_register_gas_tariffs._C.direct_debit_monthly.code).toBe('G-1R-VAR-22-11-01-C');
    expect(catalogueTariffCodes()).toContain('E-1R-VAR-22-11-01-C');

    const rates = (await (
      await fetch(
        `${stack.baseUrl}/v1/products/VAR-22-11-01/electricity-tariffs/E-1R-VAR-22-11-01-C/standard-unit-rates/?period_from=2022-11-10T00:00:00Z&period_to=2022-11-11T00:00:00Z&page_size=20`,
      )
    ).json()) as any;
    expect(rates.count).toBe(48);
    expect(rates.results).toHaveLength(20);
    expect(rates.results[0]).toMatchObject({ valid_from: '2022-11-10T23:30:00Z', valid_to: '2022-11-11T00:00:00Z', payment_method: null });
    expect(rates.results[1].valid_from).toBe('2022-11-10T23:00:00Z');
    expect(new URL(rates.next).searchParams.get('page')).toBe('2');
    expect((await fetch(`${stack.baseUrl}/v1/products/VAR-22-11-01/electricity-tariffs/E-1R-AGILE-22-11-01-C/standard-unit-rates/`)).status).toBe(404);
    expect((await fetch(`${stack.baseUrl}/v1/products/NOPE/`)).status).toBe(404);
  });
});
