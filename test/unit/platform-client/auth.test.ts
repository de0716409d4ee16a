import { afterEach, describe, expect, it } from 'vitest';
import { createAuth, createPlatformClient, jwtExpiryMs, PlatformFinalError, PlatformTransientError } from '../../../clients/platform';
import { API_KEY, caught, configFor, fakeJwt, json, ORG_SECRET, startFakePlatform, type FakePlatform, type Seen } from './fake-platform';

let platform: FakePlatform | undefined;
afterEach(async () => {
  await platform?.close();
  platform = undefined;
});

const isGraphql = (req: Seen) => req.url === '/v1/graphql/';
const graphqlInput = (req: Seen) => (req.body as { variables: { input: Record<string, string> } }).variables.input;
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

function tokenResponse(token: string, refreshToken = 'refresh-abc', refreshExpiresIn = inAnHour() + 3600) {
  return { data: { obtainKrakenToken: { token, refreshToken, refreshExpiresIn } } };
}

function assertNoSecret(err: unknown, secrets: string[]) {
  for (const s of secrets) {
    expect(String(err)).not.toContain(s);
    expect(JSON.stringify(err)).not.toContain(s);
    expect((err as Error).stack ?? '').not.toContain(s);
  }
}

describe('token mode', () => {
  it('sends Authorization: Token <key> and never calls GraphQL', async () => {
    platform = await startFakePlatform((_req, res) => json(res, 404, { detail: 'The requested resource was not found.', code: 'not_found' }));
    const client = createPlatformClient(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'token' }));
    await client.getImportStatus('S', 'E');
    expect(platform.seen.map((r) => [r.url, r.headers['authorization']])).toEqual([['/v2/data-import/accounts/S/E/', `Token ${API_KEY}`]]);
  });

  it('fails with platform_auth_failed when no key is configured', async () => {
    const auth = createAuth(configFor('http://127.0.0.1:9', { PLATFORM_AUTH_MODE: 'token', PLATFORM_API_KEY: undefined }));
    await expect(auth.header()).rejects.toMatchObject({ code: 'platform_auth_failed' });
  });
});

