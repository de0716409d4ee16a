import { afterEach, describe, expect, it } from 'vitest';
import { createPlatformClient, PlatformFinalError, PlatformTransientError, USER_AGENT, type PlatformClientConfig } from '../../../clients/platform';
import type { ScheduleAccountCreation } from '../../../schemas/account';
import type { PlatformLogger } from '../../../clients/platform';
import { API_KEY, caught, configFor, json, startFakePlatform, type FakePlatform, type Handler } from './fake-platform';

const request: ScheduleAccountCreation = {
  payload: { import_supplier: 'DEMO-SUPPLIER', external_account_number: 'EXT-0001', billing_name: 'Bob Example' },
  task_params: { is_dry_run: false, schedule_window_start: '2030-01-01T00:00:00Z', schedule_window_end: '2030-01-03T00:00:00Z' },
};

let platform: FakePlatform | undefined;
afterEach(async () => {
  await platform?.close();
  platform = undefined;
});

async function clientFor(handler: Handler, overrides: Partial<PlatformClientConfig> = {}) {
  platform = await startFakePlatform(handler);
  return { client: createPlatformClient(configFor(platform.origin, overrides)), platform };
}

describe('scheduleAccountCreation', () => {
  it('posts {payload, task_params} to the v2 accounts endpoint and reports 201 as accepted', async () => {
    const { client, platform } = await clientFor((_req, res) => json(res, 201));
    const result = await client.scheduleAccountCreation(request, { idempotencyKey: 'run-1:EXT-0001' });
    expect(result).toEqual({ kind: 'accepted', body: undefined });
    const [seen] = platform.seen;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/v2/data-import/accounts/');
    expect(seen.body).toEqual(request);
    expect(seen.headers['authorization']).toBe(`Token ${API_KEY}`);
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['user-agent']).toBe(USER_AGENT);
    expect(USER_AGENT).toMatch(/^kraken-migrate\/\d+\.\d+\.\d+/);
    expect(seen.headers['idempotency-key']).toBe('run-1:EXT-0001');
  });

  it('returns validation_failed with the platform codes and attrs', async () => {
    const { client } = await clientFor((_req, res) =>
      json(res, 400, {
        detail: 'Account failed validation.',
        code: 'account_failed_validation',
        errors: [
          { detail: 'abcde is not a valid phone number', code: 'invalid_phone_number', attr: 'customers.0.landline' },
          { detail: 'Tariff not found', code: 'tariff_code_not_found', attr: 'supply_addresses.0.meter_points.0.agreements.0.tariff_code' },
        ],
      }),
    );
    const result = await client.scheduleAccountCreation(request);
    expect(result.kind).toBe('validation_failed');
    if (result.kind !== 'validation_failed') return;
    expect(result.errors.map((e) => [e.code, e.attr])).toEqual([
      ['invalid_phone_number', 'customers.0.landline'],
      ['tariff_code_not_found', 'supply_addresses.0.meter_points.0.agreements.0.tariff_code'],
    ]);
  });

  it('returns import_process_failed_validation with detail and domain', async () => {
    const { client } = await clientFor((_req, res) =>
      json(res, 400, { code: 'import_process_failed_validation', detail: 'Import process validation failed.', domain: 'import_process' }),
    );
    expect(await client.scheduleAccountCreation(request)).toEqual({
      kind: 'import_process_failed_validation',
      detail: 'Import process validation failed.',
      domain: 'import_process',
    });
  });

  it('returns already_imported with the existing account number', async () => {
    const { client } = await clientFor((_req, res) =>
      json(res, 400, {
        non_field_errors: {
          detail: 'The account import process with the account number EXT-0001 has already been imported.',
          code: 'account_import_process_already_imported',
        },
        account_id: 'A-12345678',
      }),
    );
    expect(await client.scheduleAccountCreation(request)).toEqual({ kind: 'already_imported', accountNumber: 'A-12345678' });
  });

  it('returns supplier_not_ongoing when the import supplier is paused or complete', async () => {
    const { client } = await clientFor((_req, res) =>
      json(res, 400, {
        detail: 'Account failed validation.',
        code: 'account_failed_validation',
        errors: [{ detail: 'Import supplier is paused.', code: 'import_supplier_migration_not_ongoing', attr: 'import_supplier' }],
      }),
    );
    expect(await client.scheduleAccountCreation(request)).toEqual({ kind: 'supplier_not_ongoing', detail: 'Import supplier is paused.' });
  });

  it('throws PlatformTransientError platform_unavailable on 500', async () => {
    const { client } = await clientFor((_req, res) => json(res, 500, { detail: 'Server error' }));
    const err = await caught(client.scheduleAccountCreation(request));
    expect(err).toBeInstanceOf(PlatformTransientError);
    expect(err).toMatchObject({ code: 'platform_unavailable', status: 500, method: 'POST', path: '/v2/data-import/accounts/', retryable: true });
  });

  it('throws PlatformTransientError platform_unavailable when the connection is dropped', async () => {
    const { client } = await clientFor((_req, _res, raw) => {
      raw.socket.destroy();
    });
    const err = await caught(client.scheduleAccountCreation(request));
    expect(err).toBeInstanceOf(PlatformTransientError);
    expect(err).toMatchObject({ code: 'platform_unavailable', reason: 'network', status: undefined });
  });

  it('throws PlatformTransientError on timeout', async () => {
    const { client } = await clientFor(() => new Promise<void>(() => {}), { PLATFORM_HTTP_TIMEOUT_MS: 150 });
    const err = await caught(client.scheduleAccountCreation(request));
    expect(err).toBeInstanceOf(PlatformTransientError);
    expect(err).toMatchObject({ code: 'platform_unavailable', reason: 'timeout' });
  });

  it('throws platform_rate_limited with retryAfterMs from Retry-After seconds', async () => {
    const { client } = await clientFor((_req, res) => json(res, 429, { detail: 'Slow down' }, { 'Retry-After': '3' }));
    const err = await caught(client.scheduleAccountCreation(request));
    expect(err).toBeInstanceOf(PlatformTransientError);
    expect(err).toMatchObject({ code: 'platform_rate_limited', status: 429, retryAfterMs: 3000 });
  });

  it('throws PlatformFinalError platform_rejected for a 400 that says nothing, another 4xx, or a non-JSON 400', async () => {
    const bodies = [
      (res: Parameters<Handler>[1]) => json(res, 400, {}),
      (res: Parameters<Handler>[1]) => json(res, 404, { detail: 'Not found', code: 'not_found' }),
      (res: Parameters<Handler>[1]) => {
        res.writeHead(400, { 'Content-Type': 'text/html' });
        res.end('<html>bad</html>');
      },
    ];
    let i = 0;
    const { client } = await clientFor((_req, res) => bodies[i++](res));
    for (const status of [400, 404, 400]) {
      const err = await caught(client.scheduleAccountCreation(request));
      expect(err).toBeInstanceOf(PlatformFinalError);
      expect(err).toMatchObject({ code: 'platform_rejected', status, retryable: false });
    }
  });
});

