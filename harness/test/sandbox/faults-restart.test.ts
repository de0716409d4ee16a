import { spawn } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admin, api, API_KEY, minimalAccount, schedule, startStack, SUPPLIER, waitFor, waitForStatus, window, type Stack } from './harness';

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

  it("concurrency limit: past it a schedule call gets the tenant's 429 (Retry-After only when configured); a repeat and a freed place are accepted", async () => {
    await admin(stack, 'PUT', '/admin/faults', { concurrencyLimit: 2, processingDelayMs: 1_500 });
    expect((await schedule(stack, minimalAccount('LIM-1'))).status).toBe(201);
    expect((await schedule(stack, minimalAccount('LIM-2'))).status).toBe(201);
    const over = await schedule(stack, minimalAccount('LIM-3'));
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBeNull();
    expect(over.json).toEqual({
      code: 'concurrency_limit_exceeded',
      detail: 'The limit of 2 accounts being processed at once is reached. Retry once other ongoing accounts have finished processing.',
    });
    // A repeat of an account in processing adds none: answered as before.
    expect((await schedule(stack, minimalAccount('LIM-1'))).status).toBe(201);
    await admin(stack, 'PUT', '/admin/faults', { concurrencyRetryAfterSeconds: 3 });
    const told = await schedule(stack, minimalAccount('LIM-4'));
    expect(told.status).toBe(429);
    expect(told.headers.get('retry-after')).toBe('3');
    const witnessed = await admin<{ concurrencyLimited: number; throttled: number }>(stack, 'GET', '/admin/requests');
    expect(witnessed.concurrencyLimited).toBe(2);
    expect(witnessed.throttled).toBe(0);
    // Once the first two finish processing, places are free again; nothing refused was opened.
    await waitForStatus(stack, 'LIM-1', ['PROCESSED']);
    await waitForStatus(stack, 'LIM-2', ['PROCESSED']);
    expect((await api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/LIM-3/`)).status).toBe(404);
    expect((await schedule(stack, minimalAccount('LIM-3'))).status).toBe(201);
  });

  it('rates between 0 and 1 fail about that share of requests, the same ones again after a reset (seeded)', async () => {
    const pattern = async () => {
      await admin(stack, 'PUT', '/admin/faults', { error5xxRate: 0.5 });
      const failed: number[] = [];
      for (let i = 0; i < 40; i++) if ((await api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/X/`)).status >= 500) failed.push(i);
      return failed;
    };
    const first = await pattern();
    expect(first.length).toBeGreaterThan(8);
    expect(first.length).toBeLessThan(32);
    await admin(stack, 'POST', '/admin/reset');
    expect(await pattern()).toEqual(first);
  });

  it('drop connection rate 1.0: the socket is destroyed without a response', async () => {
    await admin(stack, 'PUT', '/admin/faults', { dropConnectionRate: 1 });
    await expect(api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/X/`)).rejects.toThrow();
    expect((await fetch(`${stack.baseUrl}/admin/faults`)).status).toBe(200);
  });

  it('latency: a request is held (in flight) before it is answered', async () => {
    await admin(stack, 'PUT', '/admin/faults', { latencyMs: 2_000 });
    const pending = schedule(stack, minimalAccount('LAT-1'));
    await waitFor('the schedule call to be in flight', async () =>
      (await admin<any>(stack, 'GET', '/admin/requests')).inFlightSchedules === 1 ? true : undefined,
    );
    // Held: nothing reached the application yet.
    expect((await admin<any>(stack, 'GET', '/admin/ground-truth')).accounts).toEqual([]);
    expect((await pending).status).toBe(201);
    expect((await admin<any>(stack, 'GET', '/admin/requests')).inFlightSchedules).toBe(0);
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

  it('witness: a schedule call whose client goes away before the answer is counted (a killed worker)', async () => {
    await admin(stack, 'PUT', '/admin/faults', { latencyMs: 1_000 });
    const abort = new AbortController();
    const call = fetch(`${stack.baseUrl}/v2/data-import/accounts/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Token ${API_KEY}` },
      body: JSON.stringify({ payload: minimalAccount('GONE-1'), task_params: { is_dry_run: false, ...window() } }),
      signal: abort.signal,
    }).catch(() => 'aborted');
    await waitFor('the schedule call to be in flight', async () =>
      (await admin<any>(stack, 'GET', '/admin/requests')).inFlightSchedules === 1 ? true : undefined,
    );
    abort.abort();
    expect(await call).toBe('aborted');
    const w = await waitFor('the cut-off call to be counted', async () => {
      const r = await admin<any>(stack, 'GET', '/admin/requests');
      return r.clientGoneSchedules === 1 && r.inFlightSchedules === 0 ? r : undefined;
    });
    expect(w.responseLost).toBe(0);
    // Like a real server, the sandbox still acts on a request whose client left: the import exists.
    await waitForStatus(stack, 'GONE-1', ['PENDING', 'PROCESSED']);
  });

  it('witness: a schedule call whose client process is killed (-9) mid-call is counted', async () => {
    await admin(stack, 'PUT', '/admin/faults', { latencyMs: 1_500 });
    const before = (await admin<any>(stack, 'GET', '/admin/requests')).clientGoneSchedules;
    const body = JSON.stringify({ payload: minimalAccount('GONE-2'), task_params: { is_dry_run: false, ...window() } });
    const script = `fetch(${JSON.stringify(`${stack.baseUrl}/v2/data-import/accounts/`)}, {method: 'POST', headers: {'content-type': 'application/json', authorization: ${JSON.stringify(`Token ${API_KEY}`)}}, body: ${JSON.stringify(body)}}).then(() => setTimeout(() => {}, 60000))`;
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    await waitFor('the schedule call to be in flight', async () =>
      (await admin<any>(stack, 'GET', '/admin/requests')).inFlightSchedules === 1 ? true : undefined,
    );
    child.kill('SIGKILL');
    await waitFor('the cut-off call to be counted', async () =>
      (await admin<any>(stack, 'GET', '/admin/requests')).clientGoneSchedules === before + 1 ? true : undefined,
    );
  });

  it('response lost: the import is created, the client sees a dropped connection or a 502', async () => {
    await admin(stack, 'PUT', '/admin/faults', { responseLostRate: 1 });
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await schedule(stack, minimalAccount(`LOST-${i}`)).then(
        (res) => String(res.status),
        () => 'dropped',
      );
      seen.push(r);
    }
    expect(new Set(seen)).toEqual(new Set(['502', 'dropped']));
    const truth = await admin<any>(stack, 'GET', '/admin/ground-truth');
    expect(truth.accounts.map((a: any) => a.external_identifier).sort()).toEqual([0, 1, 2, 3, 4, 5].map((i) => `LOST-${i}`));
    for (const a of truth.accounts) expect(a.import_process_count).toBe(1);
    // The witness counts a lost answer just after dropping it: read once the six have settled.
    const requests = await waitFor('six lost answers counted', async () => {
      const r = await admin<any>(stack, 'GET', '/admin/requests');
      return r.responseLost >= 6 && r.inFlightSchedules === 0 ? r : undefined;
    });
    expect(requests).toMatchObject({ responseLost: 6, clientGoneSchedules: 0, inFlightSchedules: 0 });
    // Only schedule answers are lost: the status endpoint still answers.
    expect((await api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/LOST-0/`)).status).toBe(200);
  });

  it('witness: a request about an account before its Retry-After passed is recorded as early; one after it is not', async () => {
    await admin(stack, 'PUT', '/admin/forced-outcomes', { 'RA-1': { fail_schedule_times: 1, status: 429 }, 'RA-2': { fail_schedule_times: 1, status: 429 } });
    await admin(stack, 'PUT', '/admin/faults', { retryAfterSeconds: 0 });
    expect((await schedule(stack, minimalAccount('RA-2'))).status).toBe(429);
    expect((await schedule(stack, minimalAccount('RA-2'))).status).toBe(201); // Retry-After: 0 — never early
    await admin(stack, 'PUT', '/admin/faults', { retryAfterSeconds: 600 });
    const told = await schedule(stack, minimalAccount('RA-1'));
    expect(told.headers.get('retry-after')).toBe('600');
    expect((await api(stack, 'GET', `/v2/data-import/accounts/${SUPPLIER}/RA-1/`)).status).toBe(404);
    const w = await admin<any>(stack, 'GET', '/admin/requests');
    expect(w.throttled).toBe(2);
    expect(w.early).toBe(1);
    expect(w.earlyRequests[0]).toMatchObject({ accountKey: `${SUPPLIER}/RA-1`, method: 'GET' });
    // What the sandbox told survives a restart.
    await stack.restart();
    await schedule(stack, minimalAccount('RA-1'));
    expect((await admin<any>(stack, 'GET', '/admin/requests')).early).toBe(2);
  });

  it('a partial update changes only the knobs it names', async () => {
    await admin(stack, 'PUT', '/admin/faults', { error5xxRate: 0.3, processingDelayMs: 250 });
    const after = await admin<any>(stack, 'PUT', '/admin/faults', { latencyMs: 10 });
    expect(after).toMatchObject({ error5xxRate: 0.3, processingDelayMs: 250, latencyMs: 10 });
  });

  it('refuses an invalid fault setting', async () => {
    const r = await fetch(`${stack.baseUrl}/admin/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error5xxRate: 2 }),
    });
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
