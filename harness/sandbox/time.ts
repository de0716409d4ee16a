/** Datetime parsing as the platform documents it: ISO 8601; without a zone, Europe/London is assumed. */

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

const londonParts = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Offset of Europe/London from UTC at `utcMs`, in ms (0 in winter, 1 h in summer). */
function londonOffsetMs(utcMs: number): number {
  const p = Object.fromEntries(londonParts.formatToParts(new Date(utcMs)).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/** Milliseconds since the epoch, or undefined when the text is not an ISO 8601 date/datetime. */
export function parseIsoDateTime(text: string): number | undefined {
  const m = ISO.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), frac ? Math.floor(Number(frac) * 1000) : 0);
  if (Number.isNaN(wall)) return undefined;
  if (zone === 'Z') return wall;
  if (zone) {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    return wall - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
  }
  // Two passes settle the offset around the clock changes.
  const guess = wall - londonOffsetMs(wall);
  return wall - londonOffsetMs(guess);
}

export const iso = (ms: number | Date): string => new Date(ms).toISOString();
/** ISO 8601 UTC without milliseconds, the form the platform's examples use for event times. */
export const isoSeconds = (ms: number | Date): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A calendar date (`YYYY-MM-DD`) as the platform's REST records show it: that day's local midnight
 * in Europe/London with its offset (`2023-04-01T00:00:00+01:00`; winter dates `…T00:00:00Z`, as in
 * the documented account example). Text that is not a date is returned as it is.
 */
export function londonMidnightIso(date: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return date;
  const utcMs = parseIsoDateTime(date);
  if (utcMs === undefined) return date;
  const offsetHours = Math.round(londonOffsetMs(utcMs) / 3_600_000);
  return `${date}T00:00:00${offsetHours === 0 ? 'Z' : `+${String(offsetHours).padStart(2, '0')}:00`}`;
}
