/**
 * Reconciliation: what the platform shows for a created account against what was sent. Pure: no
 * I/O, so the rules are tested on their own. Values can be personal data: callers keep the
 * differences in Postgres and pass only paths and counts on (workflow history, logs).
 *
 * The reference shows no body for the account record (the API reference: "body not shown"; sandbox/README.md, endpoint table); the tenant's
 * public developer documentation does (REST guide, "Account endpoint"): `number` and `properties[]`
 * with the address, `moved_in_at`/`moved_out_at`, electricity meter points (MPAN, profile class,
 * meters with serial numbers and registers, agreements) and gas meter points (MPRN, meters,
 * agreements), datetimes as local Europe/London midnights with their offset. The expected record
 * is that shape built from the payload. Balances, customers and billing details are not in it: they
 * are read back through the tenant's GraphQL account (reconcile/graphql-compare.ts).
 *
 * Every leaf the payload determines ends in one of three words: matched, differing, or unverified
 * ("not in the platform's record": the record has no such member, so nothing was checked — never a
 * difference). Members the record carries that the payload says nothing about (a property's `id`,
 * `consumption_standard`, a register's `rate`, `is_export`) are not compared.
 */

import type { Difference, FieldTally, Reconciliation, Unverified } from '../domain/reconciliation';

export type { Difference, FieldTally, Reconciliation, Unverified };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

function defined<T extends Obj>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function agreements(mp: Obj): Obj[] {
  return list(mp.agreements).map((a) => defined({ tariff_code: str(a.tariff_code), valid_from: str(a.effective_from), valid_to: str(a.effective_to) ?? null }));
}

/** The record's address members and the supply address fields they come from. */
const ADDRESS_OF: Record<string, string> = {
  address_line_1: 'supply_address1',
  address_line_2: 'supply_address2',
  address_line_3: 'supply_address3',
  town: 'supply_address4',
  county: 'supply_address5',
  postcode: 'supply_postcode',
};

/**
 * The account record the platform should show for `payload` (an EnergyAccount) created as
 * `accountNumber`: only what the payload determines. Address lines the payload leaves out are
 * expected empty; an open-ended date (`moved_out_at`, an agreement's `valid_to`) is expected null.
 */
export function expectedAccountRecord(payload: unknown, accountNumber: string | undefined): Obj {
  const p = isObj(payload) ? payload : {};
  return defined({
    number: accountNumber,
    properties: list(p.supply_addresses).map((a) => {
      const points = list(a.meter_points);
      return defined({
        ...Object.fromEntries(Object.entries(ADDRESS_OF).map(([field, from]) => [field, str(a[from]) ?? ''])),
        moved_in_at: str(a.customer_at_supply_address_from_date),
        moved_out_at: str(a.customer_at_supply_address_to_date) ?? null,
        electricity_meter_points: points
          .filter((m) => m.supply_type === 'ELECTRICITY')
          .map((m) =>
            defined({
              mpan: str(m.identifier),
              profile_class: typeof m.profile_class === 'number' ? m.profile_class : undefined,
              meters: list(m.meters).map((meter) =>
                defined({
                  serial_number: str(meter.meter_serial_number),
                  registers: list(meter.registers).map((r) =>
                    defined({ identifier: str(r.register_id), is_settlement_register: typeof r.is_settlement === 'boolean' ? r.is_settlement : undefined }),
                  ),
                }),
              ),
              agreements: agreements(m),
            }),
          ),
        gas_meter_points: points
          .filter((m) => m.supply_type === 'GAS')
          .map((m) =>
            defined({
              mprn: str(m.identifier),
              meters: list(m.meters).map((meter) => defined({ serial_number: str(meter.meter_serial_number) })),
              agreements: agreements(m),
            }),
          ),
      });
    }),
  });
}

// --- Dates ------------------------------------------------------------------------------------

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const londonClock = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});

/**
 * The instant of a calendar date's local midnight in Europe/London (ms since the epoch). The clock
 * changes at 01:00 UTC, so midnight is always there and unique: either UTC midnight (GMT) or an
 * hour before it (BST).
 */
export function londonMidnight(date: string): number | undefined {
  if (midnights.has(date)) return midnights.get(date);
  const at = midnightOf(date);
  if (midnights.size >= MIDNIGHTS_KEPT) midnights.clear();
  midnights.set(date, at);
  return at;
}

/**
 * Midnights worked out already (each costs up to two `formatToParts`): read-backs compare the same
 * move and agreement dates account after account. 16,384 days are 45 years; past that, begun again.
 */
const midnights = new Map<string, number | undefined>();
const MIDNIGHTS_KEPT = 16_384;

function midnightOf(date: string): number | undefined {
  const m = DATE.exec(date);
  if (!m) return undefined;
  const utc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  for (const candidate of [utc, utc - 3_600_000]) {
    const p = Object.fromEntries(londonClock.formatToParts(new Date(candidate)).map((x) => [x.type, x.value]));
    if (`${p.year}-${p.month}-${p.day}` === date && p.hour === '00' && p.minute === '00') return candidate;
  }
  return undefined;
}

