import type pg from 'pg';
import { z } from 'zod';
import { admitsSchedule } from '../concurrency-limit';

export const importStatusSchema = z.enum(['PENDING', 'IN_PROGRESS', 'PROCESSED', 'ERRORED', 'CANCELLED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED']);
export type ImportStatus = z.infer<typeof importStatusSchema>;

/** The `latest_event.event` name the status endpoint shows for each status. */
export const STATUS_EVENT: Record<ImportStatus, string> = {
  PENDING: 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED',
  IN_PROGRESS: 'EVENT_ACCOUNT_IMPORT_PROCESS_STARTED',
  PROCESSED: 'EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED',
  ERRORED: 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED',
  CANCELLED: 'EVENT_ACCOUNT_IMPORT_PROCESS_CANCELLED',
  DRY_RUN_SUCCEEDED: 'EVENT_ACCOUNT_IMPORT_PROCESS_DRY_RUN_SUCCEEDED',
  DRY_RUN_ERRORED: 'EVENT_ACCOUNT_IMPORT_PROCESS_DRY_RUN_ERRORED',
};

export interface LatestError {
  code: string;
  detail: string;
  domain: 'import_process';
}

export interface ProcessRow {
  id: number;
  import_supplier: string;
  external_identifier: string;
  status: ImportStatus;
  is_dry_run: boolean;
  kraken_identifier: string | null;
  latest_event: string;
  latest_event_at: Date;
  latest_error: LatestError | null;
  created_at: Date;
  modified_at: Date;
}

export type ScheduleResult =
  | { kind: 'already_imported'; accountNumber: string }
  | { kind: 'accepted'; processId: number | null }
  /** Past the tenant's concurrency limit (sandbox/concurrency-limit.ts): nothing opened, nothing counted. */
  | { kind: 'over_limit'; live: number };

/**
 * One round trip: refuse when an account exists, else insert a PENDING process unless one is
 * live (then the existing one stands: idempotent; with `repeatOpensSecondImport`, the blind-resend
 * trap, a second process is opened beside it), and count the accepted schedule either way.
 */
