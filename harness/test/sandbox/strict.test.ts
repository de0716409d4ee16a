import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract, requestExample } from '../../../contract';
import { createAuth, createPlatformClient, runPlatformCheck, type PlatformClientConfig } from '../../../clients/platform';
import { undeclaredProperties } from '../../sandbox/openapi/strict';
import { admin, api, API_KEY, minimalAccount, ORG_KEY, startStack, window, type Stack } from './harness';

describe('undeclared properties (pure)', () => {
  const schemas = loadContract().components.schemas;

  it("the spec's example payload declares everything it sends, except ledgers (the listed assumption)", () => {
    const payload = requestExample('/v2/data-import/accounts/', 'post') as Record<string, unknown>;
    expect(undeclaredProperties(schemas, 'ScheduleAccountCreation', { payload, task_params: {} })).toEqual([]);
    expect(undeclaredProperties(schemas, 'ScheduleAccountCreation', { payload, task_params: {} }, {})).toEqual(['payload.ledgers']);
  });

  it('finds an undeclared property at any depth, through discriminated meter points, and not in free-form values', () => {
    const payload = structuredClone(requestExample('/v2/data-import/accounts/', 'post')) as any;
    payload.customers[0].nickname = 'x';
    payload.supply_addresses[0].meter_points[0].meters[0].registers[0].colour = 'red';
    // A gas-only field on the electricity meter point: the discriminator picks the electricity schema.
    payload.supply_addresses[0].meter_points[0].shipper_mpid = 'TCL';
    payload.metadata[0].value = { anything: { goes: true } };
    payload.surprise = 1;
    expect(undeclaredProperties(schemas, 'ScheduleAccountCreation', { payload, task_params: {}, extra: true }).sort()).toEqual(
      [
        'extra',
        'payload.customers.0.nickname',
        'payload.supply_addresses.0.meter_points.0.meters.0.registers.0.colour',
        'payload.supply_addresses.0.meter_points.0.shipper_mpid',
        'payload.surprise',
      ].sort(),
    );
  });
});

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('strict', { strict: true });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);

const violations = async () =>
  await admin<{ strict: boolean; count: number; violations: Array<{ kind: string; detail: string; path: string }> }>(stack, 'GET', '/admin/violations');

function clientConfig(overrides: Partial<PlatformClientConfig> = {}): PlatformClientConfig {
  return {
    PLATFORM_BASE_URL: `${stack.baseUrl}/v1/`,
    PLATFORM_V2_BASE_URL: `${stack.baseUrl}/v2/`,
    PLATFORM_GRAPHQL_URL: `${stack.baseUrl}/v1/graphql/`,
    PLATFORM_AUTH_MODE: 'jwt',
    PLATFORM_API_KEY: API_KEY,
    PLATFORM_ORGANIZATION_SECRET_KEY: ORG_KEY,
    PLATFORM_HTTP_TIMEOUT_MS: 5_000,
    ...overrides,
  };
}

describe('strict sandbox mode', () => {
  it('platform check passes against the strict sandbox with zero violations; the client schedules and reads without one', async () => {
    await admin(stack, 'DELETE', '/admin/violations');
    const cfg = clientConfig();
    const auth = createAuth(cfg);
    const client = createPlatformClient(cfg, { auth });
    const result = await runPlatformCheck({ client, auth, authMode: 'jwt', supplierCode: 'DEMO-SUPPLIER', nonce: 'STRICT1' });
    expect(result.steps.map((s) => [s.step, s.ok, s.status])).toEqual([
      ['token', true, 200],
      ['catalogue', true, 200],
      ['validate', true, 200],
      ['import_status', true, 404],
    ]);
    expect(result.ok).toBe(true);
    const scheduled = await client.scheduleAccountCreation({ payload: minimalAccount('STRICT-OK-1') as never, task_params: { is_dry_run: true, ...window() } });
    expect(scheduled.kind).toBe('accepted');
    for await (const _ of client.getStandardUnitRates('VAR-22-11-01', 'E-1R-VAR-22-11-01-C', {
      periodFrom: '2024-01-01T00:00:00Z',
      periodTo: '2024-01-01T01:00:00Z',
    }))
      break;
    expect(await client.tariffPreflight().check([{ code: 'E-1R-VAR-22-11-01-C', fuel: 'electricity' }])).toMatchObject([{ verdict: 'confirmed' }]);
    expect(await violations()).toMatchObject({ strict: true, count: 0 });
  });

  it('a wrong check (bad key) fails its steps with status and reason, exit code non-zero', async () => {
    const cfg = clientConfig({ PLATFORM_ORGANIZATION_SECRET_KEY: 'wrong-key-0123456789' });
    const auth = createAuth(cfg);
    const result = await runPlatformCheck({ client: createPlatformClient(cfg, { auth }), auth, authMode: 'jwt', supplierCode: 'DEMO-SUPPLIER' });
    expect(result.ok).toBe(false);
    expect(result.steps[0]).toMatchObject({ step: 'token', ok: false });
    expect(result.steps[0].reason).toContain('KT-CT-1135');
    expect(result.steps[1]).toMatchObject({ step: 'catalogue', ok: true }); // public: no token needed
    expect(result.steps[2]).toMatchObject({ step: 'validate', ok: false });
  });

  it('answers each kind of violation 4xx and records it', async () => {
    await admin(stack, 'DELETE', '/admin/violations');
    const token = await createAuth(clientConfig()).header(); // `Token <jwt>`
    const jwt = token.slice('Token '.length);
    const cases: Array<[string, string, string, unknown, string, number, string]> = [
      ['auth form', 'GET', '/v2/data-import/accounts/DEMO-SUPPLIER/X/', undefined, `JWT ${jwt}`, 401, 'auth'],
      [
        'undeclared nested property',
        'POST',
        '/v2/data-import/accounts/validate/',
        { payload: { ...minimalAccount('V-1'), customers: [{ given_name: 'A', family_name: 'B', nickname: 'x' }] } },
        token,
        400,
        'body',
      ],
      ['unknown path', 'GET', '/v2/data-import/everything/', undefined, token, 404, 'path'],
      ['wrong method', 'DELETE', '/v2/data-import/accounts/', undefined, token, 405, 'method'],
      ['undeclared query', 'GET', '/v1/products/?available_at=2024-01-01T00:00:00Z', undefined, '', 400, 'query'],
      ['credentials on a public endpoint', 'GET', '/v1/products/', undefined, token, 401, 'auth'],
    ];
    for (const [name, method, path, body, auth, status, kind] of cases) {
      const r = await api(stack, method, path, body, auth);
      expect([name, r.status, r.json?.code]).toEqual([name, status, 'contract_violation']);
      expect(r.json.violations[0].kind).toBe(kind);
    }
    const gql = await fetch(`${stack.baseUrl}/v1/graphql/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation { obtainKrakenToken(input: $input) { token secret } }',
        variables: { input: { organizationSecretKey: ORG_KEY, APIKey: API_KEY } },
      }),
    });
    expect(gql.status).toBe(400);
    const v = await violations();
    expect(v.count).toBe(cases.length + 2); // the mutation: an undeclared result field, two inputs at once
    expect(v.violations.map((x) => x.detail)).toContainEqual(expect.stringContaining('undeclared property payload.customers.0.nickname'));
    expect(v.violations.map((x) => x.detail)).toContainEqual('ObtainKrakenJSONWebToken has no field secret');
  });
});
