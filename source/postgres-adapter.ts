import type { Pool } from 'pg';
import type { SourceAdapter } from './adapter-contract';
import type { SourceAccount } from './types';

/**
 * The legacy database (schema `legacy`). Pages of account numbers by keyset; each page's accounts
 * are loaded by one statement (LOAD_ACCOUNTS_SQL below), so nothing is ever loaded table-wide.
 */
export class PostgresSourceAdapter implements SourceAdapter {
  constructor(private readonly pool: Pool) {}

  async listAccountNumbers(opts: { after?: string; limit: number }): Promise<string[]> {
    const r = await this.pool.query<{ account_number: string }>(
      `SELECT DISTINCT account_number FROM legacy.accounts
        WHERE $1::text IS NULL OR account_number > $1
        ORDER BY account_number LIMIT $2`,
      [opts.after ?? null, opts.limit],
    );
    return r.rows.map((x) => x.account_number);
  }

  async getAccount(externalAccountNumber: string): Promise<SourceAccount | undefined> {
    return (await this.loadAccounts([externalAccountNumber]))[0];
  }

  async *stream(opts?: { batchSize?: number }): AsyncIterable<SourceAccount> {
    const batchSize = opts?.batchSize ?? 500;
    let after: string | undefined;
    for (;;) {
      const numbers = await this.listAccountNumbers({ after, limit: batchSize });
      if (numbers.length === 0) return;
      yield* await this.loadAccounts(numbers);
      after = numbers[numbers.length - 1];
    }
  }

  async close(): Promise<void> {
    // The pool belongs to the caller.
  }

  /** The accounts holding `numbers`, in the order given; unknown numbers are skipped. */
  async loadAccounts(numbers: string[]): Promise<SourceAccount[]> {
    if (numbers.length === 0) return [];
    const r = await this.pool.query<{ account: SourceAccount }>({ name: 'legacy-load-accounts', text: LOAD_ACCOUNTS_SQL, values: [numbers] });
    return r.rows.map((x) => x.account);
  }
}

/**
 * Every row an account needs, nested as the transform reads it, in one statement: one round trip
 * per batch instead of one query per table (an account read is on every account's hot path).
 * `row_to_json` keeps the rows as `pg` would give them here: every legacy column is text, integer,
 * boolean or an id (int8 parses as a number, clients/db), so JSON numbers, booleans and strings
 * are the same values. Column order is kept (json, not jsonb). Of several rows holding one
 * number, the lowest account_id is the account; the others are its conflicting ids.
 */
const LOAD_ACCOUNTS_SQL = `
SELECT json_build_object(
  'account', row_to_json(a),
  'contacts', (SELECT coalesce(json_agg(c ORDER BY c.contact_id), '[]') FROM legacy.contacts c WHERE c.account_id = a.account_id),
  'balance', (SELECT row_to_json(b) FROM legacy.balances b WHERE b.account_id = a.account_id),
  'supply_addresses', (
    SELECT coalesce(json_agg(sa ORDER BY sa.supply_address_id), '[]') FROM (
      SELECT s.*, (
        SELECT coalesce(json_agg(mpx ORDER BY mpx.meter_point_id), '[]') FROM (
          SELECT mp.*,
            (SELECT coalesce(json_agg(ag ORDER BY ag.agreement_id), '[]') FROM legacy.agreements ag WHERE ag.meter_point_id = mp.meter_point_id) AS agreements,
            (SELECT coalesce(json_agg(mx ORDER BY mx.meter_id), '[]') FROM (
              SELECT m.*,
                (SELECT coalesce(json_agg(rg ORDER BY rg.register_row_id), '[]') FROM legacy.registers rg WHERE rg.meter_id = m.meter_id) AS registers,
                (SELECT coalesce(json_agg(rd ORDER BY rd.reading_id), '[]') FROM legacy.readings rd WHERE rd.meter_id = m.meter_id) AS readings
              FROM legacy.meters m WHERE m.meter_point_id = mp.meter_point_id) mx) AS meters
          FROM legacy.meter_points mp WHERE mp.supply_address_id = s.supply_address_id) mpx) AS meter_points
      FROM legacy.supply_addresses s WHERE s.account_id = a.account_id) sa),
  'transactions', (SELECT coalesce(json_agg(t ORDER BY t.transaction_id), '[]') FROM legacy.transactions t WHERE t.account_id = a.account_id),
  'payment_schedules', (SELECT coalesce(json_agg(ps ORDER BY ps.schedule_id), '[]') FROM legacy.payment_schedules ps WHERE ps.account_id = a.account_id),
  'notes', (SELECT coalesce(json_agg(n ORDER BY n.note_id), '[]') FROM legacy.notes n WHERE n.account_id = a.account_id),
  'bills', (SELECT coalesce(json_agg(bl ORDER BY bl.bill_id), '[]') FROM legacy.bills bl WHERE bl.account_id = a.account_id),
  'documents', (SELECT coalesce(json_agg(d ORDER BY d.document_id), '[]') FROM legacy.documents d WHERE d.account_id = a.account_id),
  'conflicting_account_ids', (SELECT coalesce(json_agg(o.account_id ORDER BY o.account_id), '[]') FROM legacy.accounts o
                               WHERE o.account_number = a.account_number AND o.account_id <> a.account_id)
) AS account
FROM unnest($1::text[]) WITH ORDINALITY AS wanted(number, ord)
CROSS JOIN LATERAL (SELECT * FROM legacy.accounts x WHERE x.account_number = wanted.number ORDER BY x.account_id LIMIT 1) a
ORDER BY wanted.ord`;
