import type { Pool } from '../clients/db';
import { MATCH_STATUSES, type MatchStatus } from './inbox-record';
import { bySource, runSummary } from './run-summary';

export interface InboxEventRef {
  eventId: string;
  eventType: string;
  externalIdentifier: string | null;
  receivedAt: Date;
  deliveries: number;
  note: string | null;
}

export interface InboxSummary {
  total: number;
  byStatus: Record<MatchStatus, number>;
  byType: Array<{ eventType: string; matchStatus: MatchStatus; count: number }>;
  unmatched: InboxEventRef[];
  ambiguous: InboxEventRef[];
  unknown: InboxEventRef[];
  rejectedByReason: Record<string, number>;
}

/**
 * Inbox counts for a run report. With a run id: the events matched to the run, plus every event
 * nobody claimed (unmatched, ambiguous, unknown) received while the run was going, because an
 * event names no run. Lists are capped at `listLimit`.
 */
export async function inboxSummary(pool: Pool, opts: { runId?: string; listLimit?: number } = {}): Promise<InboxSummary> {
  const limit = opts.listLimit ?? 100;
  // $1 run id (or null for everything)
  const scope = `(
    $1::text is null
    or i.matched_run_id = $1
    or (i.matched_run_id is null and exists (
      select 1 from migrate.runs r where r.run_id = $1
         and i.received_at >= r.started_at and i.received_at <= coalesce(r.finished_at, now()))))`;

  const grouped = await pool.query<{ event_type: string; match_status: MatchStatus; count: number }>(
    `select event_type, match_status, count(*)::int as count from migrate.inbox i where ${scope}
      group by event_type, match_status order by event_type, match_status`,
    [opts.runId ?? null],
  );
  const byStatus = Object.fromEntries(MATCH_STATUSES.map((s) => [s, 0])) as Record<MatchStatus, number>;
  let total = 0;
  for (const g of grouped.rows) {
    byStatus[g.match_status] += g.count;
    total += g.count;
  }

  const list = async (statuses: MatchStatus[]) => {
    const r = await pool.query(
      `select event_id, event_type, external_identifier, received_at, deliveries, note from migrate.inbox i
        where ${scope} and match_status = any($2) order by received_at limit $3`,
      [opts.runId ?? null, statuses, limit],
    );
    return r.rows.map((row): InboxEventRef => ({
      eventId: row.event_id,
      eventType: row.event_type,
      externalIdentifier: row.external_identifier,
      receivedAt: row.received_at,
      deliveries: row.deliveries,
      note: row.note,
    }));
  };

  // Rows (authenticated deliveries that could not be read) and per-minute counts (refused before reading).
  const rejected = await pool.query<{ reason: string; count: number }>(
    `select reason, sum(n)::int as count from (
       select reason, 1 as n, received_at as at from migrate.rejected_deliveries
       union all
       select reason, count as n, minute as at from migrate.rejection_counts) d
      where $1::text is null or exists (
        select 1 from migrate.runs r where r.run_id = $1
           and d.at >= date_trunc('minute', r.started_at) and d.at <= coalesce(r.finished_at, now()))
      group by reason order by reason`,
    [opts.runId ?? null],
  );

  return {
    total,
    byStatus,
    byType: grouped.rows.map((g) => ({ eventType: g.event_type, matchStatus: g.match_status, count: g.count })),
    unmatched: await list(['unmatched', 'pending']),
    ambiguous: await list(['ambiguous']),
    unknown: await list(['unknown_type']),
    rejectedByReason: Object.fromEntries(rejected.rows.map((r) => [r.reason, r.count])),
  };
}

export interface OutcomeSources {
  /** Recorded outcomes by `outcome_source` ('event', 'poll', 'local', …; 'unknown' when unset). */
  bySource: Record<string, number>;
  fromEvents: number;
  fromPolling: number;
  total: number;
}

/** How the run's recorded outcomes were learned: from platform events or by status polling (the ledger's per-run counters). */
export async function outcomeSources(pool: Pool, runId: string): Promise<OutcomeSources> {
  const counted = bySource(await runSummary(pool, runId));
  const bySourceMap = Object.fromEntries(counted.map((x) => [x.label, x.count]));
  return {
    bySource: bySourceMap,
    fromEvents: bySourceMap.event ?? 0,
    fromPolling: bySourceMap.poll ?? 0,
    total: counted.reduce((n, x) => n + x.count, 0),
  };
}
