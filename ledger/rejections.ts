import type { Pool } from '../clients/db';
import { sha256Hex } from './inbox-record';

export interface Rejection {
  receivedVia: string;
  /** A stable code: signature_mismatch, signature_expired, body_too_large, malformed_json, … */
  reason: string;
  /** Hashed and measured only: a rejected body is never stored. */
  body?: string | Buffer;
  bodyBytes?: number;
  remoteAddress?: string;
}

export async function recordRejection(pool: Pool, r: Rejection): Promise<void> {
  const bytes = r.body !== undefined ? Buffer.byteLength(r.body) : r.bodyBytes;
  await pool.query(`insert into migrate.rejected_deliveries (received_via, reason, body_sha256, body_bytes, remote_address) values ($1, $2, $3, $4, $5)`, [
    r.receivedVia,
    r.reason,
    r.body !== undefined ? sha256Hex(r.body) : null,
    bytes ?? null,
    r.remoteAddress ?? null,
  ]);
}

/** Rejections counted in a process, added to the minute they happened in (one upsert per minute, source kind and reason). */
export async function addRejectionCounts(pool: Pool, counts: Array<{ minute: Date; receivedVia: string; reason: string; count: number }>): Promise<void> {
  if (counts.length === 0) return;
  await pool.query(
    `insert into migrate.rejection_counts (minute, received_via, reason, count)
     select * from unnest($1::timestamptz[], $2::text[], $3::text[], $4::bigint[])
     on conflict (minute, received_via, reason) do update set count = migrate.rejection_counts.count + excluded.count`,
    [counts.map((c) => c.minute), counts.map((c) => c.receivedVia), counts.map((c) => c.reason), counts.map((c) => c.count)],
  );
}