describe('validateAccount', () => {
  it('posts {payload} to the validate endpoint: 200 is ok, 400 gives the errors', async () => {
    let answer = 200;
    const { client, platform } = await clientFor((_req, res) =>
      answer === 200
        ? json(res, 200)
        : json(res, 400, {
            detail: 'Account failed validation.',
            code: 'account_failed_validation',
            errors: [{ detail: 'Invalid postcode', code: 'invalid_postcode', attr: 'supply_addresses.0.supply_postcode' }],
          }),
    );
    expect(await client.validateAccount(request.payload)).toEqual({ ok: true });
    expect(platform.seen[0].url).toBe('/v2/data-import/accounts/validate/');
    expect(platform.seen[0].body).toEqual({ payload: request.payload });
    answer = 400;
    const result = await client.validateAccount(request.payload);
    expect(result).toMatchObject({ ok: false, errors: [{ code: 'invalid_postcode', attr: 'supply_addresses.0.supply_postcode' }] });
  });

  it('throws transient on 503', async () => {
    const { client } = await clientFor((_req, res) => json(res, 503));
    await expect(client.validateAccount(request.payload)).rejects.toMatchObject({ code: 'platform_unavailable', status: 503 });
  });
});

describe('getImportStatus', () => {
  it('reads the status of an import and answers undefined on 404', async () => {
    const { client, platform } = await clientFor((req, res) =>
      req.url.endsWith('/EXT%2F0001/')
        ? json(res, 200, {
            status: 'PROCESSED',
            kraken_identifier: 'A-E8981832',
            created_at: '2025-10-07T09:00:21.179194+02:00',
            modified_at: '2025-10-07T09:06:38.078396+02:00',
            latest_event: { event: 'EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED', occurred_at: '2025-10-07T09:06:38.078396+02:00', data: null },
            latest_error: null,
          })
        : json(res, 404, { detail: 'The requested resource was not found.', code: 'not_found' }),
    );
    const status = await client.getImportStatus('DEMO-SUPPLIER', 'EXT/0001');
    expect(status).toMatchObject({ status: 'PROCESSED', kraken_identifier: 'A-E8981832' });
    expect(platform.seen[0].url).toBe('/v2/data-import/accounts/DEMO-SUPPLIER/EXT%2F0001/');
    expect(await client.getImportStatus('DEMO-SUPPLIER', 'EXT-9999')).toBeUndefined();
  });

  it('reads a status the spec does not show (a free string there), logging it once, never failing', async () => {
    const body = {
      status: 'AWAITING_REVIEW',
      kraken_identifier: null,
      created_at: '2025-10-07T09:00:21.179194+02:00',
      modified_at: '2025-10-07T09:06:38.078396+02:00',
      latest_event: { event: 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED', occurred_at: '2025-10-07T09:00:21.179194+02:00', data: null },
      latest_error: null,
    };
    platform = await startFakePlatform((_req, res) => json(res, 200, body));
    const warned: unknown[] = [];
    const logger = { debug: () => {}, warn: (o: unknown) => void warned.push(o) };
    const client = createPlatformClient(configFor(platform.origin), { logger: logger as unknown as PlatformLogger });
    for (let i = 0; i < 3; i++) expect((await client.getImportStatus('S', 'E'))?.status).toBe('AWAITING_REVIEW');
    expect(warned).toEqual([{ status: 'AWAITING_REVIEW', code: 'import_status_unknown' }]);
  });
});

describe('base URLs', () => {
  it('works against a tenant-style base with a path prefix and no trailing slash', async () => {
    platform = await startFakePlatform((_req, res) => json(res, 201));
    const client = createPlatformClient(configFor(platform.origin, { PLATFORM_V2_BASE_URL: `${platform.origin}/tenant/v2` }));
    await client.scheduleAccountCreation(request);
    expect(platform.seen[0].url).toBe('/tenant/v2/data-import/accounts/');
  });
});

describe('logging', () => {
  it('logs method, path and status only: no body, no credentials', async () => {
    const lines: unknown[] = [];
    const logger = { debug: (...a: unknown[]) => void lines.push(a), warn: (...a: unknown[]) => void lines.push(a) };
    platform = await startFakePlatform((_req, res) => json(res, 201, { ok: true }));
    const client = createPlatformClient(configFor(platform.origin), { logger: logger as unknown as PlatformLogger });
    await client.scheduleAccountCreation(request);
    const logged = JSON.stringify(lines);
    expect(lines.length).toBeGreaterThan(0);
    expect(logged).toContain('/v2/data-import/accounts/');
    expect(logged).toContain('201');
    for (const secret of [API_KEY, 'Bob Example', 'EXT-0001']) expect(logged).not.toContain(secret);
  });
});
