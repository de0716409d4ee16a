import type { Pool } from '../clients/db';

/**
 * Purging a run's personal data (`kraken-migrate db purge`): the values are removed, the record of
 * what happened stays. Attempts, outcomes, error codes and attrs, reconciliation paths and counts,
 * and the run itself remain, so reports, counts and "exactly one outcome per account" still hold;
 * payloads, error details, differences' values, the deliveries of the run's events and the content
 * of its carried-over items are gone. A run still going (running, paused) is refused: its workflows
 * read their payloads.
 */

export const FINISHED_STATUSES = ['completed', 'cancelled', 'failed'] as const;

export interface PurgedRun {
  runId: string;
  payloads: number;
  errorDetails: number;
  differences: number;
  inboxEvents: number;
  postImportItems: number;
}

export class PurgeRefused extends Error {
  constructor(
    readonly code: 'run_not_found' | 'run_in_progress',
    message: string,
  ) {
    super(message);
    this.name = 'PurgeRefused';
  }
}

/** Why a run's purge is refused (none in the ledger, or one still going: its workflows read their payloads), or undefined when it may go. */
export function purgeRefusal(runId: string, status: string | undefined): PurgeRefused | undefined {
  if (status === undefined) return new PurgeRefused('run_not_found', `no run ${runId} in the ledger`);
  if (!(FINISHED_STATUSES as readonly string[]).includes(status))
    return new PurgeRefused('run_in_progress', `run ${runId} is ${status}: its workflows still read their payloads; cancel it or let it finish first`);
  return undefined;
}

/** Finished runs not purged yet that finished more than `days` days ago, oldest first. */
export async function runsPastRetention(pool: Pool, days: number): Promise<string[]> {
  const r = await pool.query<{ run_id: string }>(
    `select run_id from migrate.runs
      where purged_at is null and status = any($1) and finished_at < now() - make_interval(days => $2)
      order by finished_at, run_id`,
    [FINISHED_STATUSES, days],
  );
  return r.rows.map((x) => x.run_id);
}

/**
 * Deliveries kept longer than `days` days, whichever run they belong to (events for no attempt
 * included), emptied; a delivery still waiting for its attempt (pending) is left to the rematch.
 */
export async function purgeInboxOlderThan(pool: Pool, days: number): Promise<number> {
  const r = await pool.query(
    `update migrate.inbox set raw = 'null'::jsonb
      where received_at < now() - make_interval(days => $1) and match_status <> 'pending' and raw <> 'null'::jsonb`,
    [days],
  );
  return r.rowCount ?? 0;
}

/** One run's personal values removed, in one transaction; counts of what was cleared. */
export async function purgeRun(pool: Pool, runId: string): Promise<PurgedRun> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const run = await client.query<{ status: string }>(`select status from migrate.runs where run_id = $1 for update`, [runId]);
    const refused = purgeRefusal(runId, run.rows[0]?.status);
    if (refused) throw refused;
    const count = async (sql: string) => (await client.query(sql, [runId])).rowCount ?? 0;
    // The payload row stays (documents, and the extraction time `run delta` starts from); its request goes.
    const payloads = await count(`update migrate.account_payloads set request = 'null'::jsonb where run_id = $1 and request <> 'null'::jsonb`);
    const errorDetails = await count(`update migrate.account_errors set detail = '' where run_id = $1 and detail <> ''`);
    const differences = await count(
      `update migrate.reconciliation_differences set expected = null, found = null where run_id = $1 and (expected is not null or found is not null)`,
    );
    const inboxEvents = await count(`update migrate.inbox set raw = 'null'::jsonb where matched_run_id = $1 and raw <> 'null'::jsonb`);
    // An item keeps its content until it is completed: a pending one is sent by the next delta, a
    // failed one may be retried (`--retry-failed`). The platform's words on a failure go either way.
    const postImportItems = await count(
      `update migrate.post_import_items
          set item = case when status = 'completed' then 'null'::jsonb else item end, error_detail = null
        where run_id = $1 and ((status = 'completed' and item <> 'null'::jsonb) or error_detail is not null)`,
    );
    await client.query(`update migrate.runs set purged_at = now() where run_id = $1`, [runId]);
    await client.query('commit');
    return { runId, payloads, errorDetails, differences, inboxEvents, postImportItems };
  } catch (e) {
    await client.query('rollback').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}
