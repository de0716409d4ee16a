import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeDatasetToFiles } from '../../synthetic/dataset-files';
import { generateCommand } from '../../synthetic/generate-cli';
import { generateDataset } from '../../synthetic/generator';
import { isValidMpanCore } from '../../../source/mpan';

const root = path.resolve('.data/test-source-generator');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), fs.readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

describe('generateDataset', () => {
  it('is deterministic: the same seed writes byte-identical files, another seed does not', async () => {
    await writeDatasetToFiles(path.join(root, 'a'), generateDataset({ accounts: 60, seed: 11 }));
    await writeDatasetToFiles(path.join(root, 'b'), generateDataset({ accounts: 60, seed: 11 }));
    await writeDatasetToFiles(path.join(root, 'c'), generateDataset({ accounts: 60, seed: 12 }));
    const a = tree(path.join(root, 'a'));
    const b = tree(path.join(root, 'b'));
    expect(a.size).toBeGreaterThan(60 + 3);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [k, v] of a) expect(v.equals(b.get(k)!), k).toBe(true);
    const c = tree(path.join(root, 'c'));
    expect(c.get('accounts.jsonl')!.equals(a.get('accounts.jsonl')!)).toBe(false);
  });

  it('generates account i the same whatever the dataset size', () => {
    const small = [...generateDataset({ accounts: 5, seed: 3, defectRate: 0 })];
    const large = generateDataset({ accounts: 100_000, seed: 3, defectRate: 0 });
    for (const item of small) expect(large.next().value).toEqual(item);
  });

  it('writes valid UK identifiers: MPAN cores with their check digit, 6–10 digit MPRNs', () => {
    let mpans = 0;
    let mprns = 0;
    for (const item of generateDataset({ accounts: 200, seed: 9, defectRate: 0 })) {
      for (const sa of item.source.supply_addresses) {
        for (const mp of sa.meter_points) {
          if (mp.fuel?.toUpperCase() === 'E') {
            mpans++;
            expect(isValidMpanCore(mp.mpxn!), mp.mpxn!).toBe(true);
          } else {
            mprns++;
            expect(mp.mpxn).toMatch(/^[1-9]\d{5,9}$/);
          }
        }
      }
    }
    expect(mpans).toBeGreaterThan(100);
    expect(mprns).toBeGreaterThan(50);
  });

  it('honours the defect rate and mix', () => {
    const items = [...generateDataset({ accounts: 400, seed: 1, defectRate: 0.5, mix: { invalid_phone: 3, missing_document: 1 } })];
    const kinds = items.map((i) => i.expected.defect);
    const phone = kinds.filter((k) => k === 'invalid_phone').length;
    const docs = kinds.filter((k) => k === 'missing_document').length;
    expect(phone + docs).toBe(kinds.filter((k) => k !== null).length);
    expect(phone + docs).toBeGreaterThan(150);
    expect(Math.abs(phone - 3 * docs)).toBeLessThanOrEqual(3);
    expect([...generateDataset({ accounts: 50, seed: 1, defectRate: 0 })].every((i) => i.expected.expected.outcome === 'completed')).toBe(true);
  });

  it('writes a conflicting second record for supplier_conflict, and leaves out the file of missing_document', () => {
    const items = [...generateDataset({ accounts: 40, seed: 4, defectRate: 1, mix: { supplier_conflict: 1, missing_document: 1 } })];
    const conflict = items.find((i) => i.expected.defect === 'supplier_conflict')!;
    expect(conflict.records).toHaveLength(2);
    expect(conflict.records[1].account.account_number).toBe(conflict.records[0].account.account_number);
    expect(conflict.source.conflicting_account_ids).toEqual([conflict.records[1].account.account_id]);
    const missing = items.find((i) => i.expected.defect === 'missing_document')!;
    expect(missing.documents.length).toBe(missing.source.documents.length - 1);
  });

  it('generate command writes export files and refuses to run without a target', async () => {
    const out = path.join(root, 'cli');
    const r = await generateCommand({ accounts: 20, seed: 5, out, documentsDir: path.join(root, 'unused') });
    expect(r.files?.records).toBeGreaterThanOrEqual(20);
    expect(fs.readFileSync(path.join(out, 'expected.jsonl'), 'utf8').trim().split('\n')).toHaveLength(20);
    expect(fs.readFileSync(path.join(out, 'accounts.csv'), 'utf8').startsWith('account_id,account_number,')).toBe(true);
    await expect(generateCommand({ accounts: 20, seed: 5, documentsDir: out })).rejects.toMatchObject({ code: 'generate_no_target' });
    await expect(generateCommand({ accounts: 0, seed: 5, out, documentsDir: out })).rejects.toMatchObject({ code: 'generate_invalid_accounts' });
  });
});
