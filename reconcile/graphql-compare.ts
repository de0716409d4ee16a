import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { FieldTally, Reconciliation } from './compare';

/**
 * Reconciliation of what the REST account record does not carry, read back through the tenant's
 * GraphQL `account(accountNumber)`: balances, customers (the account's users) and billing details.
 * Pure: no I/O. Paths are the GraphQL record's (`ledgers.0.balance`, `users.1.familyName`).
 *
 * Money, exactly (no floats): the payload's `transfer_balance` and `ledgers[].ledger_balance` are
 * decimal strings in pounds, credit positive (the contract); the record's are integers in pence.
 * The sign convention relied on, checked on both fields: `balance` is positive in credit (what
 * public clients of the tenant read), `amountOwedByCustomer` positive when the customer owes (the
 * schema), so a ledger sent as `12.34` must show `balance` 1234 and `amountOwedByCustomer` -1234,
 * and the account's `balance(includeAllLedgers: true)` the transfer balance in pence. A flipped
 * sign, a lost ledger and a sub-penny drift (`12.345` sent, whatever whole pence shown) are each a
 * difference at that field.
 *
 * Personal data (names, e-mail, phones, date of birth, billing name and address) is compared here
 * and leaves only masked (`maskValue`): a difference carries the path and masked values, never the
 * values. Equal under the platform's normalisation (stated in docs/reconciliation.md): text trimmed
 * with inner whitespace runs as one space; an e-mail also in any case; postcodes in any case and
 * spacing; phone numbers equal when both read as the same E.164 number (UK by default); a missing,
 * null or empty value is the same as none.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

// --- Money --------------------------------------------------------------------------------------

const DECIMAL = /^(-?)(\d*)(?:\.(\d*))?$/;
/** 10^-10 pounds per unit: a decimal string with up to 10 places is exact. */
const UNITS_PER_PENNY = 10n ** 8n;

/** A decimal string of pounds as exact units of 10^-10 pounds; undefined when it is not one. */
export function poundsToUnits(v: unknown): bigint | undefined {
  if (typeof v !== 'string') return undefined;
  const m = DECIMAL.exec(v.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '') || (m[3] ?? '').length > 10) return undefined;
  // BigInt('') is 0n: `.5` reads as 0.5.
  const n = BigInt(m[2]) * 10n ** 10n + BigInt((m[3] ?? '').padEnd(10, '0'));
  return m[1] ? -n : n;
}

/** Integer pence (as the record carries them) in the same units; undefined when not an integer. */
export function penceToUnits(v: unknown): bigint | undefined {
  return Number.isSafeInteger(v) ? BigInt(v as number) * UNITS_PER_PENNY : undefined;
}

/** Units as a decimal string of pence (`4217`, `-5`, `1234.5`): what a report shows. */
export function unitsAsPence(u: bigint): string {
  const sign = u < 0n ? '-' : '';
  const a = sign ? -u : u;
  const whole = a / UNITS_PER_PENNY;
  const frac = (a % UNITS_PER_PENNY).toString().padStart(8, '0').replace(/0+$/, '');
  return `${sign}${whole}${frac ? `.${frac}` : ''}`;
}

// --- Personal data --------------------------------------------------------------------------------

/** Text as the platform keeps it: trimmed, inner whitespace as one space; none for empty. */
export function normaliseText(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim().replace(/\s+/g, ' ');
  return t === '' ? undefined : t;
}

export function normalisePostcode(v: unknown): string | undefined {
  return normaliseText(v)?.replace(/ /g, '').toUpperCase();
}

export function normaliseEmail(v: unknown): string | undefined {
  return normaliseText(v)?.toLowerCase();
}

/** E.164 when the number reads as a valid one (UK by default), else the text without spaces. */
export function normalisePhone(v: unknown): string | undefined {
  const t = normaliseText(v);
  if (t === undefined) return undefined;
  // libphonenumber reads the UK's international prefix (`0044 …`) itself.
  const p = parsePhoneNumberFromString(t, 'GB');
  return p?.isValid() ? p.number : t.replace(/ /g, '');
}

