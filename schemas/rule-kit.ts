import { dayOf, isCalendarDate } from './formats';

/**
 * Small readers shared by the stateless rule files (`rules-*.ts`). The rules run on the raw payload
 * even when field checks failed, so every reader is defensive: a rule fires only on values it can
 * read as the right type and leaves shape errors to the schema.
 */

export interface RuleContext {
  /** `YYYY-MM-DD`, the day "future" and "billable" are judged against. */
  today: string;
  /** The run's migration type: `false` (not a switch) refuses agents to appoint; absent: not checked. */
  sendRegistrationFlows?: boolean;
}

export type Obj = Record<string, unknown>;
export type Path = ReadonlyArray<string | number>;
export type Emit = (code: string, path: Path, detail: string) => void;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object items of a list with their indexes (non-objects are the schema's business). */
export function objects(v: unknown): Array<[Obj, number]> {
  const out: Array<[Obj, number]> = [];
  if (Array.isArray(v)) for (let i = 0; i < v.length; i++) if (isObj(v[i])) out.push([v[i] as Obj, i]);
  return out;
}

/** A non-blank string. */
export const present = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
/** Anything but absent, null or a blank string. */
export const given = (v: unknown): boolean => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
/** Absent or null: an open end. */
export const openEnded = (v: unknown): boolean => v === undefined || v === null;

/** A date-valued field: undefined when absent or unreadable, null when explicitly open-ended. */
export const dateField = (o: Obj, key: string): string | null | undefined => (o[key] === null ? null : dayOf(o[key]));

const E8 = 10n ** 8n;
const E10 = 10n ** 10n;
const MONEY = /^(-?)(\d{1,13})(?:\.(\d{0,2}))?$/;
const DECIMAL = /^-?\d*(?:\.\d{0,10})?$/;

/** A decimal string as an integer count of 10^-10 units (exact sums); undefined when unreadable. */
export function scaled(v: unknown): bigint | undefined {
  if (typeof v !== 'string') return undefined;
  // Fast path for money (≤ 2 decimals): exact in a double, one bigint conversion.
  const m = MONEY.exec(v);
  if (m) {
    const cents = Number(m[2]) * 100 + (m[3] ? Number(m[3].padEnd(2, '0')) : 0);
    return BigInt(m[1] ? -cents : cents) * E8;
  }
  if (!DECIMAL.test(v) || v === '' || v === '-' || v === '.' || v === '-.') return undefined;
  const neg = v.startsWith('-');
  const [int, frac = ''] = (neg ? v.slice(1) : v).split('.');
  const n = BigInt(int || '0') * E10 + BigInt((frac + '0000000000').slice(0, 10));
  return neg ? -n : n;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** The calendar day after a valid `YYYY-MM-DD` (string arithmetic: no Date objects on the hot path). */
export function nextDay(date: string): string {
  let y = Number(date.slice(0, 4));
  let m = Number(date.slice(5, 7));
  let d = Number(date.slice(8, 10)) + 1;
  const leap = m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > DAYS_IN_MONTH[m - 1] + (leap ? 1 : 0)) {
    d = 1;
    m += 1;
    if (m > 12) {
      m = 1;
      y += 1;
    }
  }
  return `${String(y).padStart(4, '0')}-${m < 10 ? '0' : ''}${m}-${d < 10 ? '0' : ''}${d}`;
}

/** Sum of a decimal field over items; undefined if any item's value is unreadable. */
export function sumOf(items: ReadonlyArray<[Obj, number]>, key: string): bigint | undefined {
  let sum = 0n;
  for (const [o] of items) {
    const v = scaled(o[key]);
    if (v === undefined) return undefined;
    sum += v;
  }
  return sum;
}

/** Reports every item whose `key` value repeats an earlier one (non-blank strings only). */
export function repeated(items: ReadonlyArray<[Obj, number]>, key: string, onRepeat: (value: string, index: number) => void): void {
  const seen = new Set<string>();
  for (const [o, i] of items) {
    const v = o[key];
    if (!present(v)) continue;
    if (seen.has(v)) onRepeat(v, i);
    seen.add(v);
  }
}

/** A meter point is billable while its supply is open-ended or ends today or later. */
export function isBillable(mp: Obj, today: string): boolean {
  if (openEnded(mp.supply_end_date)) return true;
  const end = dayOf(mp.supply_end_date);
  return end !== undefined && end >= today;
}

/** A meter is active unless removed on or before today. */
export function isActiveMeter(m: Obj, today: string): boolean {
  if (openEnded(m.removed_on)) return true;
  const removed = dayOf(m.removed_on);
  return removed !== undefined && removed > today;
}

/** Every meter point of the payload with its path. */
export function meterPoints(account: Obj): Array<{ mp: Obj; path: Path; address: number }> {
  const out: Array<{ mp: Obj; path: Path; address: number }> = [];
  for (const [sa, i] of objects(account.supply_addresses)) {
    for (const [mp, j] of objects(sa.meter_points)) out.push({ mp, path: ['supply_addresses', i, 'meter_points', j], address: i });
  }
  return out;
}

/** A date or UTC datetime as epoch ms; undefined when unreadable. */
export function instant(v: unknown): number | undefined {
  if (!dayOf(v)) return undefined;
  const s = v as string;
  return Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s);
}

/** `toKey`, if given, must be on or later than `fromKey` (`start_date_later_than_end_date` at `toKey`). */
export function endBeforeStart(o: Obj, fromKey: string, toKey: string, path: Path, emit: Emit): void {
  const a = o[fromKey];
  const b = o[toKey];
  if (typeof a !== 'string' || typeof b !== 'string') return;
  // Two dates compare as strings; anything involving a datetime compares as instants.
  const bothDates = a.length === 10 && b.length === 10;
  const from = bothDates ? (isCalendarDate(a) ? a : undefined) : instant(a);
  const to = bothDates ? (isCalendarDate(b) ? b : undefined) : instant(b);
  if (from !== undefined && to !== undefined && to < from) {
    emit('start_date_later_than_end_date', [...path, toKey], `${toKey} must be on or after ${fromKey}.`);
  }
}

/** `code` at `key` when the day of `o[key]` is after today. */
export function notInFuture(o: Obj, key: string, code: string, path: Path, ctx: RuleContext, emit: Emit): void {
  const day = dayOf(o[key]);
  if (day && day > ctx.today) emit(code, [...path, key], `${key} may not be in the future.`);
}

/** `metadata_has_duplicate_keys` for every metadata entry whose key repeats an earlier one. */
export function duplicateMetadataKeys(list: unknown, path: Path, emit: Emit): void {
  const seen = new Set<string>();
  for (const [m, i] of objects(list)) {
    if (typeof m.key !== 'string') continue;
    if (seen.has(m.key)) emit('metadata_has_duplicate_keys', [...path, i, 'key'], `Metadata key "${m.key}" is repeated.`);
    seen.add(m.key);
  }
}

/**
 * `code` for every item whose `key` repeats an earlier one. Unlike `repeated`, a whitespace-only
 * value counts (only the empty string is skipped): the rules that use it have always read it so.
 */
export function duplicates(list: unknown, key: string, path: Path, code: string, emit: Emit, what: string): void {
  const seen = new Set<string>();
  for (const [o, i] of objects(list)) {
    const v = o[key];
    if (typeof v !== 'string' || v === '') continue;
    if (seen.has(v)) emit(code, [...path, i, key], `${what} "${v}" is repeated.`);
    seen.add(v);
  }
}
