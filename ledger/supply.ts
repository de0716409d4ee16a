import { z } from 'zod';
import type { Pool } from '../clients/db';
import type { FlowHistory, PointOutcome } from '../domain/supply';

/** One meter point of the switch as the ledger keeps it (migrate.supply_meter_points). */
export interface SupplyPointRow {
  runId: string;
  supplierCode: string;
  externalAccountNumber: string;
  accountNumber: string;
  mpxn: string;
  status: string;
  outcome: PointOutcome | null;
  statusSince: string;
  flowsSent: number;
  flowRefused: boolean;
  flowErrors: number;
  flowErrorDetail: string | null;
  lastFlowAt: string | null;
}

export interface SupplyAccountRef {
  runId: string;
  supplierCode: string;
  externalAccountNumber: string;
  accountNumber: string;
  workflowId: string;
}

const COLUMNS = `run_id AS "runId", supplier_code AS "supplierCode", external_account_number AS "externalAccountNumber",
  account_number AS "accountNumber", mpxn, status, outcome, status_since AS "statusSince", flows_sent AS "flowsSent",
  flow_refused AS "flowRefused", flow_errors AS "flowErrors", flow_error_detail AS "flowErrorDetail", last_flow_at AS "lastFlowAt"`;

const iso = (r: SupplyPointRow): SupplyPointRow => ({
  ...r,
  statusSince: new Date(r.statusSince).toISOString(),
  lastFlowAt: r.lastFlowAt === null ? null : new Date(r.lastFlowAt).toISOString(),
});

/** Refused switches listed in the funnel (the rest: `run supply RUN --json`). */
export const REFUSALS_LISTED = 50;

export const supplyFunnelSchema = z.object({
  byStatus: z.record(z.string(), z.number()),
  /** Points still followed, by whole days since their first read. */
  waitingByDays: z.record(z.string(), z.number()),
  accounts: z.object({ onSupply: z.number(), ended: z.number(), waiting: z.number() }),
  /** Points whose switch ended refused (objected, rejected, unable to register, withdrawn) or whose flow was refused: how many, and the first REFUSALS_LISTED. */
  refused: z
    .object({
      total: z.number(),
      points: z.array(
        z.object({ account: z.string(), mpxn: z.string(), status: z.string(), outcome: z.string(), since: z.string(), detail: z.string().nullable() }),
      ),
    })
    .default({ total: 0, points: [] }),
});
export type SupplyFunnelCounts = z.infer<typeof supplyFunnelSchema>;

// domain/supply.ts: the refused final classes (endedRefused) and a refused flow.
const REFUSED_OUTCOMES = `('objected', 'rejected', 'unable_to_register', 'withdrawn', 'flow_refused')`;

