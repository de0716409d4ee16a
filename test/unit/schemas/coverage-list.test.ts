import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadContract } from '../../../contract';

const ROOT = path.resolve(__dirname, '../../..');

function possibleErrors(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => possibleErrors(n, out));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (Array.isArray(o['x-validators'])) for (const v of o['x-validators'] as Array<{ possible_errors?: string[] }>) for (const c of v.possible_errors ?? []) out.add(c);
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

  it('every code in the "checked before send" table is produced by the file it names', () => {
    const rows = [...md.matchAll(/^\| `([a-z_]+)` \| ((?:`[^`]+\.ts`(?:, )?)+) \|$/gm)];
    expect(rows.length).toBeGreaterThan(40);
    for (const [, code, files] of rows) {
      const named = [...files.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      const produced = named.some((f) => new RegExp(`['"\`]${code}['"\`]`).test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
      expect(produced, code).toBe(true);
    }
  });
});
