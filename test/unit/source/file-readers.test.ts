import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { realisticAccount } from '../../../schemas/fixtures';
import { readersOf } from '../../../source/file-readers';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'file-readers-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, body: string | Buffer) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body);
  return file;
};

async function validated(file: string): Promise<Array<{ ext?: string; codes: string[] }>> {
  const out = [];
  for await (const r of readersOf(file).validate(file, {})) out.push({ ext: r.externalAccountNumber, codes: r.errors.map((e) => e.code) });
  return out;
}

/** `kraken-migrate validate` picks its reader by the file's format (source/file-readers.ts). */
describe('the reader a file is validated with', () => {
  const a = realisticAccount({ external_account_number: 'A-1' });
  const twice = [JSON.stringify(a), JSON.stringify(a)].join('\n');

  it('a .jsonl or .jsonl.gz file is read as run start --payloads reads it: a number held twice fails', async () => {
    const expected = [{ ext: 'A-1', codes: ['duplicate_external_account_number'] }];
    expect(await validated(write('twice.jsonl', twice))).toEqual(expected);
    expect(await validated(write('twice.jsonl.gz', gzipSync(twice)))).toEqual(expected);
  });

  it('a .json file, or one of no known format, is read as JSON: an array is one result a record', async () => {
    const array = JSON.stringify([a, a]);
    const expected = [
      { ext: 'A-1', codes: [] },
      { ext: 'A-1', codes: [] },
    ];
    expect(await validated(write('array.json', array))).toEqual(expected);
    expect(await validated(write('array.txt', array))).toEqual(expected);
  });
});
