import type { Pool } from '../clients/db';
import { getConfig } from '../config';
import { loadCodecKeys, type CodecKeyring } from '../codec/keys';
import { isSealed, openText, sealText } from '../codec/sealed-value';

/**
 * The ledger's personal columns sealed at rest (codec/sealed-value.ts), with the keyring the
 * Temporal payload codec uses. Every write of such a column seals here and every read opens here:
 * the SQL moves ciphertext, and operator queries filter on the plain, non-personal columns beside
 * it (run, account number, stage, code, field path, status). A value written before sealing
 * existed reads as it was until it is purged or rewritten.
 *
 * The columns, named as each value's additional data: a value opens only in its own column.
 */
export const SEALED = {
  payloadRequest: 'account_payloads.request',
  errorDetail: 'account_errors.detail',
  differenceExpected: 'reconciliation_differences.expected',
  differenceFound: 'reconciliation_differences.found',
  inboxRaw: 'inbox.raw',
  postImportItem: 'post_import_items.item',
  postImportErrorDetail: 'post_import_items.error_detail',
} as const;
export type SealedColumn = (typeof SEALED)[keyof typeof SEALED];

const byPool = new WeakMap<object, CodecKeyring>();
let processKeyring: CodecKeyring | undefined;

/** Seals and opens this pool's values with `keyring` (a process holding several ledgers' keys, and tests). */
export function useLedgerKeys<P extends Pool>(pool: P, keyring: CodecKeyring): P {
  byPool.set(pool, keyring);
  return pool;
}

/** The pool's keyring, else the process's (CODEC_KEYS / CODEC_KEY_FILE, as the codec loads them). */
export function ledgerKeys(pool: Pool): CodecKeyring {
  const own = byPool.get(pool);
  if (own) return own;
  processKeyring ??= loadCodecKeys(getConfig());
  return processKeyring;
}

/** A JSON value sealed for a jsonb column (stored as a JSON string); undefined stays SQL null. */
export function sealJson(pool: Pool, column: SealedColumn, value: unknown): string | null {
  if (value === undefined) return null;
  return JSON.stringify(sealText(ledgerKeys(pool), column, JSON.stringify(value)));
}

/** A jsonb column's value as the pg driver returns it, opened. */
export function openJson<T = unknown>(pool: Pool, column: SealedColumn, stored: unknown): T {
  if (typeof stored === 'string' && isSealed(stored)) return JSON.parse(openText(ledgerKeys(pool), column, stored)) as T;
  return stored as T;
}

/** A text column's value sealed; the empty string (no detail) stays empty. */
export function sealString(pool: Pool, column: SealedColumn, value: string): string;
export function sealString(pool: Pool, column: SealedColumn, value: string | null | undefined): string | null;
export function sealString(pool: Pool, column: SealedColumn, value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return value === '' ? '' : sealText(ledgerKeys(pool), column, value);
}

export function openString(pool: Pool, column: SealedColumn, stored: string): string;
export function openString(pool: Pool, column: SealedColumn, stored: string | null | undefined): string | null;
export function openString(pool: Pool, column: SealedColumn, stored: string | null | undefined): string | null {
  if (stored === null || stored === undefined) return null;
  return openText(ledgerKeys(pool), column, stored);
}
