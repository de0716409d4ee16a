import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admin, api, minimalAccount, schedule, startStack, SUPPLIER, waitForStatus, type Stack } from './harness';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('faults');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);
beforeEach(async () => {
  await admin(stack, 'POST', '/admin/reset');
});

describe('request faults', () => {
  it('5xx rate 1.0: every data-import request fails with a 5xx; admin and catalogue are untouched', async () => {
    await admin(stack, 'PUT', '/admin/faults', { error5xxRate: 1 });
    for (let i = 0; i < 5; i++) {
      const r = await schedule(stack, minimalAccount(`FLT-1-${i}`));
      expect(r.status).toBeGreaterThanOrEqual(500);
      expect(r.status).toBeLessThan(600);
      expect(r.json.code).toBe('server_error');
    }
    expect((await fetch(`${stack.baseUrl}/v1/products/`)).status).toBe(200);
    const truth = await admin<any>(stack, 'GET', '/admin/ground-truth');
    expect(truth.accounts).toEqual([]); // nothing reached the application
  });

  it('429 rate 1.0: throttled with Retry-After seconds', async () => {
    await admin(stack, 'PUT', '/admin/faults', { error429Rate: 1, retryAfterSeconds: 7 });
    const r = await api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/X/`);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.json.code).toBe('throttled');
  });

  it('rates between 0 and 1 fail about that share of requests', async () => {
    await admin(stack, 'PUT', '/admin/faults', { error5xxRate: 0.5 });
    let failed = 0;
    for (let i = 0; i < 40; i++) if ((await api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/X/`)).status >= 500) failed++;
    expect(failed).toBeGreaterThan(8);
    expect(failed).toBeLessThan(32);
  });

  it('drop connection rate 1.0: the socket is destroyed without a response', async () => {
    await admin(stack, 'PUT', '/admin/faults', { dropConnectionRate: 1 });
    await expect(api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/X/`)).rejects.toThrow();
    expect((await fetch(`${stack.baseUrl}/admin/faults`)).status).toBe(200);
  });

  it('latency: requests take at least the configured mean minus jitter', async () => {
    await admin(stack, 'PUT', '/admin/faults', { latencyMs: 300, latencyJitterMs: 50 });
    const t0 = Date.now();
    expect((await api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/X/`)).status).toBe(404);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it('forced fail_schedule_times fails exactly the next N schedules of that account, then accepts', async () => {
    await admin(stack, 'PUT', '/admin/forced-outcomes', { 'FLT-2': { fail_schedule_times: 2, status: 429 }, 'FLT-3': { fail_schedule_times: 1, status: 500 } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await schedule(stack, minimalAccount('FLT-2'))).status);
    expect(statuses).toEqual([429, 429, 201]);
    expect((await schedule(stack, minimalAccount('FLT-3'))).status).toBe(500);
    expect((await schedule(stack, minimalAccount('FLT-3'))).status).toBe(201);
    const forced = await admin<Record<string, any>>(stack, 'GET', '/admin/forced-outcomes');
    expect(forced['FLT-2']).toMatchObject({ fail_schedule_times: 2, remaining: 0 });
    const truth = await admin<any>(stack, 'GET', '/admin/ground-truth');
    expect(truth.accounts.find((a: any) => a.external_identifier === 'FLT-2').schedule_accepted_count).toBe(1);
  });

  it('refuses an invalid fault setting', async () => {
    const r = await fetch(`${stack.baseUrl}/admin/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error5xxRate: 2 }) });
    expect(r.status).toBe(400);
  });
});

describe('restart', () => {
  it('keeps imports, accounts and suppliers across a sandbox restart on the same database', async () => {
    await admin(stack, 'PUT', '/admin/suppliers/COHORT-2', { status: 'PAUSED', document_root: 'migrations/cohort-2' });
    expect((await schedule(stack, minimalAccount('RST-1'))).status).toBe(201);
    const done = await waitForStatus(stack, 'RST-1', ['PROCESSED']);
    // An import still pending when the sandbox goes down is processed by the next one.
    await admin(stack, 'PUT', '/admin/faults', { processingDelayMs: 1500 });
    expect((await schedule(stack, minimalAccount('RST-2'))).status).toBe(201);
    await stack.restart();
    const after = await api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/RST-1/`);
    expect(after.status).toBe(200);
    expect(after.json).toMatchObject({ status: 'PROCESSED', kraken_identifier: done.kraken_identifier, created_at: done.created_at });
    const pending = await waitForStatus(stack, 'RST-2', ['PROCESSED']);
    expect(pending.kraken_identifier).toMatch(/^A-[0-9A-F]{8}$/);
    const again = await schedule(stack, minimalAccount('RST-1'));
    expect(again.json.account_id).toBe(done.kraken_identifier);
    const suppliers = await admin<{ suppliers: Array<{ code: string; status: string; document_root: string }> }>(stack, 'GET', '/admin/suppliers');
    expect(suppliers.suppliers).toContainEqual({ code: 'COHORT-2', status: 'PAUSED', document_root: 'migrations/cohort-2' });
  });
});
