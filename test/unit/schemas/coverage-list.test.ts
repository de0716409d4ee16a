import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadContract } from '../../../contract';

const ROOT = path.resolve(__dirname, '../../..');

function possibleErrors(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => possibleErrors(n, out));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (Array.isArray(o['x-validators']))
      for (const v of o['x-validators'] as Array<{ possible_errors?: string[] }>) for (const c of v.possible_errors ?? []) out.add(c);
    Object.values(o).forEach((v) => possibleErrors(v, out));
  }
  return out;
}

describe('schemas/COVERAGE.md', () => {
  const md = fs.readFileSync(path.join(ROOT, 'schemas/COVERAGE.md'), 'utf8');
  const codes = possibleErrors(loadContract().components.schemas);

  it("lists every possible_errors code of the contract's x-validators", () => {
    const missing = [...codes].filter((c) => !md.includes(`\`${c}\``));
    expect(missing).toEqual([]);
  });

  // The four lists, in order: checked before send, needs platform state, field left out, semantics unclear.
  const HEADINGS = [
    '**Checked before send**',
    '**Not checked locally: need platform state or tenant configuration**',
    '**Not checked locally: depend on a field this schema leaves out**',
    '**Not checked locally: semantics the spec does not pin down**',
  ];
  function lists(): Array<{ heading: string; stated: number; codes: Set<string> }> {
    const starts = HEADINGS.map((h) => md.indexOf(h));
    const end = md.indexOf('\n## ', starts[3]);
    return HEADINGS.map((heading, k) => {
      const text = md.slice(starts[k], k < 3 ? starts[k + 1] : end);
      const stated = Number(/^\*\*[^*]+\*\* \((\d+)/.exec(text)?.[1]);
      // Each list is a table whose first column is the code.
      const found = [...text.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
      return { heading, stated, codes: new Set(found) };
    });
  }

  it('sorts every code into exactly one of the four lists, with the counts the headings state', () => {
    const found = lists();
    expect(found.map((l) => l.stated)).toEqual(found.map((l) => l.codes.size));
    for (const code of codes)
      expect(
        found.filter((l) => l.codes.has(code)).map((l) => l.heading),
        code,
      ).toHaveLength(1);
    for (const l of found) for (const code of l.codes) expect(codes.has(code), `${code} is not a possible_errors code`).toBe(true);
    expect(found.reduce((n, l) => n + l.codes.size, 0)).toBe(codes.size);
  });

  it('every code in the "checked before send" table is produced by the file it names', () => {
    const rows = [...md.matchAll(/^\| `([a-z_]+)` \| ((?:`[^`]+\.ts`(?:, )?)+) \|$/gm)];
    expect(rows.length).toBe(lists()[0].codes.size);
    for (const [, code, files] of rows) {
      const named = [...files.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      const produced = named.some((f) => new RegExp(`['"\`]${code}['"\`]`).test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
      expect(produced, code).toBe(true);
    }
  });
});
