import type { Pool } from 'pg';
import { PAYLOAD_CODES, type PayloadRead, type PayloadSource } from './adapter-contract';
import { duplicateRead } from './payload-file';
import { MAX_PAYLOAD_LINE_BYTES } from '../schemas/json-lines';

/**
 * A team's own payloads in a Postgres table or view: `external_account_number text`, `payload jsonb`.
 * Pages of numbers by keyset on the number (in the column's order, so an index on it serves each
 * page); a payload is read on its own, by its number, and its size is asked before it is fetched.
 * The number column must agree with the payload's own.
 */
export class PayloadTableSource implements PayloadSource {
  private readonly relation: string;

  constructor(
    private readonly pool: Pool,
    table: string,
    private readonly opts: { maxPayloadBytes?: number } = {},
  ) {
    // schema.table is checked by the source spec; quoted here so case and reserved words survive.
    this.relation = table
      .split('.')
      .map((p) => `"${p.replace(/"/g, '""')}"`)
      .join('.');
  }

  async listAccountNumbers(opts: { after?: string; limit: number }): Promise<string[]> {
    // In the column's own collation, as source/postgres-adapter.ts and ledger/attempts.ts page
    // theirs: an index (or primary key) on the column then serves each page as a range scan of one
    // page of keys. A COLLATE of ours (byte order, say) matches no index on the column and reads the
    // whole table's keys on every page. The cursor only ever comes back to this query: no other
    // order has to agree with it.
    const r = await this.pool.query<{ n: string }>(
      `SELECT external_account_number AS n FROM ${this.relation}
        WHERE external_account_number IS NOT NULL AND ($1::text IS NULL OR external_account_number > $1)
        GROUP BY external_account_number ORDER BY external_account_number LIMIT $2`,
      [opts.after ?? null, opts.limit],
    );
    return r.rows.map((x) => x.n);
  }

  async getPayload(externalAccountNumber: string): Promise<PayloadRead | undefined> {
    const max = this.opts.maxPayloadBytes ?? MAX_PAYLOAD_LINE_BYTES;
    const r = await this.pool.query<{ bytes: number; text: string | null }>(
      `SELECT octet_length(payload::text) AS bytes, CASE WHEN octet_length(payload::text) <= $2 THEN payload::text END AS text
         FROM ${this.relation} WHERE external_account_number = $1 LIMIT 10`,
      [externalAccountNumber, max],
    );
    if (r.rows.length === 0) return undefined;
    const where = this.relation;
    if (r.rows.length > 1) return duplicateRead(r.rows.length, `rows of ${where}`);
    const [row] = r.rows;
    if (row.text === null) {
      if (row.bytes === null) return { ok: false, code: PAYLOAD_CODES.notAnObject, detail: `${where}: the payload is null` };
      return { ok: false, code: PAYLOAD_CODES.tooLarge, detail: `${where}: the payload is ${row.bytes} bytes, over the ${max}-byte limit of one payload` };
    }
    const payload = JSON.parse(row.text) as unknown;
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      return { ok: false, code: PAYLOAD_CODES.notAnObject, detail: `${where}: the payload is JSON but not an object` };
    }
    const own = (payload as { external_account_number?: unknown }).external_account_number;
    if (own !== externalAccountNumber) {
      return {
        ok: false,
        code: 'external_account_number_mismatch',
        attr: 'external_account_number',
        detail: `${where}: the row's external_account_number is not the payload's own`,
      };
    }
    return { ok: true, payload, where };
  }

  async close(): Promise<void> {
    // The pool belongs to the caller.
  }
}
