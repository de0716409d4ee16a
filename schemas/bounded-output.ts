import { MAX_NESTING_DEPTH } from './nesting';
/**
 * What a tool may echo back of its input: values capped to a readable length, and never the values
 * of personal fields (names, contact details, birth dates, addresses), which are replaced by a
 * marker wherever an error's text quotes them.
 */

export const ECHO_CAP = 64;
export const DETAIL_CAP = 300;
export const HIDDEN = '‹personal value hidden›';

/** One line, at most `cap` characters (an ellipsis and the full length say it was cut). */
export function capValue(value: string, cap = ECHO_CAP): string {
  const one = value.replace(/[\r\n\t]+/g, ' ');
  return one.length <= cap ? one : `${one.slice(0, cap)}… (${one.length} characters)`;
}

// Field names whose values are personal data in the platform's account payload and the legacy source.
const PERSONAL_KEY = /(^|_)(name|names|email|phone|mobile|landline|birth|address|postcode|line_\d|line\d|street|town|city|county|title)($|_)/i;

/** Every string (and number) value under a personal field of `record`, longest first. */
export function personalValues(record: unknown): string[] {
  const out = new Set<string>();
  // Bounded like validation (nesting.ts): a record nested deeper is refused, never walked to the bottom.
  const walk = (v: unknown, personal: boolean, depth: number) => {
    if (typeof v === 'string' || typeof v === 'number') {
      const s = String(v).trim();
      if (personal && s.length > 0) out.add(s);
      return;
    }
    if (depth > MAX_NESTING_DEPTH) return;
    if (Array.isArray(v)) for (const x of v) walk(x, personal, depth + 1);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, personal || PERSONAL_KEY.test(k), depth + 1);
  };
  walk(record, false, 0);
  return [...out].sort((a, b) => b.length - a.length);
}

/** An error text fit to print: personal values of the record hidden, then capped. */
export function boundedDetail(detail: string, personal: string[]): string {
  let d = detail;
  for (const p of personal) if (d.includes(p)) d = d.split(p).join(HIDDEN);
  return capValue(d, DETAIL_CAP);
}

/** True when a payload path (`customers.0.date_of_birth`) names a personal field. */
export function isPersonalPath(attr: string): boolean {
  return attr.split(/[.[\]]/).some((seg) => PERSONAL_KEY.test(seg));
}

/**
 * An error text fit for a report: what `boundedDetail` hides, and, when the error is about a
 * personal field, every quoted value too (the record may be gone, or hold the value transformed:
 * `"31/02/1980" is not a real date` is hidden either way).
 */
export function maskedDetail(detail: string, attr: string, personal: string[]): string {
  const quoted = isPersonalPath(attr) ? detail.replace(/"(?:[^"\\]|\\.)*"/g, `"${HIDDEN}"`) : detail;
  return boundedDetail(quoted, personal);
}

/** A value of a reconciliation difference fit for a report: hidden under a personal path. */
export function maskedValue(path: string, value: unknown): unknown {
  return value !== undefined && value !== null && isPersonalPath(path) ? HIDDEN : value;
}
