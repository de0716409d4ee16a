import { InvalidArgumentError } from 'commander';

/** stdout is for results (and JSON); stderr for progress chatter, so `--json | jq` stays clean. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export function println(line = ''): void {
  process.stdout.write(line + '\n');
}

/**
 * Writes pages of lines to stdout as they come, waiting when the pipe is full: a list of a million
 * accounts is never held whole. Returns how many lines were written.
 */
export async function printLines(pages: AsyncIterable<{ lines: string; count: number }>): Promise<number> {
  let n = 0;
  for await (const page of pages) {
    if (page.count === 0) continue;
    n += page.count;
    if (!process.stdout.write(page.lines + '\n')) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
  return n;
}

export function info(line: string): void {
  process.stderr.write(line + '\n');
}

/** Fixed-width table for terminals. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (c ?? '').padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** commander's parser for positive integers (the harness's commands); errors become usage errors (exit 2). */
export function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) {
      throw new InvalidArgumentError(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
    }
    return n;
  };
}