/** First character, then one `*` per further character: enough to see which value, never the value. */
export function maskValue(v: unknown): string | undefined {
  if (typeof v !== 'string' || v === '') return v === undefined || v === null ? undefined : '*';
  const chars = [...v];
  return chars[0] + '*'.repeat(chars.length - 1);
}

type Kind = 'money' | 'text' | 'email' | 'phone' | 'postcode' | 'date';
const NORMALISE: Record<Exclude<Kind, 'money'>, (v: unknown) => string | undefined> = {
  text: normaliseText,
  email: normaliseEmail,
  phone: normalisePhone,
  postcode: normalisePostcode,
  date: normaliseText,
};

/** Payload customer field → record user field, and how they compare. */
const USER_FIELDS: Array<[string, string, Exclude<Kind, 'money'>]> = [
  ['given_name', 'givenName', 'text'],
  ['family_name', 'familyName', 'text'],
  ['email', 'email', 'email'],
  ['mobile', 'mobile', 'phone'],
  ['landline', 'landline', 'phone'],
  ['date_of_birth', 'dateOfBirth', 'date'],
];

/** Payload billing field → record field. */
const BILLING_FIELDS: Array<[string, string, Exclude<Kind, 'money'>]> = [
  ['billing_name', 'billingName', 'text'],
  ['billing_address1', 'billingAddressLine1', 'text'],
  ['billing_address2', 'billingAddressLine2', 'text'],
  ['billing_address3', 'billingAddressLine3', 'text'],
  ['billing_address4', 'billingAddressLine4', 'text'],
  ['billing_address5', 'billingAddressLine5', 'text'],
  ['billing_postcode', 'billingAddressPostcode', 'postcode'],
];

/** The balance figures of one account, in pence (decimal strings), for the run's totals. */
export interface BalanceCheck {
  /** Sent: `transfer_balance`, else the sum of `ledgers[].ledger_balance`, else 0. */
  sourcePence: string;
  /** The record's `balance(includeAllLedgers: true)`; undefined when it was not read. */
  platformPence?: string;
}

export interface GraphqlReconciliation extends Reconciliation {
  balance: BalanceCheck;
}

/**
 * Compares the payload an account was created from with its GraphQL record. Every leaf the payload
 * determines is matched or differing (the record carries all of them); a record member the payload
 * says nothing about is not compared, except a ledger the platform adds with a non-zero balance
 * (it changes the account's total).
 */
