import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * What `account(accountNumber)` answers for an account the sandbox created, built from the payload
 * it was created from (sandbox/README.md, "GraphQL account read-back"). The schema documents money
 * as integers in minor units (pence); `amountOwedByCustomer` positive when the customer owes. The
 * contract's `transfer_balance` / `ledger_balance` are credit-positive decimal strings, and public
 * clients of the tenant read a positive `balance` as in credit, so: `balance` = +pence and
 * `amountOwedByCustomer` = -pence. Stored as a tenant would: pence rounded half away from zero,
 * phones in E.164, postcodes upper-case with one space, text trimmed with single spaces. The
 * sandbox never imports the project's schemas or its comparison: the two can disagree.
 */
export interface GraphqlLedger {
  number: string;
  ledgerType: string;
  balance: number;
  amountOwedByCustomer: number;
}
export interface GraphqlUser {
  givenName: string;
  familyName: string;
  email: string;
  mobile: string;
  landline: string;
  dateOfBirth: string | null;
}
export interface GraphqlAccount {
  number: string;
  balance: number;
  ledgers: GraphqlLedger[];
  users: GraphqlUser[];
  billingName: string | null;
  billingAddressLine1: string | null;
  billingAddressLine2: string | null;
  billingAddressLine3: string | null;
  billingAddressLine4: string | null;
  billingAddressLine5: string | null;
  billingAddressPostcode: string | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const text = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const t = v.trim().replace(/\s+/g, ' ');
  return t === '' ? null : t;
};

/** A decimal string in pence, rounded half away from zero (a tenant keeps whole pence). */
export function toPence(v: unknown): number {
  const m = typeof v === 'string' ? /^(-?)(\d*)(?:\.(\d*))?$/.exec(v.trim()) : null;
  if (!m || (m[2] === '' && !m[3])) return 0;
  const frac = (m[3] ?? '').padEnd(3, '0');
  let pence = Number(m[2] || '0') * 100 + Number(frac.slice(0, 2));
  if (Number(frac[2]) >= 5) pence += 1;
  return m[1] ? -pence : pence;
}

function phone(v: unknown): string {
  const t = text(v);
  if (!t) return '';
  const p = parsePhoneNumberFromString(t, 'GB');
  return p?.isValid() ? p.number : t;
}

function postcode(v: unknown): string | null {
  const t = text(v);
  if (!t) return null;
  const c = t.replace(/\s+/g, '').toUpperCase();
  return c.length > 3 ? `${c.slice(0, -3)} ${c.slice(-3)}` : c;
}

/** The account as the tenant would show it. */
export function graphqlAccountFromPayload(number: string, payload: unknown): GraphqlAccount {
  const p = isObj(payload) ? payload : {};
  const sent = list(p.ledgers);
  const ledgers: GraphqlLedger[] = sent.length
    ? sent.map((l, i) => {
        const pence = toPence(l.ledger_balance);
        return {
          number: text(l.ledger_identifier) ?? `L-${number}-${i + 1}`,
          ledgerType: text(l.ledger_code) ?? 'MAIN',
          balance: pence,
          amountOwedByCustomer: pence === 0 ? 0 : -pence,
        };
      })
    : typeof p.transfer_balance === 'string'
      ? [{ number: `L-${number}-1`, ledgerType: 'MAIN', balance: toPence(p.transfer_balance), amountOwedByCustomer: -toPence(p.transfer_balance) || 0 }]
      : [];
  return {
    number,
    balance: ledgers.reduce((s, l) => s + l.balance, 0),
    ledgers,
    users: list(p.customers).map((c) => ({
      givenName: text(c.given_name) ?? '',
      familyName: text(c.family_name) ?? '',
      email: text(c.email) ?? '',
      mobile: phone(c.mobile),
      landline: phone(c.landline),
      dateOfBirth: text(c.date_of_birth),
    })),
    billingName: text(p.billing_name),
    billingAddressLine1: text(p.billing_address1),
    billingAddressLine2: text(p.billing_address2),
    billingAddressLine3: text(p.billing_address3),
    billingAddressLine4: text(p.billing_address4),
    billingAddressLine5: text(p.billing_address5),
    billingAddressPostcode: postcode(p.billing_postcode),
  };
}

/** Deterministic per account and fault, so a re-check sees the same answer and a test can name the accounts. */
export function pickedByFault(fault: 'flip_balance_sign' | 'alter_customer_name', number: string, rate: number): boolean {
  if (rate <= 0) return false;
  if (rate >= 1) return true;
  return createHash('sha256').update(`${fault}:${number}`).digest().readUInt32BE(0) / 0x1_0000_0000 < rate;
}

/**
 * The operator-forced read-back faults: a tenant that shows the balances of some accounts with the
 * sign flipped (account `balance` and each ledger's `balance`; `amountOwedByCustomer` left as it
 * was) and the first customer's family name altered on others.
 */
export function withReadBackFaults(a: GraphqlAccount, f: { graphqlFlipBalanceRate: number; graphqlAlterNameRate: number }): GraphqlAccount {
  let out = a;
  if (pickedByFault('flip_balance_sign', a.number, f.graphqlFlipBalanceRate)) {
    out = { ...out, balance: -out.balance || 0, ledgers: out.ledgers.map((l) => ({ ...l, balance: -l.balance || 0 })) };
  }
  if (pickedByFault('alter_customer_name', a.number, f.graphqlAlterNameRate) && out.users.length > 0) {
    out = { ...out, users: out.users.map((u, i) => (i === 0 ? { ...u, familyName: `${u.familyName}-ALTERED` } : u)) };
  }
  return out;
}
