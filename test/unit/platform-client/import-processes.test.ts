import { describe, expect, it } from 'vitest';
import { PlatformFinalError, PlatformTransientError } from '../../../clients/platform';
import { LIST_READ_RETRY, retryDelayMs, retryTransient } from '../../../clients/platform/retry';
import { PLATFORM_ERROR_CODES } from '../../../clients/platform/errors';
import { caught, fakePlatformClients, json } from './fake-platform';

const clientFor = fakePlatformClients();

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const imported = { external_account_number: 'EXT-2', kraken_account_number: 'A-1234ABCD', account_created_at: '2030-01-01T12:00:00Z' };
const pending = { external_account_number: 'EXT-1', kraken_account_number: null, account_created_at: null };

describe('importProcesses: a list read as it streams', () => {
  it.each([
    ['all', '/v1/data-import/all-account-import-processes/SUP%201/'],
    ['imported', '/v1/data-import/imported-account-import-processes/SUP%201/'],
    ['pending', '/v1/data-import/pending-account-import-processes/SUP%201/'],
  ] as const)('%s: GETs its path with the data-import credentials and yields each element', async (list, path) => {
    const { client, platform } = await clientFor((_req, res) => json(res, 200, [pending, imported]));
    expect(await collect(client.importProcesses(list, 'SUP 1'))).toEqual([pending, imported]);
    expect(platform.seen.map((s) => [s.method, s.url])).toEqual([['GET', path]]);
    expect(platform.seen[0].headers.authorization).toMatch(/^Token /);
  });

  it('reads elements that arrive split across chunks, with the first chunk only whitespace', async () => {
    const { client } = await clientFor((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const text = JSON.stringify([pending, imported]);
      res.write('  \n');
      res.write(text.slice(0, 17));
      setTimeout(() => res.end(text.slice(17)), 20);
    });
    expect(await collect(client.importProcesses('all', 'SUP'))).toEqual([pending, imported]);
  });

  it('an empty list is no element', async () => {
    const { client } = await clientFor((_req, res) => json(res, 200, []));
    expect(await collect(client.importProcesses('all', 'SUP'))).toEqual([]);
  });

  it('holds one element, not the document: a 5,000-element list streams through', async () => {
    const n = 5_000;
    const { client } = await clientFor((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('[');
      // A thousand elements a write: chunk boundaries fall anywhere inside them.
      for (let i = 0; i < n; i += 1000)
        res.write(
          Array.from(
            { length: 1000 },
            (_, j) => `${i + j ? ',' : ''}{"external_account_number":"E${i + j}","kraken_account_number":null,"account_created_at":null}`,
          ).join(''),
        );
      res.end(']');
    });
    let count = 0;
    let last = '';
    for await (const p of client.importProcesses('pending', 'SUP')) {
      count++;
      last = p.external_account_number;
    }
    expect([count, last]).toEqual([n, `E${n - 1}`]);
  });

  it.each([
    ['not an array', { results: [] }, 'not a JSON array'],
    ['an element without its number', [{ kraken_account_number: null }], 'not an ImportProcess (external_account_number)'],
    ['an element that is not an object', [1], 'not an ImportProcess (element)'],
  ])('%s is a final rejection naming the element, never its data', async (_what, body, why) => {
    const { client } = await clientFor((_req, res) => json(res, 200, body));
    const err = await caught(collect(client.importProcesses('all', 'SUP')));
    expect(err).toBeInstanceOf(PlatformFinalError);
    expect((err as PlatformFinalError).code).toBe(PLATFORM_ERROR_CODES.rejected);
    expect((err as Error).message).toContain(why);
  });

  it('a document cut off part-way is a final rejection', async () => {
    const { client } = await clientFor((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(`[${JSON.stringify(pending)},{"external_account_number":"E`);
    });
    const err = await caught(collect(client.importProcesses('all', 'SUP')));
    expect(err).toBeInstanceOf(PlatformFinalError);
  });

  it('429 and 5xx are transient, with Retry-After', async () => {
    const { client } = await clientFor((_req, res) => json(res, 429, { code: 'throttled' }, { 'Retry-After': '7' }));
    const err = await caught(collect(client.importProcesses('all', 'SUP')));
    expect(err).toBeInstanceOf(PlatformTransientError);
    expect((err as PlatformTransientError).retryAfterMs).toBe(7000);
  });

  it('a body that stalls longer than the timeout between chunks is a transient timeout', async () => {
    const { client } = await clientFor(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(`[${JSON.stringify(pending)}`);
        // never ends: the idle timeout, not a total deadline, ends the read
      },
      { PLATFORM_HTTP_TIMEOUT_MS: 300 },
    );
    const read: string[] = [];
    const err = await caught(
      (async () => {
        for await (const p of client.importProcesses('all', 'SUP')) read.push(p.external_account_number);
      })(),
    );
    expect(err).toBeInstanceOf(PlatformTransientError);
    expect((err as PlatformTransientError).reason).toBe('timeout');
  });

  it('a body that keeps coming is not cut by a total deadline (the timeout is between chunks)', async () => {
    const { client } = await clientFor(
      async (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('[');
        for (let i = 0; i < 6; i++) {
          res.write(`${i ? ',' : ''}{"external_account_number":"E${i}"}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        res.end(']');
      },
      { PLATFORM_HTTP_TIMEOUT_MS: 300 },
    );
    expect((await collect(client.importProcesses('all', 'SUP'))).length).toBe(6);
  });

  it('a 401 renews the token once and reads the list', async () => {
    let calls = 0;
    const { client } = await clientFor((_req, res) => (++calls === 1 ? json(res, 401, { detail: 'expired' }) : json(res, 200, [imported])));
    expect(await collect(client.importProcesses('imported', 'SUP'))).toEqual([imported]);
    expect(calls).toBe(2);
  });
});

describe('getAccountTransferStatus', () => {
  it('reads the status; 404 is undefined', async () => {
    const { client, platform } = await clientFor((req, res) =>
      req.url.includes('/EXT-1/')
        ? json(res, 200, { status: 'COMPLETED', kraken_account_number: 'A-1', account_number: 'A-1' })
        : json(res, 404, { detail: 'nope' }),
    );
    expect(await client.getAccountTransferStatus('SUP', 'EXT-1')).toEqual({ status: 'COMPLETED', kraken_account_number: 'A-1', account_number: 'A-1' });
    expect(await client.getAccountTransferStatus('SUP', 'EXT-9')).toBeUndefined();
    expect(platform.seen[0].url).toBe('/v1/data-import/account-transfer-status/SUP/EXT-1/');
  });
});

describe('retryTransient', () => {
  const transient = (retryAfterMs?: number) =>
    new PlatformTransientError(PLATFORM_ERROR_CODES.unavailable, { method: 'GET', path: '/x', reason: 'http_status', retryAfterMs });

  it('retries transient failures with backoff (Retry-After first) up to the attempts, then throws the last', async () => {
    const waits: number[] = [];
    let n = 0;
    const err = await caught(
      retryTransient(
        async () => {
          n++;
          throw transient(n === 2 ? 9000 : undefined);
        },
        { attempts: 4, initialMs: 100, maxMs: 250 },
        { sleep: async (ms) => void waits.push(ms) },
      ),
    );
    expect(err).toBeInstanceOf(PlatformTransientError);
    expect(n).toBe(4);
    expect(waits).toEqual([100, 9000, 250]);
  });

  it('returns the first success; a final failure is thrown at once', async () => {
    let n = 0;
    expect(await retryTransient(async () => (++n < 3 ? Promise.reject(transient()) : 'ok'), LIST_READ_RETRY, { sleep: async () => {} })).toBe('ok');
    let m = 0;
    const final = new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, { method: 'GET', path: '/x', status: 400 });
    const err = await caught(
      retryTransient(
        async () => {
          m++;
          throw final;
        },
        LIST_READ_RETRY,
        { sleep: async () => {} },
      ),
    );
    expect([err, m]).toEqual([final, 1]);
  });

  it('retryDelayMs doubles from the initial delay up to the cap', () => {
    const p = { attempts: 9, initialMs: 1000, maxMs: 5000 };
    expect([1, 2, 3, 4].map((a) => retryDelayMs(p, a, undefined))).toEqual([1000, 2000, 4000, 5000]);
    expect(retryDelayMs(p, 1, 0)).toBe(0);
  });
});
