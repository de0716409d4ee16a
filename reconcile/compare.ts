/**
 * Reconciliation: what the platform shows for a created account against what was sent. Pure: no
 * I/O, so the rules are tested on their own. Values can be personal data: callers keep the
 * differences in Postgres and pass only paths and counts on (workflow history, logs).
 *
 * The account record's body is not documented (document 1: "body not shown"): the expected record
 * is our reading of the Kraken REST account record (README "Reconciliation"). Every leaf the
 * response carries is compared where the payload says what it should be; every leaf the payload
 * determines must be in the response.
 */

export interface Difference {
  /** Dot path in the account record, zero-based indexes: `customers.0.family_name`. */
  path: string;
  /** The same path with indexes as `*`, for counts by field: `customers.*.family_name`. */
  field: string;
  expected: unknown;
  found: unknown;
}

export interface Reconciliation {
  /** Paths compared (present on at least one side with an expectation). */
  checked: number;
  differences: Difference[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

function defined<T extends Obj>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The account record the platform should show for `payload` (an EnergyAccount) created as `accountNumber`. */
export function expectedAccountRecord(payload: unknown, accountNumber: string | undefined): Obj {
  const p = isObj(payload) ? payload : {};
  return defined({
    number: accountNumber,
    balance: str(p.transfer_balance),
    customers: list(p.customers).map((c) => defined({ given_name: str(c.given_name), family_name: str(c.family_name) })),
    properties: list(p.supply_addresses).map((a) => {
      const points = list(a.meter_points);
      return defined({
        address_line_1: str(a.supply_address1),
        address_line_2: str(a.supply_address2),
        address_line_3: str(a.supply_address3),
        town: str(a.supply_address4),
        county: str(a.supply_address5),
        postcode: str(a.supply_postcode),
        moved_in_at: str(a.customer_at_supply_address_from_date),
        moved_out_at: str(a.customer_at_supply_address_to_date) ?? null,
        electricity_meter_points: points.filter((m) => m.supply_type === 'ELECTRICITY').map((m) => defined({ mpan: str(m.identifier) })),
        gas_meter_points: points.filter((m) => m.supply_type === 'GAS').map((m) => defined({ mprn: str(m.identifier) })),
      });
    }),
  });
}

/** Arrays matched by identifier rather than position: the platform may list meter points in any order. */
const KEYED_ARRAYS: Record<string, string> = { electricity_meter_points: 'mpan', gas_meter_points: 'mprn' };

function sortedBy(items: unknown[], key: string): unknown[] {
  return [...items].sort((a, b) => String(isObj(a) ? a[key] : '').localeCompare(String(isObj(b) ? b[key] : '')));
}

function normalise(field: string, v: unknown): unknown {
  if (field.endsWith('postcode') && typeof v === 'string') return v.toUpperCase().replace(/\s+/g, '');
  if (field === 'balance' && (typeof v === 'string' || typeof v === 'number') && v !== '' && Number.isFinite(Number(v))) return Number(v);
  return v;
}

function same(field: string, a: unknown, b: unknown): boolean {
  return Object.is(normalise(field, a), normalise(field, b));
}

/**
 * Compares found against expected leaf by leaf. A leaf the response carries without an expectation
 * is not counted (the payload says nothing about it); a leaf expected but absent is a difference
 * with `found: undefined`.
 */
export function compareAccount(expected: unknown, found: unknown): Reconciliation {
  const differences: Difference[] = [];
  let checked = 0;
  const walk = (exp: unknown, got: unknown, path: string[], field: string[]) => {
    const last = field[field.length - 1] ?? '';
    if (Array.isArray(exp)) {
      const key = KEYED_ARRAYS[last];
      const e = key ? sortedBy(exp, key) : exp;
      const g = Array.isArray(got) ? (key ? sortedBy(got, key) : got) : [];
      if (!Array.isArray(got)) {
        checked++;
        differences.push({ path: path.join('.'), field: field.join('.'), expected: exp.length, found: got });
        return;
      }
      for (let i = 0; i < Math.max(e.length, g.length); i++) walk(e[i], g[i], [...path, String(i)], [...field, '*']);
      return;
    }
    if (isObj(exp)) {
      if (!isObj(got)) {
        checked++;
        differences.push({ path: path.join('.'), field: field.join('.'), expected: 'object', found: got });
        return;
      }
      for (const k of Object.keys(exp)) walk(exp[k], got[k], [...path, k], [...field, k]);
      return;
    }
    if (exp === undefined) {
      // An array item the payload does not have: the whole item is unexpected.
      if (got !== undefined && path.length && /^\d+$/.test(path[path.length - 1])) {
        checked++;
        differences.push({ path: path.join('.'), field: field.join('.'), expected: undefined, found: got });
      }
      return;
    }
    checked++;
    if (!same(last, exp, got)) differences.push({ path: path.join('.'), field: field.join('.'), expected: exp, found: got });
  };
  walk(expected, found, [], []);
  return { checked, differences };
}

/** Counts by field (`customers.*.family_name` → n), for reports. */
export function differencesByField(differences: Pick<Difference, 'field'>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of differences) out[d.field] = (out[d.field] ?? 0) + 1;
  return out;
}