export function compareGraphqlAccount(payload: unknown, found: unknown): GraphqlReconciliation {
  const p = isObj(payload) ? payload : {};
  const rec = isObj(found) ? found : {};
  // Balances.
  const sentLedgers = list(p.ledgers);
  const ledgerUnits = sentLedgers.map((l) => poundsToUnits(l.ledger_balance) ?? 0n);
  const total = poundsToUnits(p.transfer_balance) ?? ledgerUnits.reduce((a, b) => a + b, 0n);
  const foundTotal = penceToUnits(rec.balance);
  const balance: BalanceCheck = { sourcePence: unitsAsPence(total) };
  if (foundTotal !== undefined) balance.platformPence = unitsAsPence(foundTotal);
  const r: GraphqlReconciliation = { checked: 0, matched: 0, differences: [], unverified: [], byField: {}, balance };
  const tally = (field: string): FieldTally => (r.byField[field] ??= { matched: 0, differing: 0, unverified: 0 });
  const differ = (path: string, field: string, expected: unknown, got: unknown) => {
    r.checked++;
    r.differences.push({ path, field, expected, found: got });
    tally(field).differing++;
  };
  const match = (field: string) => {
    r.checked++;
    r.matched++;
    tally(field).matched++;
  };

  /** Money leaf: expected units against the record's pence. */
  const money = (path: string, field: string, expected: bigint, got: unknown) => {
    const g = penceToUnits(got);
    if (g === expected) return match(field);
    differ(path, field, unitsAsPence(expected), g === undefined ? got : unitsAsPence(g));
  };
  /** Personal/text leaf: equal normalised values (`ne`, `ng`) match; masked on a difference. */
  const personal = (path: string, field: string, expected: unknown, got: unknown, ne: string | undefined, ng: string | undefined) => {
    if (ne === ng) return match(field);
    differ(path, field, maskValue(normaliseText(expected)), maskValue(normaliseText(got)));
  };

  money('balance', 'balance', total, rec.balance);

  const foundLedgers = Array.isArray(rec.ledgers) ? rec.ledgers.map((l) => (isObj(l) ? l : {})) : [];
  // Ledgers pair by identifier when one was sent, the rest in order. A failed claim is -1.
  const taken = new Set<number>();
  const claim = (fits: (l: Obj) => boolean) => {
    const j = foundLedgers.findIndex((l, jj) => !taken.has(jj) && fits(l));
    taken.add(j);
    return j;
  };
  const identified = (l: Obj) => typeof l.ledger_identifier === 'string';
  const pairs = sentLedgers.map((l) => (identified(l) ? claim((f) => f.number === l.ledger_identifier) : undefined));
  const paired = pairs.map((j) => j ?? claim(() => true));
  sentLedgers.forEach((_, i) => {
    const j = paired[i];
    const expected = ledgerUnits[i];
    if (j < 0) return differ(`ledgers.${i}`, 'ledgers.*', unitsAsPence(expected), undefined);
    money(`ledgers.${j}.balance`, 'ledgers.*.balance', expected, foundLedgers[j].balance);
    money(`ledgers.${j}.amountOwedByCustomer`, 'ledgers.*.amountOwedByCustomer', -expected, foundLedgers[j].amountOwedByCustomer);
  });
  if (sentLedgers.length > 0)
    foundLedgers.forEach((l, j) => {
      const units = penceToUnits(l.balance);
      if (!taken.has(j) && units !== undefined && units !== 0n) differ(`ledgers.${j}`, 'ledgers.*', undefined, unitsAsPence(units));
    });

  // Customers and users paired by how many fields they agree on, best pairs first (the platform
  // may list users in any order; two customers can share a name); ties to the earlier.
  const customers = list(p.customers);
  const users = Array.isArray(rec.users) ? rec.users.map((u) => (isObj(u) ? u : {})) : [];
  // Each side's fields normalised once: pairing compares every customer with every user, and a
  // phone number is read by libphonenumber (tens of µs) each time it is normalised; the same
  // number on both sides (the usual case) is read once.
  const phones = new Map<string, string | undefined>();
  const normalise = (kind: Exclude<Kind, 'money'>, v: unknown) => {
    if (kind !== 'phone' || typeof v !== 'string') return NORMALISE[kind](v);
    if (!phones.has(v)) phones.set(v, normalisePhone(v));
    return phones.get(v);
  };
  const sentFields = customers.map((c) => USER_FIELDS.map(([from, , kind]) => normalise(kind, c[from])));
  const foundFields = users.map((u) => USER_FIELDS.map(([, to, kind]) => normalise(kind, u[to])));
  const agreement = (i: number, j: number) => sentFields[i].filter((v, k) => v === foundFields[j][k]).length;
  const candidates = customers.flatMap((_, i) => users.map((_u, j) => ({ i, j, score: agreement(i, j) })));
  // A stable sort: equal scores keep customer order, then user order.
  candidates.sort((a, b) => b.score - a.score);
  const userOf: number[] = customers.map(() => -1);
  const used = new Set<number>();
  for (const { i, j } of candidates) {
    if (userOf[i] >= 0 || used.has(j)) continue;
    userOf[i] = j;
    used.add(j);
  }
  customers.forEach((c, i) => {
    const j = userOf[i];
    if (j < 0) return differ(`users.${i}`, 'users.*', maskValue(normaliseText(c.family_name)), undefined);
    USER_FIELDS.forEach(([from, to], k) => personal(`users.${j}.${to}`, `users.*.${to}`, c[from], users[j][to], sentFields[i][k], foundFields[j][k]));
  });

  // Billing details.
  for (const [from, to, kind] of BILLING_FIELDS) personal(to, to, p[from], rec[to], normalise(kind, p[from]), normalise(kind, rec[to]));
  return r;
}