/** The switch's ledger: what was read from the tenant and what flows were sent, per meter point. */
export function createSupplyLedger(pool: Pool) {
  return {
    /** What the ledger knows of each point of an account before its statuses are read (flows refused). */
    async flowHistory(ref: Pick<SupplyAccountRef, 'supplierCode' | 'externalAccountNumber'>): Promise<Map<string, FlowHistory>> {
      const r = await pool.query<{ mpxn: string; flow_refused: boolean }>(
        'SELECT mpxn, flow_refused FROM migrate.supply_meter_points WHERE supplier_code = $1 AND external_account_number = $2',
        [ref.supplierCode, ref.externalAccountNumber],
      );
      return new Map(r.rows.map((x) => [x.mpxn, { flowRefused: x.flow_refused }]));
    },

    /** Each point's status as read now; `status_since` moves only when the status changes. */
    async recordStatuses(ref: SupplyAccountRef, points: ReadonlyArray<{ mpxn: string; status: string; outcome: PointOutcome | undefined }>): Promise<void> {
      for (const p of points) {
        await pool.query(
          `INSERT INTO migrate.supply_meter_points (supplier_code, external_account_number, mpxn, run_id, account_number, workflow_id, status, outcome)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (supplier_code, external_account_number, mpxn) DO UPDATE SET
             status_since = CASE WHEN supply_meter_points.status = EXCLUDED.status THEN supply_meter_points.status_since ELSE clock_timestamp() END,
             status = EXCLUDED.status, outcome = EXCLUDED.outcome, run_id = EXCLUDED.run_id, workflow_id = EXCLUDED.workflow_id,
             updated_at = clock_timestamp()`,
          [ref.supplierCode, ref.externalAccountNumber, p.mpxn, ref.runId, ref.accountNumber, ref.workflowId, p.status, p.outcome ?? null],
        );
      }
    },

    /** The platform's answer to one flow request, per point: sent, or refused with its detail (kept, never retried blindly). */
    async recordFlowAnswers(ref: SupplyAccountRef, answers: ReadonlyArray<{ mpxn: string; sent: boolean; errorDetail?: string }>): Promise<void> {
      for (const a of answers) {
        await pool.query(
          `UPDATE migrate.supply_meter_points SET
             flows_sent = flows_sent + CASE WHEN $4 THEN 1 ELSE 0 END,
             last_flow_at = CASE WHEN $4 THEN clock_timestamp() ELSE last_flow_at END,
             flow_refused = NOT $4,
             flow_errors = flow_errors + CASE WHEN $4 THEN 0 ELSE 1 END,
             flow_error_detail = CASE WHEN $4 THEN flow_error_detail ELSE $5 END,
             outcome = CASE WHEN $4 THEN NULL WHEN status = 'PRE_REGISTRATION' THEN 'flow_refused' ELSE outcome END,
             updated_at = clock_timestamp()
           WHERE supplier_code = $1 AND external_account_number = $2 AND mpxn = $3`,
          [ref.supplierCode, ref.externalAccountNumber, a.mpxn, a.sent, a.errorDetail ?? null],
        );
      }
    },

    /** Every point of a run's accounts, by account and MPxN (`run supply`). */
    async runPoints(runId: string): Promise<SupplyPointRow[]> {
      const r = await pool.query<SupplyPointRow>(
        `SELECT ${COLUMNS} FROM migrate.supply_meter_points WHERE run_id = $1 ORDER BY external_account_number, mpxn`,
        [runId],
      );
      return r.rows.map(iso);
    },

    /**
     * A run's switch funnel by SQL (index on run_id; counted in Postgres, at most REFUSALS_LISTED rows read): points by status, the
     * waiting ones by whole days since first read, accounts on supply (every point), ended short of
     * it (every point left), or waiting; the refused ones with their detail. Null when the run follows no meter point.
     */
    async runFunnel(runId: string): Promise<SupplyFunnelCounts | null> {
      const byStatus = await pool.query<{ status: string; n: number }>(
        'SELECT status, count(*)::int AS n FROM migrate.supply_meter_points WHERE run_id = $1 GROUP BY status ORDER BY status',
        [runId],
      );
      if (byStatus.rows.length === 0) return null;
      const waited = await pool.query<{ days: number; n: number }>(
        `SELECT floor(extract(epoch FROM clock_timestamp() - first_read_at) / 86400)::int AS days, count(*)::int AS n
         FROM migrate.supply_meter_points WHERE run_id = $1 AND outcome IS NULL GROUP BY 1 ORDER BY 1`,
        [runId],
      );
      const accounts = await pool.query<{ on_supply: number; ended: number; waiting: number }>(
        `SELECT count(*) FILTER (WHERE on_supply)::int AS on_supply, count(*) FILTER (WHERE ended AND NOT on_supply)::int AS ended,
                count(*) FILTER (WHERE NOT ended)::int AS waiting
         FROM (SELECT bool_and(outcome = 'on_supply') AS on_supply, bool_and(outcome IS NOT NULL) AS ended
               FROM migrate.supply_meter_points WHERE run_id = $1 GROUP BY external_account_number) a`,
        [runId],
      );
      const refused = await pool.query<{ account: string; mpxn: string; status: string; outcome: string; since: Date; detail: string | null; total: number }>(
        `SELECT external_account_number AS account, mpxn, status, outcome, status_since AS since, flow_error_detail AS detail, count(*) OVER ()::int AS total
         FROM migrate.supply_meter_points WHERE run_id = $1 AND outcome IN ${REFUSED_OUTCOMES}
         ORDER BY external_account_number, mpxn LIMIT ${REFUSALS_LISTED}`,
        [runId],
      );
      return {
        refused: {
          total: refused.rows[0]?.total ?? 0,
          points: refused.rows.map(({ total: _total, since, ...p }) => ({ ...p, since: new Date(since).toISOString() })),
        },
        byStatus: Object.fromEntries(byStatus.rows.map((r) => [r.status, r.n])),
        waitingByDays: Object.fromEntries(waited.rows.map((r) => [String(r.days), r.n])),
        accounts: { onSupply: accounts.rows[0].on_supply, ended: accounts.rows[0].ended, waiting: accounts.rows[0].waiting },
      };
    },

    /**
     * A plan wave's switch numbers (its exit gate, domain/plan-gates.ts supplyGate), by SQL: the run's
     * points, those on supply, those still followed, and those followed longer than `maxDays` since
     * their first read (none without a maximum).
     */
    async runGateCounts(runId: string, maxDays: number | null): Promise<{ points: number; onSupply: number; waiting: number; overMaxDays: number }> {
      const r = await pool.query<{ points: number; on_supply: number; waiting: number; over: number }>(
        `SELECT count(*)::int AS points, count(*) FILTER (WHERE outcome = 'on_supply')::int AS on_supply,
                count(*) FILTER (WHERE outcome IS NULL)::int AS waiting,
                count(*) FILTER (WHERE outcome IS NULL AND $2::float8 IS NOT NULL
                                 AND clock_timestamp() - first_read_at > make_interval(secs => $2::float8 * 86400))::int AS over
         FROM migrate.supply_meter_points WHERE run_id = $1`,
        [runId, maxDays],
      );
      const x = r.rows[0];
      return { points: x.points, onSupply: x.on_supply, waiting: x.waiting, overMaxDays: x.over };
    },

    /** The workflow following the switch of a platform account (the lifecycle events name the account number). */
    async workflowsForAccountNumber(accountNumber: string): Promise<string[]> {
      const r = await pool.query<{ workflow_id: string }>(
        'SELECT DISTINCT workflow_id FROM migrate.supply_meter_points WHERE account_number = $1 AND outcome IS NULL',
        [accountNumber],
      );
      return r.rows.map((x) => x.workflow_id);
    },
  };
}

export type SupplyLedger = ReturnType<typeof createSupplyLedger>;
