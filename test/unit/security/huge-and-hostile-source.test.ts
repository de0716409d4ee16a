import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecords, RecordTooLargeError } from '../../../source/record-reader';
import { generateDataset } from '../../../harness/synthetic/generator';
import { transformAccount } from '../../../source/transform';
import { defaultMapping } from '../../../source/mapping';
import { validateAccount } from '../../../schemas/validate';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'km-hostile-'));

describe('hostile source data', () => {
  it('refuses a runaway record (an unclosed CSV quote) with a coded error instead of reading the whole file into memory', async () => {
    const file = path.join(tmp, 'broken.csv');
    fs.writeFileSync(file, 'account_number,record\nLGC-1,"{unclosed\n' + 'x'.repeat(2 * 1024 * 1024) + '\n');
    const read = async () => {
      for await (const _ of readRecords(file, { quoted: true, maxRecordBytes: 1024 * 1024 })) void _;
    };
    await expect(read()).rejects.toBeInstanceOf(RecordTooLargeError);
    await expect(read()).rejects.toMatchObject({ code: 'source_record_too_large' });
  });

  it('carries SQL-ish and script-ish strings through transform and validation as plain data', () => {
    const [item] = generateDataset({ accounts: 1, seed: 1, defectRate: 0 });
    const src = structuredClone(item.source);
    const evil = `Robert'); DROP TABLE migrate.runs;-- <script>alert(1)</script>`;
    src.contacts[0].surname = evil;
    const t = transformAccount(src, { importSupplierCode: 'DEMO-SUPPLIER', mapping: defaultMapping() });
    expect(t.ok).toBe(true);
    if (!t.ok) return;
    expect(t.payload.customers?.[0].family_name).toBe(evil);
    const v = validateAccount(t.payload, { today: '2025-06-01' });
    // A family name may hold any characters: accepted, and passed on verbatim (never altered or executed).
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.value.customers?.[0].family_name).toBe(evil);
  });

  it('validates an account with a very large reading history without blowing up', () => {
    const [item] = generateDataset({ accounts: 1, seed: 2, defectRate: 0 });
    const t = transformAccount(item.source, { importSupplierCode: 'DEMO-SUPPLIER', mapping: defaultMapping() });
    if (!t.ok) throw new Error('transform failed');
    const mp = t.payload.supply_addresses![0].meter_points[0] as { meters?: { reading_history?: unknown[] }[] };
    const history = mp.meters?.[0]?.reading_history ?? [];
    expect(history.length).toBeGreaterThan(0);
    const big = Array.from({ length: 20_000 }, () => history[0]);
    mp.meters![0].reading_history = big;
    const v = validateAccount(t.payload, { today: '2025-06-01' });
    // Valid readings stay valid however many there are: the whole history is accepted and kept.
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    const kept = v.value.supply_addresses![0].meter_points[0] as { meters?: { reading_history?: unknown[] }[] };
    expect(kept.meters![0].reading_history).toHaveLength(20_000);
  });
});
