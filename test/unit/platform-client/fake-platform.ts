import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { createPlatformClient, type PlatformClientConfig } from '../../../clients/platform';

/** One request as the fake platform saw it. */
export interface Seen {
  method: string;
  /** Path and query, e.g. `/v1/products/?page=2`. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export type Handler = (req: Seen, res: http.ServerResponse, raw: http.IncomingMessage) => void | Promise<void>;

export interface FakePlatform {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

export function json(res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(text);
}

/** A real HTTP server on loopback that answers as the test scripts it. */
export async function startFakePlatform(handler: Handler): Promise<FakePlatform> {
  const seen: Seen[] = [];
  const server = http.createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (c: Buffer) => chunks.push(c));
    raw.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const req: Seen = { method: raw.method ?? '', url: raw.url ?? '', headers: raw.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
      seen.push(req);
      Promise.resolve(handler(req, res, raw)).catch((err: unknown) => {
        json(res, 599, { test_handler_error: String(err) });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An unsigned JWT with the given `exp` (seconds): the client reads `exp`, the platform verifies. */
export function fakeJwt(exp: number, sub = 'org'): string {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc({ sub, exp })}.c2lnbmF0dXJl`;
}

export const API_KEY = 'sk_test_DATAIMPORT_KEY_1234';
export const ORG_SECRET = 'sk_live_ORG_SECRET_5678';

export function configFor(origin: string, overrides: Partial<PlatformClientConfig> = {}): PlatformClientConfig {
  return {
    PLATFORM_BASE_URL: `${origin}/v1/`,
    PLATFORM_V2_BASE_URL: `${origin}/v2/`,
    PLATFORM_GRAPHQL_URL: `${origin}/v1/graphql/`,
    PLATFORM_AUTH_MODE: 'token',
    PLATFORM_API_KEY: API_KEY,
    PLATFORM_ORGANIZATION_SECRET_KEY: ORG_SECRET,
    PLATFORM_HTTP_TIMEOUT_MS: 2_000,
    ...overrides,
  };
}

/** The rejection a promise ends in (the test fails when it resolves). */
export async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

/** For a test file: each call starts a fake platform (closed after the test) and a client pointed at it. */
export function fakePlatformClients() {
  let platform: FakePlatform | undefined;
  afterEach(async () => {
    await platform?.close();
    platform = undefined;
  });
  return async (handler: Handler, overrides: Partial<PlatformClientConfig> = {}) => {
    platform = await startFakePlatform(handler);
    return { client: createPlatformClient(configFor(platform.origin, overrides)), platform };
  };
}
