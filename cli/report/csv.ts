/**
 * CSV for people who open it in a spreadsheet: RFC 4180 quoting, and cells that a spreadsheet would
 * run as a formula (`=`, `+`, `-`, `@`, or a leading tab / carriage return) are prefixed with `'`.
 * Source data is untrusted: an account name like `=HYPERLINK(...)` must stay text.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function neutraliseFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export function csvCell(value: unknown): string {
  const text = neutraliseFormula(value === null || value === undefined ? '' : String(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: readonly unknown[]): string {
  return cells.map(csvCell).join(',');
}

/** A whole document, CRLF line ends as RFC 4180 (and Excel) expect. */
export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  return [csvLine(header), ...rows.map(csvLine)].join('\r\n') + '\r\n';
}
