import { isValidPhoneNumber, type CountryCode } from 'libphonenumber-js/max';

/**
 * Field-level format predicates. Pure and allocation-light: they run on every field of every
 * payload, so no Date parsing of strings that fail the cheap shape test.
 */

export type { CountryCode };
export const DEFAULT_PHONE_REGION: CountryCode = 'GB';

const UTC_DATETIME_SHAPE = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,6})?Z$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function digitsAt(value: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const d = value.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** `YYYY-MM-DD` naming a day that exists (2023-02-30 does not). Hand-rolled: it runs on every date field. */
export function isCalendarDate(value: string): boolean {
  if (value.length !== 10 || value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45) return false;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`: the payload convention is UTC with the `Z` marker. */
export function isUtcDateTime(value: string): boolean {
  const m = UTC_DATETIME_SHAPE.exec(value);
  return m !== null && isCalendarDate(m[1]);
}

/** The calendar day of a date or UTC datetime string, for comparisons; undefined if neither. */
export function dayOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.length === 10) return isCalendarDate(value) ? value : undefined;
  return isUtcDateTime(value) ? value.slice(0, 10) : undefined;
}

let cachedMinute = -1;
let cachedToday = '';
/** Today's date in UTC as `YYYY-MM-DD` (memoised per minute for the clock's own reading). */
export function todayUtc(now?: Date): string {
  if (now) return now.toISOString().slice(0, 10);
  const ms = Date.now();
  const minute = Math.floor(ms / 60_000);
  if (minute !== cachedMinute) {
    cachedMinute = minute;
    cachedToday = new Date(ms).toISOString().slice(0, 10);
  }
  return cachedToday;
}

/**
 * Decimal strings as the spec's `format: decimal` patterns describe them, but with at least one
 * digit (the spec's own pattern would accept "" and "-"). Cached per precision.
 */
const decimalPatterns = new Map<string, RegExp>();
export function decimalPattern(integerDigits: number, fractionDigits: number): RegExp {
  const key = `${integerDigits}.${fractionDigits}`;
  let re = decimalPatterns.get(key);
  if (!re) {
    re = new RegExp(`^-?(?:\\d{1,${integerDigits}}(?:\\.\\d{0,${fractionDigits}})?|\\.\\d{1,${fractionDigits}})$`);
    decimalPatterns.set(key, re);
  }
  return re;
}

export function isDecimalString(value: string, integerDigits = 10, fractionDigits = 10): boolean {
  return decimalPattern(integerDigits, fractionDigits).test(value);
}

/**
 * UK postcode (outward + inward code), case-insensitive, optional single space, surrounding
 * whitespace ignored: the platform normalises, so `w1f9de` is accepted. GIR 0AA is the one
 * non-geographic exception kept.
 */
const UK_POSTCODE = /^(?:[A-Z]{1,2}\d[A-Z\d]?|GIR) ?\d[A-Z]{2}$/;
export function isUkPostcode(value: string): boolean {
  const v = value.trim().toUpperCase();
  return UK_POSTCODE.test(v) && (!v.startsWith('GIR') || v.replace(' ', '') === 'GIR0AA');
}

/** A phone number valid for the migration's region (international `+` numbers for any region): the library's own rule, as published. */
export function isValidPhone(value: string, region: CountryCode = DEFAULT_PHONE_REGION): boolean {
  try {
    return isValidPhoneNumber(value, region);
  } catch {
    return false;
  }
}

/** A warm home discount tax year, `2017/18`: consecutive years. */
export function isTaxYear(value: string): boolean {
  const m = /^(\d{4})\/(\d{2})$/.exec(value);
  return m !== null && (Number(m[1]) + 1) % 100 === Number(m[2]);
}

const MPAN_PRIMES = [3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43];
/** A 13-digit MPAN core whose last digit is the industry check digit. */
export function isMpanCore(value: string): boolean {
  if (!/^\d{13}$/.test(value)) return false;
  let total = 0;
  for (let i = 0; i < 12; i++) total += (value.charCodeAt(i) - 48) * MPAN_PRIMES[i];
  return (total % 11) % 10 === value.charCodeAt(12) - 48;
}

/** An MPRN: 6 to 10 digits. */
export function isMprn(value: string): boolean {
  return /^\d{6,10}$/.test(value);
}