/** A date or datetime as an instant: a bare date is its London midnight; a datetime needs its offset. */
function instant(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  if (DATE.test(v)) return londonMidnight(v);
  if (!/(Z|[+-]\d{2}:?\d{2})$/.test(v)) return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * A payload date equals a record datetime that is that date's local midnight in Europe/London,
 * whatever offset it is written with (`2023-04-01T00:00:00+01:00` ≡ `2023-03-31T23:00:00Z`).
 */
export function sameLocalDate(date: unknown, datetime: unknown): boolean {
  if ((date ?? null) === null || (datetime ?? null) === null) return (date ?? null) === (datetime ?? null);
  const a = instant(date);
  return a !== undefined && a === instant(datetime);
}

// --- Comparison -------------------------------------------------------------------------------

const DATE_FIELDS = new Set(['moved_in_at', 'moved_out_at', 'valid_from', 'valid_to']);
const TEXT_FIELDS = new Set(Object.keys(ADDRESS_OF));

function same(field: string, exp: unknown, got: unknown): boolean {
  if (DATE_FIELDS.has(field)) return sameLocalDate(exp, got);
  if (TEXT_FIELDS.has(field)) {
    // An empty string is the same as no value; postcodes compare without spaces, in any case.
    const text = (v: unknown) =>
      typeof v === 'string' ? (field === 'postcode' ? v.toUpperCase().replace(/\s+/g, '') : v.trim()) : v === null || v === undefined ? '' : v;
    return Object.is(text(exp), text(got));
  }
  return Object.is(exp, got);
}

/**
 * How array items are paired: by their identifier (the platform may list them in any order), then
 * the rest in order, so an item whose identifier changed still pairs and shows the changed leaf.
 */
const ITEM_KEY: Record<string, (item: unknown) => unknown> = {
  properties: (p) => (isObj(p) && typeof p.postcode === 'string' ? p.postcode.toUpperCase().replace(/\s+/g, '') : undefined),
  electricity_meter_points: (m) => (isObj(m) ? m.mpan : undefined),
  gas_meter_points: (m) => (isObj(m) ? m.mprn : undefined),
  meters: (m) => (isObj(m) ? m.serial_number : undefined),
  registers: (r) => (isObj(r) ? r.identifier : undefined),
  agreements: (a) => (isObj(a) ? instant(a.valid_from) : undefined),
};

/** Pairs of [expected index, found index]; an unpaired side is -1. */
function pair(name: string, exp: unknown[], got: unknown[]): Array<[number, number]> {
  const key = ITEM_KEY[name];
  const taken = new Set<number>();
  const of = new Map<number, number>();
  if (key) {
    // Each found item's key once: an agreement's key is a London date's instant (Intl, not cheap).
    const gotKeys = got.map(key);
    exp.forEach((e, i) => {
      const k = key(e);
      if (k === undefined) return;
      const j = gotKeys.findIndex((g, jj) => !taken.has(jj) && g === k);
      if (j >= 0) {
        taken.add(j);
        of.set(i, j);
      }
    });
  }
  const rest = got.map((_, j) => j).filter((j) => !taken.has(j));
  const pairs: Array<[number, number]> = exp.map((_, i) => [i, of.get(i) ?? rest.shift() ?? -1]);
  for (const j of rest) pairs.push([-1, j]);
  return pairs;
}

/**
 * Compares the record found against the expected one, leaf by leaf. Indexes in paths are the
 * record's; an expected item the record lacks takes its index in the payload.
 */
export function compareAccount(expected: unknown, found: unknown): Reconciliation {
  const r: Reconciliation = { checked: 0, matched: 0, differences: [], unverified: [], byField: {} };
  const tally = (field: string) => (r.byField[field] ??= { matched: 0, differing: 0, unverified: 0 });
  const differ = (path: string[], field: string[], exp: unknown, got: unknown) => {
    r.checked++;
    r.differences.push({ path: path.join('.'), field: field.join('.'), expected: exp, found: got });
    tally(field.join('.')).differing++;
  };
  /** Every leaf under `exp`: not in the platform's record. */
  const unverified = (exp: unknown, path: string[], field: string[]) => {
    if (Array.isArray(exp)) exp.forEach((e, i) => unverified(e, [...path, String(i)], [...field, '*']));
    else if (isObj(exp)) for (const k of Object.keys(exp)) unverified(exp[k], [...path, k], [...field, k]);
    else {
      r.unverified.push({ path: path.join('.'), field: field.join('.') });
      tally(field.join('.')).unverified++;
    }
  };
  const walk = (exp: unknown, got: unknown, path: string[], field: string[]) => {
    const last = field[field.length - 1] ?? '';
    if (Array.isArray(exp)) {
      if (!Array.isArray(got)) return differ(path, field, exp.length, got);
      for (const [i, j] of pair(last, exp, got)) {
        if (j < 0) differ([...path, String(i)], [...field, '*'], exp[i], undefined);
        else if (i < 0) differ([...path, String(j)], [...field, '*'], undefined, got[j]);
        else walk(exp[i], got[j], [...path, String(j)], [...field, '*']);
      }
      return;
    }
    if (isObj(exp)) {
      if (!isObj(got)) return differ(path, field, 'object', got);
      for (const k of Object.keys(exp)) {
        if (Object.hasOwn(got, k)) walk(exp[k], got[k], [...path, k], [...field, k]);
        else unverified(exp[k], [...path, k], [...field, k]);
      }
      return;
    }
    if (!same(last, exp, got)) return differ(path, field, exp, got);
    r.checked++;
    r.matched++;
    tally(field.join('.')).matched++;
  };
  walk(expected, found, [], []);
  return r;
}

/** Counts by field (`customers.*.family_name` → n), for reports. */
export function differencesByField(differences: Pick<Difference, 'field'>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of differences) out[d.field] = (out[d.field] ?? 0) + 1;
  return out;
}