describe('JWT mode', () => {
  it('obtains a token with the organisation key and sends Authorization: Token <token> (the data-import form of the API reference)', async () => {
    const token = fakeJwt(inAnHour());
    platform = await startFakePlatform((req, res) => (isGraphql(req) ? json(res, 200, tokenResponse(token)) : json(res, 201)));
    const client = createPlatformClient(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'jwt' }));
    await client.scheduleAccountCreation({ payload: { import_supplier: 'S' }, task_params: {} });
    await client.scheduleAccountCreation({ payload: { import_supplier: 'S' }, task_params: {} });
    const gql = platform.seen.filter(isGraphql);
    expect(gql).toHaveLength(1); // cached for the second call
    expect(graphqlInput(gql[0])).toEqual({ organizationSecretKey: ORG_SECRET });
    expect((gql[0].body as { query: string }).query).toContain('obtainKrakenToken(input: $input)');
    expect(platform.seen.filter((r) => !isGraphql(r)).map((r) => r.headers['authorization'])).toEqual([`Token ${token}`, `Token ${token}`]);
  });

  it('on 401 renews the token once and repeats the request with the new token', async () => {
    const first = fakeJwt(inAnHour(), 'first');
    const second = fakeJwt(inAnHour(), 'second');
    let issued = 0;
    platform = await startFakePlatform((req, res) => {
      if (isGraphql(req)) return json(res, 200, tokenResponse(issued++ === 0 ? first : second));
      if (req.headers['authorization'] === `Token ${second}`) return json(res, 201);
      return json(res, 401, { detail: 'Signature has expired.', code: 'authentication_failed' });
    });
    const client = createPlatformClient(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'jwt' }));
    const result = await client.scheduleAccountCreation({ payload: { import_supplier: 'S' }, task_params: {} });
    expect(result.kind).toBe('accepted');
    const gql = platform.seen.filter(isGraphql);
    expect(gql).toHaveLength(2);
    // The refresh token from the first answer is used before the organisation key.
    expect(graphqlInput(gql[1])).toEqual({ refreshToken: 'refresh-abc' });
    const calls = platform.seen.filter((r) => !isGraphql(r));
    expect(calls.map((r) => r.headers['authorization'])).toEqual([`Token ${first}`, `Token ${second}`]);
  });

  it('a second 401 is PlatformFinalError platform_auth_failed, with no secret in the error', async () => {
    const token = fakeJwt(inAnHour());
    platform = await startFakePlatform((req, res) =>
      isGraphql(req) ? json(res, 200, tokenResponse(token)) : json(res, 401, { detail: 'Invalid token.', code: 'authentication_failed' }),
    );
    const client = createPlatformClient(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'jwt' }));
    const err = await caught(client.scheduleAccountCreation({ payload: { import_supplier: 'S' }, task_params: {} }));
    expect(err).toBeInstanceOf(PlatformFinalError);
    expect(err).toMatchObject({ code: 'platform_auth_failed', status: 401, path: '/v2/data-import/accounts/' });
    expect(platform.seen.filter((r) => !isGraphql(r))).toHaveLength(2);
    assertNoSecret(err, [token, ORG_SECRET, 'refresh-abc']);
  });

  it('GraphQL errors become platform_auth_failed carrying the error code but never the key', async () => {
    platform = await startFakePlatform((_req, res) =>
      json(res, 200, {
        data: { obtainKrakenToken: null },
        errors: [{ message: `Invalid data: ${ORG_SECRET}`, extensions: { errorCode: 'KT-CT-1135' } }],
      }),
    );
    const auth = createAuth(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'jwt' }));
    const err = await caught(auth.header());
    expect(err).toBeInstanceOf(PlatformFinalError);
    expect(err).toMatchObject({ code: 'platform_auth_failed' });
    expect(String(err)).toContain('KT-CT-1135');
    assertNoSecret(err, [ORG_SECRET]);
  });

  it('a token endpoint that is down is transient, not an auth failure', async () => {
    platform = await startFakePlatform((_req, res) => json(res, 502));
    const auth = createAuth(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'jwt' }));
    const err = await caught(auth.header());
    expect(err).toBeInstanceOf(PlatformTransientError);
    expect(err).toMatchObject({ code: 'platform_unavailable', status: 502 });
  });

  it('concurrent callers share one token request', async () => {
    const token = fakeJwt(inAnHour());
    platform = await startFakePlatform(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 50));
      json(res, 200, tokenResponse(token));
    });
    const auth = createAuth(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'jwt' }));
    const headers = await Promise.all([auth.header(), auth.header(), auth.header(), auth.header()]);
    expect(new Set(headers)).toEqual(new Set([`Token ${token}`]));
    expect(platform.seen).toHaveLength(1);
  });

  it('renews shortly before exp; uses the refresh token while it lives, the organisation key after', async () => {
    let clock = Date.UTC(2030, 0, 1);
    const sec = () => Math.floor(clock / 1000);
    let n = 0;
    platform = await startFakePlatform((_req, res) => {
      n += 1;
      // 10-minute tokens; the refresh token lives 15 minutes from first issue.
      json(res, 200, tokenResponse(fakeJwt(sec() + 600, `t${n}`), `refresh-${n}`, Math.floor(Date.UTC(2030, 0, 1) / 1000) + 900));
    });
    const auth = createAuth(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'jwt' }), { now: () => clock });
    const h1 = await auth.header();
    clock += 8 * 60_000; // still more than a minute before exp
    expect(await auth.header()).toBe(h1);
    expect(platform.seen).toHaveLength(1);

    clock += 90_000; // within the last minute: renew with the refresh token
    const h2 = await auth.header();
    expect(h2).not.toBe(h1);
    expect(graphqlInput(platform.seen[1])).toEqual({ refreshToken: 'refresh-1' });

    clock += 10 * 60_000; // token and refresh token both expired
    await auth.header();
    expect(graphqlInput(platform.seen[2])).toEqual({ organizationSecretKey: ORG_SECRET });
  });

  it('falls back to the organisation key when the refresh token is refused', async () => {
    let n = 0;
    platform = await startFakePlatform((req, res) => {
      n += 1;
      if ('refreshToken' in graphqlInput(req))
        return json(res, 200, { data: null, errors: [{ message: 'Invalid data.', extensions: { errorCode: 'KT-CT-1134' } }] });
      json(res, 200, tokenResponse(fakeJwt(inAnHour(), `t${n}`)));
    });
    const auth = createAuth(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'jwt' }));
    const h1 = await auth.header();
    auth.invalidate(h1);
    const h2 = await auth.header();
    expect(h2).not.toBe(h1);
    expect(platform.seen.map(graphqlInput).map((i) => Object.keys(i)[0])).toEqual(['organizationSecretKey', 'refreshToken', 'organizationSecretKey']);
  });

  it.each([
    ['APIKey', { PLATFORM_TOKEN_INPUT: 'APIKey' as const }, { APIKey: API_KEY }],
    ['preSignedKey', { PLATFORM_TOKEN_INPUT: 'preSignedKey' as const, PLATFORM_PRESIGNED_KEY: 'psk-1' }, { preSignedKey: 'psk-1' }],
    ['refreshToken', { PLATFORM_TOKEN_INPUT: 'refreshToken' as const, PLATFORM_REFRESH_TOKEN: 'rt-given' }, { refreshToken: 'rt-given' }],
    [
      'preSignedKey (chosen because it is the one configured)',
      { PLATFORM_ORGANIZATION_SECRET_KEY: undefined, PLATFORM_PRESIGNED_KEY: 'psk-2' },
      { preSignedKey: 'psk-2' },
    ],
  ])('obtains the first token with the %s input, standalone', async (_name, overrides, expected) => {
    const token = fakeJwt(inAnHour());
    platform = await startFakePlatform((_req, res) => json(res, 200, tokenResponse(token)));
    const auth = createAuth(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'jwt', ...overrides }));
    expect(await auth.header()).toBe(`Token ${token}`);
    expect(graphqlInput(platform.seen[0])).toEqual(expected);
  });

  it('a configured input without its value fails with platform_auth_failed naming the variable', async () => {
    const auth = createAuth(configFor('http://127.0.0.1:9', { PLATFORM_AUTH_MODE: 'jwt', PLATFORM_TOKEN_INPUT: 'preSignedKey' }));
    const err = await caught(auth.header());
    expect(err).toMatchObject({ code: 'platform_auth_failed' });
    expect(String(err)).toContain('PLATFORM_PRESIGNED_KEY');
  });

  it('jwtExpiryMs reads exp without verifying; garbage gives undefined', () => {
    expect(jwtExpiryMs(fakeJwt(1_900_000_000))).toBe(1_900_000_000_000);
    expect(jwtExpiryMs('not-a-jwt')).toBeUndefined();
    expect(jwtExpiryMs('a.!!!.c')).toBeUndefined();
  });
});

