import { afterAll, beforeAll, beforeEach } from 'vitest';
import { minimalAccountPayload } from '../../sandbox/fixtures';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type pg from 'pg';
import { startPostgres, type RunningPostgres } from '../../stack/postgres';
import { startLocalAws } from '../../stack/fauxqs';
import { freePort, type ManagedProcess } from '../../stack/child-process';
import { createPool } from '../../../clients/db';
import { createS3Client, createSqsClient, ensureBucket, ensureQueue } from '../../../clients/aws';
import { migrate } from '../../../db/migrate';
import { SANDBOX_COMPONENT } from '../../sandbox/migrations';
import { createSandbox, type Sandbox, type SandboxOptionsInput } from '../../sandbox/server';

export const ORG_KEY = 'sk_test_org_0123456789';
export const API_KEY = 'di_test_key_0123456789';
export const WEBHOOK_SECRET = 'whsec_test_0123456789';
export const BUCKET = 'sandbox-test-bucket';
export const SUPPLIER = 'DEMO-SUPPLIER';
export const DOC_ROOT = 'migrations/demo-supplier';

export interface Stack {
  baseUrl: string;
  pool: pg.Pool;
  s3: S3Client;
  sqs: SQSClient;
  queueUrl: string;
  sandbox: Sandbox;
  options: SandboxOptionsInput;
  /** Close the sandbox and start a new one on the same database (a restart). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One embedded Postgres + local S3/SQS + sandbox per test file, in a data directory of this test
 * process only (removed at stop); every start resets the sandbox state.
 */
export async function startStack(name: string, extra: Partial<SandboxOptionsInput> = {}): Promise<Stack> {
  // One directory per test process (two runs never share a database); removed when the stack stops.
  const dataDir = path.resolve(`.data/test-sandbox-${name}-${process.pid}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  let pgServer: RunningPostgres | undefined;
  let aws: { endpoint: string; proc: ManagedProcess } | undefined;
  let pool: pg.Pool | undefined;
  let sandbox: Sandbox | undefined;
  const stopAll = async () => {
    await sandbox?.close().catch(() => undefined);
    await pool?.end().catch(() => undefined);
    await aws?.proc.stop().catch(() => undefined);
    await pgServer?.stop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    pgServer = await startPostgres({ dataDir: path.join(dataDir, 'pg'), port: await freePort() });
    aws = await startLocalAws({ port: await freePort(), logDir: dataDir });
    await migrate(pgServer.url, SANDBOX_COMPONENT);
    pool = createPool(pgServer.url, 10);
    const awsCfg = {
      S3_ENDPOINT: aws.endpoint,
      SQS_ENDPOINT: aws.endpoint,
      S3_REGION: 'eu-west-2',
      S3_ACCESS_KEY_ID: 'local',
      S3_SECRET_ACCESS_KEY: 'local',
      S3_FORCE_PATH_STYLE: true,
    };
    const s3 = createS3Client(awsCfg);
    const sqs = createSqsClient(awsCfg);
    await ensureBucket(s3, BUCKET);
    const queueUrl = await ensureQueue(sqs, `sandbox-test-${name}`);
    const options: SandboxOptionsInput = {
      bucket: BUCKET,
      organizationSecretKey: ORG_KEY,
      dataImportKey: API_KEY,
      jwtSecret: 'test-jwt-secret-0123456789abcdef',
      pollIntervalMs: 50,
      webhookRetryForMs: 5_000,
      faults: { processingDelayMs: 100 },
      suppliers: [
        { code: SUPPLIER, documentRoot: DOC_ROOT, status: 'ONGOING' },
        { code: 'TENTACLE_ENERGY', documentRoot: 'migrations/tentacle', status: 'ONGOING' },
      ],
      ...extra,
    };
    sandbox = await createSandbox({ pool, s3, sqs, options });
    const stack: Stack = {
      baseUrl: await sandbox.listen(0),
      pool,
      s3,
      sqs,
      queueUrl,
      sandbox,
      options,
      async restart() {
        await stack.sandbox.close();
        sandbox = stack.sandbox = await createSandbox({ pool: pool!, s3, sqs, options });
        stack.baseUrl = await stack.sandbox.listen(0);
      },
      stop: stopAll,
    };
    await admin(stack, 'POST', '/admin/reset');
    return stack;
  } catch (e) {
    await stopAll();
    throw e;
  }
}

export async function admin<T = unknown>(stack: Pick<Stack, 'baseUrl'>, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(stack.baseUrl + route, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${route}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export async function api(stack: Pick<Stack, 'baseUrl'>, method: string, route: string, body?: unknown, auth = `Token ${API_KEY}`) {
  const res = await fetch(stack.baseUrl + route, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(auth ? { authorization: auth } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

export async function putDocument(stack: Pick<Stack, 's3'>, key: string): Promise<void> {
  await stack.s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'pdf', ContentType: 'application/pdf' }));
}

/** A valid, minimal account for the sandbox catalogue; `ext` keeps accounts distinct. */
export function minimalAccount(ext: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...minimalAccountPayload({ supplier: SUPPLIER, externalAccountNumber: ext }), ...over };
}

export function window(aheadMs = 0, lengthMs = 3_600_000) {
  const start = Date.now() + aheadMs;
  return { schedule_window_start: new Date(start).toISOString(), schedule_window_end: new Date(start + lengthMs).toISOString() };
}

export function schedule(
  stack: Pick<Stack, 'baseUrl'>,
  payload: Record<string, unknown>,
  taskParams: Record<string, unknown> = { is_dry_run: false, ...window() },
  auth?: string,
) {
  return api(stack, 'POST', '/v2/data-import/accounts/', { payload, task_params: taskParams }, auth);
}

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function waitForStatus(stack: Pick<Stack, 'baseUrl'>, ext: string, statuses: string[], supplier = SUPPLIER) {
  return waitFor(`${ext} to reach ${statuses.join('/')}`, async () => {
    const r = await api(stack, 'GET', `/v2/data-import/accounts/${supplier}/${ext}/`);
    return r.status === 200 && statuses.includes(r.json.status) ? r.json : undefined;
  });
}

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  json: any;
  receivedAt: number;
}

/** A tiny webhook receiver; `failNext` makes the next N deliveries fail with 503. */
export async function startReceiver(): Promise<{ url: string; received: ReceivedWebhook[]; failNext(n: number): void; close(): Promise<void> }> {
  const received: ReceivedWebhook[] = [];
  let failures = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (failures > 0) {
        failures--;
        res.writeHead(503).end();
        return;
      }
      const rawBody = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, rawBody, json: JSON.parse(rawBody), receivedAt: Date.now() });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    received,
    failNext: (n) => {
      failures = n;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * One sandbox stack for the calling test file: started before its tests, reset (then `reset`) before
 * each, stopped after them. The value reads the running stack's address.
 */
export function useStack(name: string, reset?: (stack: Stack) => Promise<void>): Pick<Stack, 'baseUrl'> {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(name);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);
  beforeEach(async () => {
    await admin(stack!, 'POST', '/admin/reset');
    await reset?.(stack!);
  });
  return {
    get baseUrl() {
      return stack!.baseUrl;
    },
  };
}
