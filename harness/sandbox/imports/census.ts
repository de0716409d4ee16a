import type pg from 'pg';
import { newAccountNumber } from './processor';

/**
 * What the tenant holds for a supplier, whoever imported it (the `query` lists and the transfer
 * status), read from the sandbox's own tables; and the admin side that plants accounts "imported
 * elsewhere" or removes one, so that a census has something to find.
 *
 * Imported: an account exists. Pending: no account, and an import process whose data is staged and
 * still live (PENDING or IN_PROGRESS, not a dry run). An import that ended ERRORED or CANCELLED is
 * neither (the transfer status calls it UNKNOWN: "a previous process attempt has failed").
 */

export type ImportProcessList = 'all' | 'imported' | 'pending';

export interface ImportProcessRow {
  external_account_number: string;
  kraken_account_number: string | null;
  account_created_at: Date | null;
}

const IMPORTED = `SELECT external_identifier AS external_account_number, number AS kraken_account_number, created_at AS account_created_at
  FROM sandbox.accounts WHERE import_supplier = $1 AND external_identifier > $2`;
const PENDING = `SELECT DISTINCT p.external_identifier AS external_account_number, NULL::text AS kraken_account_number, NULL::timestamptz AS account_created_at
  FROM sandbox.import_processes p
  WHERE p.import_supplier = $1 AND p.external_identifier > $2 AND p.status IN ('PENDING', 'IN_PROGRESS') AND NOT p.is_dry_run
    AND NOT EXISTS (SELECT 1 FROM sandbox.accounts a WHERE a.import_supplier = p.import_supplier AND a.external_identifier = p.external_identifier)`;
const LISTS: Record<ImportProcessList, string> = { imported: IMPORTED, pending: PENDING, all: `${IMPORTED} UNION ALL ${PENDING}` };

/** One page of a list, in external account number order, after `after` (keyset: a million rows are never held at once). */
export async function importProcessPage(pool: pg.Pool, list: ImportProcessList, supplier: string, after: string, limit: number): Promise<ImportProcessRow[]> {
  const r = await pool.query<ImportProcessRow>(`SELECT * FROM (${LISTS[list]}) l ORDER BY external_account_number LIMIT $3`, [supplier, after, limit]);
  return r.rows;
}

export type TransferStatus = { status: 'COMPLETED' | 'IN_PROGRESS' | 'UNKNOWN'; kraken_account_number: string } | undefined;

/** `account-transfer-status`: undefined when the tenant has never seen the account (404). */
export async function transferStatus(pool: pg.Pool, supplier: string, external: string): Promise<TransferStatus> {
  const r = await pool.query<{ number: string | null; live: boolean; known: boolean }>(
    `SELECT (SELECT number FROM sandbox.accounts WHERE import_supplier = $1 AND external_identifier = $2) AS number,
            EXISTS (SELECT 1 FROM sandbox.import_processes WHERE import_supplier = $1 AND external_identifier = $2
                     AND status IN ('PENDING', 'IN_PROGRESS') AND NOT is_dry_run) AS live,
            EXISTS (SELECT 1 FROM sandbox.import_processes WHERE import_supplier = $1 AND external_identifier = $2 AND NOT is_dry_run) AS known`,
    [supplier, external],
  );
  const { number, live, known } = r.rows[0];
  if (number) return { status: 'COMPLETED', kraken_account_number: number };
  if (live) return { status: 'IN_PROGRESS', kraken_account_number: '' };
  return known ? { status: 'UNKNOWN', kraken_account_number: '' } : undefined;
}

/**
 * Plants accounts no client imported: `imported` ones get an import process PROCESSED and an
 * account; `pending` ones a process that stays PENDING (never due). Numbers already known to the
 * sandbox for the supplier are left as they are. Returns how many were planted.
 */
export async function plantImportProcesses(pool: pg.Pool, p: { supplier: string; externals: string[]; state: 'imported' | 'pending' }): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const ins = await client.query<{ id: string; external_identifier: string }>(
      `INSERT INTO sandbox.import_processes
         (import_supplier, external_identifier, status, is_dry_run, payload, schedule_window_start, schedule_window_end, due_at, latest_event)
       SELECT $1, e, $3, false, '{}'::jsonb, now(), now() + interval '1 day', 'infinity', $4
       FROM unnest($2::text[]) AS e
       WHERE NOT EXISTS (SELECT 1 FROM sandbox.import_processes p WHERE p.import_supplier = $1 AND p.external_identifier = e)
         AND NOT EXISTS (SELECT 1 FROM sandbox.accounts a WHERE a.import_supplier = $1 AND a.external_identifier = e)
       RETURNING id, external_identifier`,
      [
        p.supplier,
        p.externals,
        p.state === 'imported' ? 'PROCESSED' : 'PENDING',
        p.state === 'imported' ? 'EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED' : 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED',
      ],
    );
    if (p.state === 'imported') {
      let left = ins.rows;
      // A random number can meet one already issued: those draw again.
      for (let round = 0; left.length > 0; round++) {
        if (round === 5) throw new Error('could not allocate unique account numbers');
        const numbers = left.map(() => newAccountNumber());
        const done = await client.query<{ external_identifier: string }>(
          `INSERT INTO sandbox.accounts (number, import_supplier, external_identifier, import_process_id)
           SELECT n, $1, e, id FROM unnest($2::text[], $3::text[], $4::bigint[]) AS t(n, e, id)
           ON CONFLICT DO NOTHING RETURNING external_identifier`,
          [p.supplier, numbers, left.map((r) => r.external_identifier), left.map((r) => r.id)],
        );
        const placed = new Set(done.rows.map((r) => r.external_identifier));
        left = left.filter((r) => !placed.has(r.external_identifier));
      }
      await client.query(
        `UPDATE sandbox.import_processes p SET kraken_identifier = a.number FROM sandbox.accounts a
          WHERE a.import_process_id = p.id AND p.id = ANY($1::bigint[])`,
        [ins.rows.map((r) => r.id)],
      );
    }
    await client.query('COMMIT');
    return ins.rowCount ?? 0;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

/** The tenant no longer holds the account (deleted on its side): its items go with it. True when there was one. */
export async function removeAccount(pool: pg.Pool, supplier: string, external: string): Promise<boolean> {
  const r = await pool.query('DELETE FROM sandbox.accounts WHERE import_supplier = $1 AND external_identifier = $2', [supplier, external]);
  return r.rowCount === 1;
}
