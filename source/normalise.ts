import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/**
 * Cleaning of single legacy values. Pure. A value that cannot be cleaned is never "fixed" by
 * guessing: phones and postcodes are passed on trimmed so validation reports them at their attr,
 * and dates come back as a failure the transform reports with the source field.
 */

/** Trimmed text, or undefined when null/blank (optional payload fields are omitted, never ''). */
export function clean(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim().replace(/\s+/g, ' ');
  return v === '' ? undefined : v;
}

/**
 * A phone number as the platform's own example writes it: UK numbers in national form without
 * spaces (`07123456789`, `02072343456`), others in E.164. Unparseable or invalid numbers come back
 * trimmed, unchanged, for validation to reject with `invalid_phone_number`.
 */
export function normalisePhone(value: string | null | undefined, defaultRegion: CountryCode = 'GB'): string | undefined {
  const raw = clean(value);
  if (raw === undefined) return undefined;
  // `0044 …` is the international prefix dialled from the UK; libphonenumber wants `+44`.
  const dialled = raw.replace(/^00(?=[1-9])/, '+');
  const parsed = parsePhoneNumberFromString(dialled, defaultRegion);
  if (!parsed || !parsed.isValid()) return raw;
  if (parsed.country === 'GB' && defaultRegion === 'GB') return parsed.formatNational().replace(/\s+/g, '');
  return parsed.number;
}

/** UK postcode: upper case, inward code separated by exactly one space. Non-postcodes are returned trimmed. */
export function normalisePostcode(value: string | null | undefined): string | undefined {
  const raw = clean(value);
  if (raw === undefined) return undefined;
  const compact = raw.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{1,2}\d[A-Z\d]?\d[A-Z]{2}$/.test(compact)) return raw.toUpperCase();
  return `${compact.slice(0, -3)} ${compact.slice(-3)}`;
}

export type DateResult = { ok: true; value: string | undefined } | { ok: false; raw: string };

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function ymd(year: number, month: number, day: number): string | undefined {
  if (year < 1800 || year > 2999 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * Legacy date → `YYYY-MM-DD`. Accepts `DD/MM/YYYY` (also `D/M/YYYY`, `-` or `.` separators) and
 * ISO dates some rows already hold. Blank → `{ok: true, value: undefined}`; an impossible date
 * (31/02/2020) or unreadable text → `{ok: false}`: never rolled over to another day.
 */
export function normaliseDate(value: string | null | undefined): DateResult {
  const raw = clean(value);
  if (raw === undefined) return { ok: true, value: undefined };
  let m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(raw);
  if (m) {
    const v = ymd(Number(m[3]), Number(m[2]), Number(m[1]));
    return v ? { ok: true, value: v } : { ok: false, raw };
  }
  m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  if (m) {
    const v = ymd(Number(m[1]), Number(m[2]), Number(m[3]));
    return v ? { ok: true, value: v } : { ok: false, raw };
  }
  return { ok: false, raw };
}

/** Last Sunday of a month, as a day of the month (UTC arithmetic). */
function lastSunday(year: number, month: number): number {
  const last = daysInMonth(year, month);
  const weekday = new Date(Date.UTC(year, month - 1, last)).getUTCDay();
  return last - weekday;
}

/**
 * UK local wall-clock time → UTC. British Summer Time runs from 01:00 UTC on the last Sunday of
 * March to 01:00 UTC on the last Sunday of October; the ambiguous autumn hour is read as BST.
 */
export function ukLocalToUtc(year: number, month: number, day: number, hour: number, minute: number): Date {
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  const bstStart = Date.UTC(year, 2, lastSunday(year, 3), 1, 0);
  const bstEnd = Date.UTC(year, 9, lastSunday(year, 10), 1, 0);
  const candidate = asUtc - 3_600_000; // local = UTC+1 during BST
  const inBst = candidate >= bstStart && candidate < bstEnd;
  return new Date(inBst ? candidate : asUtc);
}

/** Legacy `DD/MM/YYYY HH:MM[:SS]` (UK local) → `YYYY-MM-DDTHH:MM:SSZ`. A bare date is read as midnight local. */
export function normaliseDateTime(value: string | null | undefined): DateResult {
  const raw = clean(value);
  if (raw === undefined) return { ok: true, value: undefined };
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(raw);
  if (!m) return { ok: false, raw };
  const [year, month, day] = [Number(m[3]), Number(m[2]), Number(m[1])];
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (!ymd(year, month, day) || hour > 23 || minute > 59 || second > 59) return { ok: false, raw };
  const utc = new Date(ukLocalToUtc(year, month, day, hour, minute).getTime() + second * 1000);
  return { ok: true, value: utc.toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

/**
 * Legacy money/reading text → decimal string: thousands separators and a leading `£` dropped.
 * Returns undefined for blank, and the trimmed raw text when it is not a number (validation
 * then reports it).
 */
export function normaliseDecimal(value: string | null | undefined): string | undefined {
  const raw = clean(value);
  if (raw === undefined) return undefined;
  const v = raw.replace(/^(-?)£/, '$1').replace(/,/g, '');
  return /^-?\d+(\.\d+)?$/.test(v) ? v : raw;
}
