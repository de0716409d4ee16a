import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueTariffCodes } from '../../sandbox/catalogue';
import { validateAccount } from '../../../schemas/validate';
import { preflightNotes, tariffAttrFor, tariffsOf } from '../../../source/catalogue-check';
import { writeDatasetToFiles } from '../../synthetic/dataset-files';
import { describeDocuments } from '../../../source/documents';
import { FileSourceAdapter } from '../../../source/file-adapter';
import { DEFECT_KINDS, type GroundTruth, REFERENCE_DAY, type Stage, generateDataset, groundTruthSchema } from '../../synthetic/generator';
import { defaultMapping } from '../../../source/mapping';
import { transformAccount } from '../../../source/transform';
import type { SourceAccount } from '../../../source/types';

/**
 * The whole local pipeline over a generated dataset, read back through the file adapter: every
 * account's first failing stage, code and attr must be what the generator recorded.
 */

const dir = path.resolve('.data/test-source-ground-truth');
const known = new Set(catalogueTariffCodes());

type Outcome = { outcome: 'completed' } | { outcome: 'failed'; stage: Stage; errors: Array<{ code: string; attr: string | null }> };

async function runPipeline(src: SourceAccount, documentsDir: string): Promise<Outcome> {
  const t = transformAccount(src, { importSupplierCode: 'DEMO-SUPPLIER', mapping: defaultMapping() });
  if (!t.ok) return { outcome: 'failed', stage: 'transform', errors: t.errors };
  const v = validateAccount(t.payload, { today: REFERENCE_DAY });
  if (!v.ok) return { outcome: 'failed', stage: 'validate', errors: v.errors };
  // The pre-flight as the sandbox catalogue answers it: electricity tariffs it knows are confirmed;
  // it never refuses. The platform then reports an unknown tariff, without a field.
  const tariffs = tariffsOf(v.value);
  const notes = preflightNotes(
    tariffs,
    new Map(tariffs.filter((x) => x.fuel === 'electricity' && known.has(x.code)).map((x) => [x.code, { verdict: 'confirmed' }])),
  );
  const d = await describeDocuments(t.documents, documentsDir);
  if (d.missing.length > 0) return { outcome: 'failed', stage: 'documents', errors: d.missing };
  expect(d.documents).toHaveLength(t.documents.length);
  if (tariffs.some((x) => !known.has(x.code))) {
    return { outcome: 'failed', stage: 'platform', errors: [{ code: 'tariff_code_not_found', attr: tariffAttrFor('tariff_code_not_found', notes) ?? null }] };
  }
  return { outcome: 'completed' };
}

describe('generated dataset vs ground truth (300 accounts)', () => {
  let truth: Map<string, GroundTruth>;
  let outcomes: Map<string, Outcome>;

  beforeAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    const written = await writeDatasetToFiles(dir, generateDataset({ accounts: 300, seed: 2024 }));
    expect(written.accounts).toBe(300);
    truth = new Map(
      fs
        .readFileSync(written.files.expected, 'utf8')
        .trim()
        .split('\n')
        .map((l) => groundTruthSchema.parse(JSON.parse(l)))
        .map((g) => [g.external_account_number, g]),
    );
    outcomes = new Map();
    const adapter = new FileSourceAdapter(written.files.jsonl);
    for await (const src of adapter.stream()) outcomes.set(src.account.account_number, await runPipeline(src, written.files.documentsDir));
    await adapter.close();
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('has one ground-truth row and one outcome per account number, covering every defect kind', () => {
    expect(truth.size).toBe(300);
    expect([...outcomes.keys()].sort()).toEqual([...truth.keys()].sort());
    const kinds = new Set([...truth.values()].map((g) => g.defect));
    for (const k of DEFECT_KINDS) expect(kinds, k).toContain(k);
    const clean = [...truth.values()].filter((g) => g.defect === null).length;
    expect(clean / truth.size).toBeGreaterThan(0.7);
    expect(clean / truth.size).toBeLessThan(0.9);
  });

  it('completes every clean account', () => {
    const rejected = [...truth.values()]
      .filter((g) => g.defect === null)
      .map((g) => [g.external_account_number, outcomes.get(g.external_account_number)] as const)
      .filter(([, o]) => o?.outcome !== 'completed');
    expect(rejected).toEqual([]);
  });

  it('catches every defect at its expected stage with its code and attr', () => {
    const misses: unknown[] = [];
    for (const g of truth.values()) {
      if (g.expected.outcome !== 'failed') continue;
      const o = outcomes.get(g.external_account_number);
      const { stage, code, attr } = g.expected;
      const hit = o?.outcome === 'failed' && o.stage === stage && o.errors.some((e) => e.code === code && e.attr === attr);
      if (!hit) misses.push({ account: g.external_account_number, defect: g.defect, expected: g.expected, got: o });
    }
    expect(misses).toEqual([]);
  });

  it('names the legacy field of a transform error', async () => {
    const g = [...truth.values()].find((x) => x.defect === 'impossible_date');
    const src = await new FileSourceAdapter(path.join(dir, 'accounts.jsonl')).getAccount(g!.external_account_number);
    const t = transformAccount(src!, { importSupplierCode: 'DEMO-SUPPLIER', mapping: defaultMapping() });
    expect(t.ok).toBe(false);
    if (!t.ok)
      expect(t.errors).toContainEqual(
        expect.objectContaining({ code: 'invalid_date', attr: 'customers.0.date_of_birth', sourceField: 'contacts.date_of_birth' }),
      );
  });
});