export async function scheduleImport(
  pool: pg.Pool,
  p: {
    supplier: string;
    externalIdentifier: string;
    isDryRun: boolean;
    payload: unknown;
    startMs: number;
    endMs: number;
    processingDelayMs: number;
    repeatOpensSecondImport?: boolean;
    /** Never due: the processor takes it only once its window has ended (forced `hold`). */
    holdUntilWindowEnd?: boolean;
    /** Accounts in processing at once, tenant-wide (0 or absent: no limit). */
    concurrencyLimit?: number;
  },
): Promise<ScheduleResult> {
  const limit = p.concurrencyLimit ?? 0;
  if (limit <= 0) return scheduleOn(pool, p);
  // Under a limit the count and the insert are one decision: schedule calls take turns (a
  // transaction-scoped lock), so concurrent calls never open more than the limit between them.
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('sandbox.concurrency_limit'))`);
    const c = await client.query<{ live: number; already_live: boolean; imported: boolean }>(
      `SELECT (SELECT count(*)::int FROM sandbox.import_processes WHERE status IN ('PENDING', 'IN_PROGRESS')) AS live,
              EXISTS (SELECT 1 FROM sandbox.import_processes
                       WHERE import_supplier = $1 AND external_identifier = $2 AND status IN ('PENDING', 'IN_PROGRESS')) AS already_live,
              EXISTS (SELECT 1 FROM sandbox.accounts WHERE import_supplier = $1 AND external_identifier = $2) AS imported`,
      [p.supplier, p.externalIdentifier],
    );
    const { live, already_live: alreadyLive, imported } = c.rows[0];
    // An account already imported is answered as such whatever the load (a 400, not a 429).
    const opens = !imported && !(alreadyLive && !p.repeatOpensSecondImport);
    if (!imported && !admitsSchedule({ limit, live, alreadyLive: !opens })) {
      await client.query('ROLLBACK');
      return { kind: 'over_limit', live };
    }
    const result = await scheduleOn(client, p);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

async function scheduleOn(db: pg.Pool | pg.PoolClient, p: Omit<Parameters<typeof scheduleImport>[1], 'concurrencyLimit'>): Promise<ScheduleResult> {
  const r = await db.query<{ account_id: string | null; id: number | null }>(
    `WITH prior AS (
       SELECT number FROM sandbox.accounts WHERE import_supplier = $1 AND external_identifier = $2
     ), fresh AS (
       SELECT $1::text AS s, $2::text AS e, 'PENDING' AS status, $3::boolean AS dry, $4::jsonb AS payload,
              to_timestamp($5::float8 / 1000) AS ws, to_timestamp($6::float8 / 1000) AS we,
              CASE WHEN $9::boolean THEN 'infinity'::timestamptz
                   ELSE greatest(now() + $7 * interval '1 millisecond', to_timestamp($5::float8 / 1000)) END AS due, '${STATUS_EVENT.PENDING}' AS ev
       WHERE NOT EXISTS (SELECT 1 FROM prior)
     ), ins AS (
       INSERT INTO sandbox.import_processes
         (import_supplier, external_identifier, status, is_dry_run, payload, schedule_window_start, schedule_window_end, due_at, latest_event)
       SELECT s, e, status, dry, payload, ws, we, due, ev FROM fresh
       ON CONFLICT (import_supplier, external_identifier) WHERE status IN ('PENDING', 'IN_PROGRESS') AND NOT opened_by_repeat DO NOTHING
       RETURNING id
     ), again AS (
       INSERT INTO sandbox.import_processes
         (import_supplier, external_identifier, status, is_dry_run, payload, schedule_window_start, schedule_window_end, due_at, latest_event, opened_by_repeat)
       SELECT s, e, status, dry, payload, ws, we, due, ev, true FROM fresh WHERE $8::boolean AND NOT EXISTS (SELECT 1 FROM ins)
       RETURNING id
     ), bump AS (
       INSERT INTO sandbox.schedule_counts (import_supplier, external_identifier, schedule_accepted_count)
       SELECT $1, $2, 1 WHERE NOT EXISTS (SELECT 1 FROM prior)
       ON CONFLICT (import_supplier, external_identifier)
       DO UPDATE SET schedule_accepted_count = sandbox.schedule_counts.schedule_accepted_count + 1
     )
     SELECT (SELECT number FROM prior) AS account_id, coalesce((SELECT id FROM ins), (SELECT id FROM again)) AS id`,
    [
      p.supplier,
      p.externalIdentifier,
      p.isDryRun,
      JSON.stringify(p.payload),
      p.startMs,
      p.endMs,
      p.processingDelayMs,
      p.repeatOpensSecondImport === true,
      p.holdUntilWindowEnd === true,
    ],
  );
  const row = r.rows[0];
  if (row.account_id) return { kind: 'already_imported', accountNumber: row.account_id };
  return { kind: 'accepted', processId: row.id === null ? null : Number(row.id) };
}

/** A held import (the blind-resend trap) whose answer reached the client: due after the usual delay (a forced hold stays). */
export async function releaseHeldImport(pool: pg.Pool, id: number, processingDelayMs: number): Promise<void> {
  await pool.query(
    `UPDATE sandbox.import_processes SET due_at = greatest(now() + $2 * interval '1 millisecond', schedule_window_start)
      WHERE id = $1 AND status = 'PENDING' AND due_at <> 'infinity'`,
    [id, processingDelayMs],
  );
}

export async function latestProcess(pool: pg.Pool, supplier: string, externalIdentifier: string): Promise<ProcessRow | undefined> {
  const r = await pool.query<ProcessRow>(
    `SELECT id, import_supplier, external_identifier, status, is_dry_run, kraken_identifier, latest_event, latest_event_at,
            latest_error, created_at, modified_at
     FROM sandbox.import_processes WHERE import_supplier = $1 AND external_identifier = $2 ORDER BY id DESC LIMIT 1`,
    [supplier, externalIdentifier],
  );
  return r.rows[0];
}

export interface ClaimedProcess {
  id: number;
  import_supplier: string;
  external_identifier: string;
  is_dry_run: boolean;
  payload: unknown;
  schedule_window_end: Date;
  expired: boolean;
}

/** Due work (and work whose worker died: lease passed) becomes IN_PROGRESS under a lease. */
export async function claimDue(pool: pg.Pool, limit: number, leaseMs: number): Promise<ClaimedProcess[]> {
  const r = await pool.query<ClaimedProcess>(
    `UPDATE sandbox.import_processes p
     SET status = 'IN_PROGRESS', lease_until = now() + $2 * interval '1 millisecond', modified_at = now(),
         latest_event = '${STATUS_EVENT.IN_PROGRESS}', latest_event_at = now()
     WHERE id IN (
       SELECT id FROM sandbox.import_processes
       WHERE (status = 'PENDING' AND (due_at <= now() OR schedule_window_end < now()))
          OR (status = 'IN_PROGRESS' AND lease_until < now())
       ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING id, import_supplier, external_identifier, is_dry_run, payload, schedule_window_end,
       (schedule_window_end < now()) AS expired`,
    [limit, leaseMs],
  );
  return r.rows.map((x) => ({ ...x, id: Number(x.id) }));
}

/** Back to PENDING (a transient failure such as the file store being unreachable). */
export async function releaseForRetry(db: pg.Pool | pg.PoolClient, id: number, delayMs: number): Promise<void> {
  await db.query(
    `UPDATE sandbox.import_processes SET status = 'PENDING', lease_until = NULL, due_at = now() + $2 * interval '1 millisecond',
       latest_event = '${STATUS_EVENT.PENDING}', modified_at = now()
     WHERE id = $1 AND status = 'IN_PROGRESS'`,
    [id, delayMs],
  );
}

/** Final status; false when the process is no longer ours (finished elsewhere, or state reset). */
export async function finishProcess(
  client: pg.PoolClient,
  id: number,
  status: Exclude<ImportStatus, 'PENDING' | 'IN_PROGRESS'>,
  krakenIdentifier: string | null,
  error: LatestError | null,
): Promise<boolean> {
  const r = await client.query(
    `UPDATE sandbox.import_processes SET status = $2, kraken_identifier = $3, latest_error = $4, latest_event = $5,
       latest_event_at = now(), lease_until = NULL, modified_at = now()
     WHERE id = $1 AND status = 'IN_PROGRESS'`,
    [id, status, krakenIdentifier, error ? JSON.stringify(error) : null, STATUS_EVENT[status]],
  );
  return r.rowCount === 1;
}

/** Inserts the account; undefined when one already exists for this supplier + external id. */
export async function createAccount(
  client: pg.PoolClient,
  p: { supplier: string; externalIdentifier: string; processId: number },
  newNumber: () => string,
): Promise<string | undefined> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const number = newNumber();
    const r = await client.query<{ number: string }>(
      `INSERT INTO sandbox.accounts (number, import_supplier, external_identifier, import_process_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING number`,
      [number, p.supplier, p.externalIdentifier, p.processId],
    );
    if (r.rowCount === 1) return number;
    const exists = await client.query('SELECT 1 FROM sandbox.accounts WHERE import_supplier = $1 AND external_identifier = $2', [
      p.supplier,
      p.externalIdentifier,
    ]);
    if (exists.rowCount) return undefined;
    // else: the random number collided with another account's; draw again
  }
  throw new Error('could not allocate a unique account number');
}

export interface GroundTruthRow {
  import_supplier: string;
  external_identifier: string;
  account_number: string | null;
  created_count: number;
  schedule_accepted_count: number;
  import_process_count: number;
  status: ImportStatus | null;
  dry_run: boolean | null;
}

export async function groundTruth(pool: pg.Pool, supplier?: string): Promise<GroundTruthRow[]> {
  const r = await pool.query<GroundTruthRow>(
    `WITH keys AS (
       SELECT import_supplier, external_identifier FROM sandbox.schedule_counts
       UNION SELECT import_supplier, external_identifier FROM sandbox.import_processes
       UNION SELECT import_supplier, external_identifier FROM sandbox.accounts
     )
     SELECT k.import_supplier, k.external_identifier,
       (SELECT min(a.number) FROM sandbox.accounts a WHERE a.import_supplier = k.import_supplier AND a.external_identifier = k.external_identifier) AS account_number,
       (SELECT count(*) FROM sandbox.accounts a WHERE a.import_supplier = k.import_supplier AND a.external_identifier = k.external_identifier)::int AS created_count,
       COALESCE(sc.schedule_accepted_count, 0) AS schedule_accepted_count,
       (SELECT count(*) FROM sandbox.import_processes p WHERE p.import_supplier = k.import_supplier AND p.external_identifier = k.external_identifier)::int AS import_process_count,
       lp.status, lp.is_dry_run AS dry_run
     FROM keys k
     LEFT JOIN sandbox.schedule_counts sc ON sc.import_supplier = k.import_supplier AND sc.external_identifier = k.external_identifier
     LEFT JOIN LATERAL (
       SELECT status, is_dry_run FROM sandbox.import_processes p
       WHERE p.import_supplier = k.import_supplier AND p.external_identifier = k.external_identifier ORDER BY id DESC LIMIT 1
     ) lp ON true
     WHERE $1::text IS NULL OR k.import_supplier = $1
     ORDER BY k.import_supplier, k.external_identifier`,
    [supplier ?? null],
  );
  return r.rows;
}
