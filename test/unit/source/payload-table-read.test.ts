import type { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import { PayloadTableSource } from '../../../source/payload-table';

/**
 * How one row of a team's payload table becomes an account's payload, or why it cannot (the
 * account fails at `source`). The rows are what Postgres would return for the size-guarded
 * select; the paging and the SQL itself are proven on a real Postgres in payload-table-paging.
 */

type Row = { bytes: number | null; text: string | null };

/** A pool whose one query answers `rows` and remembers what it was asked. */
function poolReturning(rows: Row[]) {
  const asked: unknown[][] = [];
  const pool = {
    query: async (_sql: string, params: unknown[]) => {
      asked.push(params);
      return { rows, rowCount: rows.length };
    },
  } as unknown as Pool;
  return { pool, asked };
}

const read = async (rows: Row[], ext = 'A-1', max?: number) => {
  const { pool, asked } = poolReturning(rows);
  const source = new PayloadTableSource(pool, 'team.payloads', max === undefined ? {} : { maxPayloadBytes: max });
  return { result: await source.getPayload(ext), asked };
};
const row = (payload: unknown): Row => {
  const text = JSON.stringify(payload);
  return { bytes: Buffer.byteLength(text), text };
};

describe('a payload table row', () => {
  it("whose payload names the row's own number is the account's payload, with where it came from", async () => {
    const payload = { external_account_number: 'A-1', account_type: 'DOMESTIC' };
    const { result, asked } = await read([row(payload)], 'A-1', 5000);
    expect(result).toEqual({ ok: true, payload, where: '"team"."payloads"' });
    expect(asked).toEqual([['A-1', 5000]]);
  });

  it('whose payload names another number fails the account with external_account_number_mismatch on that field', async () => {
    const { result } = await read([row({ external_account_number: 'A-2' })], 'A-1');
    expect(result).toMatchObject({ ok: false, code: 'external_account_number_mismatch', attr: 'external_account_number' });
    // The detail names the table, never the payload's values.
    expect((result as { detail: string }).detail).not.toContain('A-2');
  });

  it('whose payload has no number, or a number of another type, is a mismatch too', async () => {
    expect((await read([row({ account_type: 'DOMESTIC' })], 'A-1')).result).toMatchObject({ ok: false, code: 'external_account_number_mismatch' });
    expect((await read([row({ external_account_number: 1 })], '1')).result).toMatchObject({ ok: false, code: 'external_account_number_mismatch' });
  });

  it('that is not there is no account; two rows for one number fail it as a duplicate', async () => {
    expect((await read([])).result).toBeUndefined();
    expect((await read([row({ external_account_number: 'A-1' }), row({ external_account_number: 'A-1' })])).result).toMatchObject({
      ok: false,
      code: 'duplicate_external_account_number',
    });
  });

  it('over the size limit, null, or not an object fails with its own code', async () => {
    expect((await read([{ bytes: 9000, text: null }], 'A-1', 5000)).result).toMatchObject({
      ok: false,
      code: 'payload_too_large',
      detail: expect.stringContaining('9000 bytes, over the 5000-byte limit'),
    });
    expect((await read([{ bytes: null, text: null }])).result).toMatchObject({ ok: false, code: 'payload_not_an_object' });
    for (const v of [[{ external_account_number: 'A-1' }], 'A-1', 7, null]) {
      expect((await read([row(v)])).result).toMatchObject({ ok: false, code: 'payload_not_an_object' });
    }
  });
});
