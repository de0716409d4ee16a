import type { Pool } from '../clients/db';
import { openJson, SEALED } from './sealing';
import { isPersonalPath, maskedDetail, maskedValue, personalValues } from '../schemas/bounded-output';

/**
 * What the reports may show of an account's errors and differences: the same masking `validate`
 * applies (schemas/bounded-output.ts), with the personal values of each account's payload.
 */
export async function personalValuesByAccount(pool: Pool, runId: string, accounts: readonly string[]): Promise<Map<string, string[]>> {
  const unique = [...new Set(accounts)];
  if (unique.length === 0) return new Map();
  const r = await pool.query<{ external_account_number: string; request: unknown }>(
    `select external_account_number, request from migrate.account_payloads where run_id = $1 and external_account_number = any($2::text[])`,
    [runId, unique],
  );
  return new Map(r.rows.map((x) => [x.external_account_number, personalValues(openJson(pool, SEALED.payloadRequest, x.request))]));
}

/** An error's detail masked: personal values of the account hidden, quotes hidden under a personal attr or source field. */
export function reportDetail(detail: string, where: { attr?: string | null; sourceField?: string | null }, personal: string[] = []): string {
  const attr = [where.attr ?? '', where.sourceField ?? ''].join('.');
  return detail ? maskedDetail(detail, attr, personal) : detail;
}

/** A difference with its values hidden when its path is personal. */
export function maskedDifference<T extends { path: string; expected?: unknown; found?: unknown }>(d: T): T {
  return isPersonalPath(d.path) ? { ...d, expected: maskedValue(d.path, d.expected), found: maskedValue(d.path, d.found) } : d;
}
