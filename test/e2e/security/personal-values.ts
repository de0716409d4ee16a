import type { Pool } from '../../../clients/db';
import { normalisePhone } from '../../../source/normalise';

/**
 * Every personal value the source holds for these accounts (names of any length, e-mails, phone
 * numbers, birth dates, billing and supply addresses), in every form the pipeline could write it:
 * as in the source, trimmed, and normalised (E.164 and bare digits for phones, ISO for dates).
 */
export async function personalValues(pool: Pool, accounts: string[]): Promise<string[]> {
  const contacts = await pool.query(
    `select c.first_name, c.surname, c.email, c.mobile_phone, c.home_phone, c.date_of_birth
       from legacy.contacts c join legacy.accounts a on a.account_id = c.account_id where a.account_number = any($1)`,
    [accounts],
  );
  const billing = await pool.query(
    `select billing_name, billing_line1, billing_line2, billing_town, billing_postcode, billing_email from legacy.accounts where account_number = any($1)`,
    [accounts],
  );
  const supply = await pool.query(
    `select s.line1, s.line2, s.postcode from legacy.supply_addresses s join legacy.accounts a on a.account_id = s.account_id where a.account_number = any($1)`,
    [accounts],
  );
  const values = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v !== 'string') return;
    if (v.trim().length >= 2) values.add(v.trim());
  };
  for (const row of contacts.rows) {
    for (const v of [row.first_name, row.surname, row.email]) add(v);
    for (const p of [row.mobile_phone, row.home_phone]) {
      if (!p) continue;
      add(p);
      const n = normalisePhone(p);
      if (n) {
        add(n);
        add(n.replace(/^\+44/, '0'));
      }
      const digits = String(p).replace(/\D/g, '');
      if (digits.length >= 6) add(digits);
    }
    if (row.date_of_birth) {
      add(row.date_of_birth);
      const [d, m, y] = String(row.date_of_birth).trim().split('/');
      if (y) add(`${y}-${m}-${d}`);
    }
  }
  for (const row of [...billing.rows, ...supply.rows]) for (const v of Object.values(row)) add(v);
  return [...values];
}

/** Word-bounded for short values (a two-letter name must not match inside an ordinary word). */
export function contains(haystack: string, value: string): boolean {
  if (value.length >= 6) return haystack.includes(value);
  return new RegExp(`(^|[^A-Za-z0-9])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9])`).test(haystack);
}
