import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_PRELOAD_MODULES } from '../../../workers/workflow-bundle';

const ROOT = path.resolve(__dirname, '../../..');

/** domain/ modules a workflow file imports values from (type-only imports are erased from the bundle). */
function domainValueImports(): string[] {
  const out = new Set<string>();
  for (const f of fs.readdirSync(path.join(ROOT, 'workflows')).filter((n) => n.endsWith('.ts'))) {
    const src = fs.readFileSync(path.join(ROOT, 'workflows', f), 'utf8');
    for (const m of src.matchAll(/^import\s+(?!type\b)([^;]*?)\s+from\s+'\.\.\/domain\/([\w-]+)'/gms)) {
      // `import { type A, type B }` brings no value either.
      const names = m[1]
        .replace(/[{}]/g, '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (names.some((n) => !n.startsWith('type '))) out.add(path.join(ROOT, 'domain', `${m[2]}.ts`));
    }
  }
  return [...out];
}

describe('modules the workflow bundle evaluates once', () => {
  it('every domain module a workflow imports values from that imports zod or luxon is preloaded (else the library is evaluated per workflow)', () => {
    const imports = (lib: string) => domainValueImports().filter((f) => fs.readFileSync(f, 'utf8').includes(`from '${lib}'`));
    for (const lib of ['zod', 'luxon']) {
      expect(imports(lib).length, lib).toBeGreaterThan(0);
      expect([...WORKFLOW_PRELOAD_MODULES].sort(), lib).toEqual(expect.arrayContaining(imports(lib).sort()));
    }
  });

  it('preloads only modules that exist and keep no mutable state at module scope', () => {
    for (const f of WORKFLOW_PRELOAD_MODULES) {
      const src = fs.readFileSync(f, 'utf8');
      expect(src, f).not.toMatch(/^(let|var)\s/m);
    }
  });
});
