import type pg from 'pg';
import type { EventOutbox } from '../events/outbox';
import { LIFECYCLE_EVENT_TYPES } from '../events/envelope';
import { lockAccount, type ImportedAccount } from '../post-import/store';
import { isoSeconds } from '../time';
import { ENDED_REFUSED, FIRST_STATUS, lifecycleEventOf, nextStatus, type Cohort } from './walk';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface PayloadMeterPoint {
  mpxn: string;
  market: string;
}

/** The account's meter points as the payload it was created from names them (`supply_addresses[].meter_points[].identifier`). */
export function meterPointsOf(payload: unknown): PayloadMeterPoint[] {
  const out: PayloadMeterPoint[] = [];
  const addresses = isObj(payload) && Array.isArray(payload.supply_addresses) ? payload.supply_addresses : [];
  for (const sa of addresses) {
    for (const mp of isObj(sa) && Array.isArray(sa.meter_points) ? sa.meter_points : []) {
      if (isObj(mp) && typeof mp.identifier === 'string')
        out.push({ mpxn: mp.identifier, market: typeof mp.supply_type === 'string' ? mp.supply_type : 'UNKNOWN' });
    }
  }
  return out;
}

interface RegistrationRow {
  account_number: string;
  mpxn: string;
  market_name: string;
  status: string;
  cohort: Exclude<Cohort, 'refuse'> | 'refuse';
  join_process_number: string;
  requested_at: Date;
}

/** Each meter point's status: PRE_REGISTRATION until a flow is accepted for it. */
export async function meterPointStatuses(pool: pg.Pool, account: ImportedAccount): Promise<Array<{ mpxn: string; status: string }>> {
  const rows = await pool.query<{ mpxn: string; status: string }>('SELECT mpxn, status FROM sandbox.meter_point_registrations WHERE account_number = $1', [
    account.number,
  ]);
  const known = new Map(rows.rows.map((r) => [r.mpxn, r.status]));
  return meterPointsOf(account.payload).map((mp) => ({ mpxn: mp.mpxn, status: known.get(mp.mpxn) ?? 'PRE_REGISTRATION' }));
}

export type FlowAnswer = { mpxn: string; status: 'REGISTRATION_FLOW_SUCCESS' } | { mpxn: string; status: 'REGISTRATION_FLOW_ERROR'; error_detail: string };

export const IN_PROGRESS_DETAIL = 'A registration is already in progress for this meter point.';

/**
 * Marks the account's meter points for registration, under the account's row lock. A point never
 * sent, or whose registration ended refused, starts on its cohort's path; a point in progress or on
 * supply is refused (assumed: the reference does not say) and counted, so a second flow shows.
 */
