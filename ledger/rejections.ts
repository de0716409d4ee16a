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
