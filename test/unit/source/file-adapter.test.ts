import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { csvHeaderLine, recordToCsvLine } from '../../../source/csv';
import { FileSourceAdapter } from '../../../source/file-adapter';
import { generateDataset } from '../../../harness/synthetic/generator';
import type { SourceAccount, SourceRecord } from '../../../source/types';

/**
 * A legacy export whose duplicated number has its first record in file order under the highest
 * account_id, so "first in the file" and "lowest id" (or "last in the file") give different accounts.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'legacy-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const [a, b] = [...generateDataset({ accounts: 2, seed: 11, defectRate: 0 })].map((i) => i.records[0]);
const withId = (r: SourceRecord, id: number, number: string): SourceRecord => ({ ...r, account: { ...r.account, account_id: id, account_number: number } });
const Z = 'ZZ-9';
const records = [
  withId(b, 900, Z), // the first record of ZZ-9: it wins
  withId(a, 1, 'AA-1'),
  withId(a, 5, Z), // a lower id, later in the file
  withId(b, 7, Z),
];

function write(name: string, body: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body);
  return file;
}
const files = {
  jsonl: write('legacy.jsonl', records.map((r) => `${JSON.stringify(r)}\n`).join('')),
  csv: write('legacy.csv', csvHeaderLine() + records.map(recordToCsvLine).join('')),
};

const expected = (r: SourceRecord, conflicting: number[]): SourceAccount => ({ ...r, conflicting_account_ids: conflicting });
const privateFolders = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`kraken-migrate-payloads-${process.pid}-`));

describe.each(Object.entries(files))('a legacy export (%s)', (_format, file) => {
  it('gives a duplicated number its first record in file order, listing the later ones as conflicting', async () => {
    const source = new FileSourceAdapter(file);
    expect(await source.getAccount(Z)).toEqual(expected(records[0], [5, 7]));
    expect(await source.getAccount('AA-1')).toEqual(expected(records[1], []));
    expect(await source.getAccount('NO-SUCH')).toBeUndefined();
    await source.close();
  });

  it('streams in file order, each number once, from its first record', async () => {
    const source = new FileSourceAdapter(file);
    const got: SourceAccount[] = [];
    for await (const s of source.stream()) got.push(s);
    expect(got).toEqual([expected(records[0], [5, 7]), expected(records[1], [])]);
    await source.close();
  });

  it('lists the numbers sorted, by keyset, and keeps its index in a private folder removed on close', async () => {
    const before = privateFolders();
    const source = new FileSourceAdapter(file);
    expect(await source.listAccountNumbers({ limit: 1 })).toEqual(['AA-1']);
    expect(await source.listAccountNumbers({ after: 'AA-1', limit: 5 })).toEqual([Z]);
    expect(await source.listAccountNumbers({ after: Z, limit: 5 })).toEqual([]);
    const made = privateFolders().filter((n) => !before.includes(n));
    expect(made).toHaveLength(1);
    expect(fs.statSync(path.join(os.tmpdir(), made[0])).mode & 0o777).toBe(0o700);
    await source.close();
    expect(privateFolders()).toEqual(before);
    // Used again after close: the index is built anew.
    expect(await source.getAccount(Z)).toEqual(expected(records[0], [5, 7]));
    await source.close();
  });
});

describe('a legacy export that cannot be indexed, or changes after', () => {
  it('names the file of a record without its account number, and leaves no private folder once closed', async () => {
    const before = privateFolders();
    const file = write('broken.jsonl', `${JSON.stringify(records[1])}\n${JSON.stringify({ ...records[0], account: { account_id: 3 } })}\n`);
    const source = new FileSourceAdapter(file);
    await expect(source.listAccountNumbers({ limit: 5 })).rejects.toThrow(`${file}: a record without account.account_id/account_number`);
    await source.close();
    expect(privateFolders()).toEqual(before);
  });

  it('streams what it indexed: a record appended after the index was built is not yielded', async () => {
    const file = write('growing.jsonl', `${JSON.stringify(records[1])}\n`);
    const source = new FileSourceAdapter(file);
    expect(await source.listAccountNumbers({ limit: 5 })).toEqual(['AA-1']);
    fs.appendFileSync(file, `${JSON.stringify(withId(b, 11, 'BB-2'))}\n`);
    const got: string[] = [];
    for await (const s of source.stream()) got.push(s.account.account_number);
    expect(got).toEqual(['AA-1']);
    await source.close();
  });
});