describe('ordinary REST endpoints (sandbox/README.md, "Credentials", rule 5)', () => {
  it('PLATFORM_REST_AUTH=basic sends the API key by HTTP Basic with an empty password; data-import keeps the token', async () => {
    platform = await startFakePlatform((req, res) =>
      req.url.startsWith('/v1/accounts/') ? json(res, 200, { number: 'A-1' }) : json(res, 404, { detail: 'x', code: 'not_found' }),
    );
    const client = createPlatformClient(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'token', PLATFORM_REST_AUTH: 'basic' }));
    expect(await client.getAccount('A-1')).toMatchObject({ number: 'A-1' });
    await client.getImportStatus('S', 'E');
    const [account, status] = platform.seen;
    expect(account.headers['authorization']).toBe(`Basic ${Buffer.from(`${API_KEY}:`).toString('base64')}`);
    expect(status.headers['authorization']).toBe(`Token ${API_KEY}`);
  });

  it('by default the ordinary REST endpoints get the same token', async () => {
    platform = await startFakePlatform((_req, res) => json(res, 404, { detail: 'x', code: 'not_found' }));
    const client = createPlatformClient(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'token' }));
    expect(await client.getAccount('A-1')).toBeUndefined();
    expect(platform.seen[0].headers['authorization']).toBe(`Token ${API_KEY}`);
  });
});

describe('secrets in transient errors', () => {
  it('a dropped connection error carries neither key nor token', async () => {
    platform = await startFakePlatform((_req, _res, raw) => {
      raw.socket.destroy();
    });
    const client = createPlatformClient(configFor(platform.origin, { PLATFORM_AUTH_MODE: 'token' }));
    const err = await caught(client.getImportStatus('S', 'E'));
    expect(err).toBeInstanceOf(PlatformTransientError);
    assertNoSecret(err, [API_KEY, ORG_SECRET, platform.origin]);
  });
});
