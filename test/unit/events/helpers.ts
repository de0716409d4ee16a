import fs from 'node:fs';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import path from 'node:path';
import { createPool, type Pool } from '../../../clients/db';
import { createLogger } from '../../../logging/logger';
import { signWebhookBody } from '../../../clients/webhook-signature';
import { migrateAll } from '../../../db/migrate';
import { freePort } from '../../../harness/stack/child-process';
import { startPostgres } from '../../../harness/stack/postgres';
import { SignalError, type EventsDeps } from '../../../events/types';
import type { ImportEventSignal } from '../../../domain/inputs';
import type { Accepted } from '../../../domain/event-wait';

export const ROOT = path.resolve(__dirname, '../../..');

/** A fresh embedded Postgres with every migration applied. */
export async function startTestDb(name: string): Promise<{ url: string; pool: Pool; stop(): Promise<void> }> {
  // One directory per test process: two runs on one machine never share (or delete) each other's.
  const dataDir = path.join(ROOT, '.data', `test-events-${name}-${process.pid}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  const pg = await startPostgres({ dataDir, port: await freePort() });
  await migrateAll(pg.url, ROOT);
  const pool = createPool(pg.url, 5);
  return {
    url: pg.url,
    pool,
    async stop() {
      await pool.end();
      await pg.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A pool whose server is not there: every query fails to connect. */
export async function deadPool(): Promise<Pool> {
  return createPool(`postgres://postgres:postgres@127.0.0.1:${await freePort()}/none`, 1);
}

export const quietLogger = () => createLogger('events-test', { level: 'silent' });

/** Captures log records (parsed) so a test can wait for one. */
export function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('events-test', { level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
  return { logger, lines };
}

/**
 * Records signals and activity completions; `failWith` makes the next signals throw, and
 * `completeFailsWith` the next completions (`workflow_gone`: the activity is no longer there);
 * `whileSignalling` runs inside each signal (what another process does in the meantime).
 */
export function fakeSignaller() {
  const calls: Array<{ workflowId: string; signal: ImportEventSignal }> = [];
  const completions: Array<{ workflowId: string; activityId: string; result: Accepted }> = [];
  const state: { failWith?: SignalError['code']; completeFailsWith?: SignalError['code']; whileSignalling?: () => Promise<unknown> } = {};
  const signal: EventsDeps['signal'] = async (workflowId, s) => {
    if (state.failWith) throw new SignalError(state.failWith, 'test');
    await state.whileSignalling?.();
    calls.push({ workflowId, signal: s });
  };
  const complete: EventsDeps['complete'] = async (activity, result) => {
    if (state.completeFailsWith) throw new SignalError(state.completeFailsWith, 'test');
    completions.push({ ...activity, result });
  };
  return { signal, complete, deliver: { signal, complete }, calls, completions, state };
}

let seq = 0;
export const uniq = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++seq}`;

export function envelope(type: string, detail: Record<string, unknown>, id?: string): Record<string, unknown> {
  return {
    version: '0',
    ...(id === undefined ? {} : { id }),
    'detail-type': type,
    source: 'kraken.data_import',
    account: '123456789012',
    time: new Date().toISOString(),
    region: 'eu-west-2',
    resources: [],
    detail,
  };
}

export async function insertRun(pool: Pool, runId: string, opts: { supplierCode?: string; dryRun?: boolean } = {}): Promise<void> {
  await pool.query(`insert into migrate.runs (run_id, supplier_code, dry_run, source, selection, concurrency) values ($1, $2, $3, '{}', '{}', 1)`, [
    runId,
    opts.supplierCode ?? 'SUP-A',
    opts.dryRun ?? false,
  ]);
}

export async function insertAttempt(
  pool: Pool,
  a: { runId: string; ext: string; workflowId: string; supplierCode?: string; dryRun?: boolean; scheduled?: boolean; outcome?: string; outcomeSource?: string },
): Promise<void> {
  await pool.query(
    `insert into migrate.account_attempts (run_id, external_account_number, supplier_code, dry_run, workflow_id, scheduled_at, outcome, outcome_source)
     values ($1, $2, $3, $4, $5, case when $6 then now() end, $7, $8)`,
    [a.runId, a.ext, a.supplierCode ?? 'SUP-A', a.dryRun ?? false, a.workflowId, a.scheduled ?? true, a.outcome ?? null, a.outcomeSource ?? null],
  );
}

export async function inboxRow(pool: Pool, eventId: string) {
  const r = await pool.query(`select * from migrate.inbox where event_id = $1`, [eventId]);
  return r.rows[0];
}

export async function signedPost(url: string, secret: string, body: string, tSeconds = Math.floor(Date.now() / 1000)) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-kraken-signature': signWebhookBody(secret, body, tSeconds) },
    body,
  });
}

/** One embedded Postgres for a test file, and fresh fake deliveries (signals, completions) before each test. */
export function eventsTestBed(name: string) {
  const bed = {} as { db: Awaited<ReturnType<typeof startTestDb>>; fake: ReturnType<typeof fakeSignaller>; deps: EventsDeps };
  beforeAll(async () => {
    bed.db = await startTestDb(name);
  }, 120_000);
  afterAll(async () => {
    await bed.db?.stop();
  }, 60_000);
  beforeEach(() => {
    bed.fake = fakeSignaller();
    bed.deps = { pool: bed.db.pool, ...bed.fake.deliver, logger: quietLogger() };
  });
  return bed;
}