export async function sendFlows(
  pool: pg.Pool,
  outbox: EventOutbox,
  account: ImportedAccount,
  cohortOf: (mpxn: string) => { cohort: Cohort; errorDetail: string },
  stepMs: number,
): Promise<FlowAnswer[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await lockAccount(client, account.number);
    const answers: FlowAnswer[] = [];
    for (const mp of meterPointsOf(account.payload)) {
      const prior = await client.query<{ status: string }>('SELECT status FROM sandbox.meter_point_registrations WHERE account_number = $1 AND mpxn = $2', [
        account.number,
        mp.mpxn,
      ]);
      const status = prior.rows[0]?.status ?? 'PRE_REGISTRATION';
      const { cohort, errorDetail } = cohortOf(mp.mpxn);
      const startable = status === 'PRE_REGISTRATION' || ENDED_REFUSED.has(status);
      const refusal = !startable ? IN_PROGRESS_DETAIL : cohort === 'refuse' ? errorDetail : undefined;
      const processNumber = `JSP-${account.number}-${mp.mpxn}`;
      await client.query(
        `INSERT INTO sandbox.meter_point_registrations (account_number, mpxn, market_name, status, cohort, join_process_number, flow_requests)
         VALUES ($1, $2, $3, $4, $5, $6, 1)
         ON CONFLICT (account_number, mpxn) DO UPDATE SET flow_requests = sandbox.meter_point_registrations.flow_requests + 1, modified_at = now()`,
        [account.number, mp.mpxn, mp.market, status, cohort, processNumber],
      );
      if (refusal !== undefined) {
        answers.push({ mpxn: mp.mpxn, status: 'REGISTRATION_FLOW_ERROR', error_detail: refusal });
        continue;
      }
      const r = await client.query<RegistrationRow>(
        `UPDATE sandbox.meter_point_registrations
         SET status = $3, cohort = $4, flows_accepted = flows_accepted + 1, requested_at = now(),
             next_step_at = now() + $5 * interval '1 millisecond', modified_at = now()
         WHERE account_number = $1 AND mpxn = $2 RETURNING *`,
        [account.number, mp.mpxn, FIRST_STATUS, cohort, stepMs],
      );
      await emitLifecycle(client, outbox, account, r.rows[0]);
      answers.push({ mpxn: mp.mpxn, status: 'REGISTRATION_FLOW_SUCCESS' });
    }
    await client.query('COMMIT');
    return answers;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

async function emitLifecycle(
  client: pg.PoolClient,
  outbox: EventOutbox,
  account: Pick<ImportedAccount, 'number' | 'import_supplier' | 'external_identifier' | 'import_process_id'>,
  row: RegistrationRow,
) {
  const kind = lifecycleEventOf(row.status);
  if (!kind) return;
  const process = { account_number: account.number, join_supplier_process_number: row.join_process_number, subtype: 'ON_MARKET_SWITCH' };
  const date = isoSeconds(row.requested_at.getTime()).slice(0, 10);
  const point = { external_identifier: row.mpxn, market_name: row.market_name };
  const meta = { importProcessId: account.import_process_id, importSupplier: account.import_supplier, externalIdentifier: account.external_identifier };
  if (kind === 'completed')
    await outbox.emit(client, LIFECYCLE_EVENT_TYPES.completed, { ...process, supply_points: [{ ...point, confirmed_supply_start_date: date }] }, meta);
  else if (kind === 'requested')
    await outbox.emit(
      client,
      LIFECYCLE_EVENT_TYPES.requested,
      { ...process, supply_points: [{ ...point, requested_supply_start_date: date }], requested_at: isoSeconds(row.requested_at.getTime()) },
      meta,
    );
  else await outbox.emit(client, LIFECYCLE_EVENT_TYPES.cancelled, { ...process, supply_points: [{ ...point, requested_supply_start_date: date }] }, meta);
}

/**
 * The walker's round (sandbox/server.ts runs it in a loop): every due meter point takes its cohort's
 * next step (the lifecycle event written in the same transaction), the next one `stepMs` later; at
 * its path's end it rests. True when more may be due at once.
 */
export async function walkDue(deps: { pool: pg.Pool; outbox: EventOutbox; stepMs: number }): Promise<boolean> {
  const client = await deps.pool.connect();
  try {
    await client.query('BEGIN');
    const due = await client.query<RegistrationRow & { import_supplier: string; external_identifier: string; import_process_id: string }>(
      `SELECT r.*, a.import_supplier, a.external_identifier, a.import_process_id
         FROM sandbox.meter_point_registrations r JOIN sandbox.accounts a ON a.number = r.account_number
         WHERE r.next_step_at <= now() ORDER BY r.next_step_at LIMIT 50 FOR UPDATE OF r SKIP LOCKED`,
    );
    for (const row of due.rows) {
      const next = row.cohort === 'refuse' ? undefined : nextStatus(row.cohort, row.status);
      const after = next === undefined ? undefined : nextStatus(row.cohort as Exclude<Cohort, 'refuse'>, next);
      const r = await client.query<RegistrationRow>(
        `UPDATE sandbox.meter_point_registrations SET status = $3,
             next_step_at = CASE WHEN $4 THEN now() + $5 * interval '1 millisecond' END, modified_at = now()
           WHERE account_number = $1 AND mpxn = $2 RETURNING *`,
        [row.account_number, row.mpxn, next ?? row.status, after !== undefined, deps.stepMs],
      );
      if (next !== undefined)
        await emitLifecycle(client, deps.outbox, { ...row, number: row.account_number, import_process_id: Number(row.import_process_id) }, r.rows[0]);
    }
    await client.query('COMMIT');
    if (due.rowCount) deps.outbox.wake();
    return due.rowCount === 50;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

export interface SupplyTruth {
  external_identifier: string;
  account_number: string;
  mpxn: string;
  status: string;
  cohort: string;
  flow_requests: number;
  flows_accepted: number;
}

/** Every meter point sent a flow, for one supplier or all (`GET /admin/ground-truth/supply`). */
export async function supplyGroundTruth(pool: pg.Pool, supplier?: string): Promise<SupplyTruth[]> {
  const r = await pool.query<SupplyTruth>(
    `SELECT a.external_identifier, r.account_number, r.mpxn, r.status, r.cohort, r.flow_requests, r.flows_accepted
     FROM sandbox.meter_point_registrations r JOIN sandbox.accounts a ON a.number = r.account_number
     WHERE $1::text IS NULL OR a.import_supplier = $1 ORDER BY a.external_identifier, r.mpxn`,
    [supplier ?? null],
  );
  return r.rows;
}
