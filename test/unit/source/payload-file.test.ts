import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { realisticAccount } from '../../../schemas/fixtures';
import { PayloadFileSource } from '../../../source/payload-file';
import { validatePayloadFile } from '../../../source/payload-validate';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payload-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const a = realisticAccount({ external_account_number: 'A-1' });
const b = realisticAccount({ external_account_number: 'B-2' });
const c = realisticAccount({ external_account_number: 'C-3' });
const text = [
  JSON.stringify(b), // 1
  '', // 2: blank, counted
  JSON.stringify(a) + '\r', // 3: CRLF
  'not json', // 4
  '"a string"', // 5
  JSON.stringify({ ...c, notes: [{ body: 'x'.repeat(20_000) }] }), // 6: over the test's limit
  JSON.stringify(c), // 7
  JSON.stringify(c), // 8: C-3 again
  JSON.stringify({ import_supplier: 'X' }), // 9: no number of its own
].join('\n');

function write(name: string, body: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body);
  return file;
}

async function everything(source: PayloadFileSource) {
  const out: Record<string, unknown> = {};
  for (let page = await source.listAccountNumbers({ limit: 2 }); page.length > 0; page = await source.listAccountNumbers({ after: page.at(-1), limit: 2 })) {
    for (const key of page) {
      const r = await source.getPayload(key);
      out[key] = r?.ok ? r.payload : { code: r?.code, attr: r?.attr, detail: r?.detail };
    }
  }
  await source.close();
  return out;
}

describe('a payload file', () => {
  it('gives each account its own payload as written, and each unreadable line an account of its own that fails with a code and its line number', async () => {
    const got = await everything(new PayloadFileSource(write('p.jsonl', text), { maxLineBytes: 16_384 }));
    expect(Object.keys(got)).toEqual(['#line-4', '#line-5', '#line-6', '#line-9', 'A-1', 'B-2', 'C-3']);
    expect(got['A-1']).toEqual(a);
    expect(got['B-2']).toEqual(b);
    expect(got['#line-9']).toEqual({ import_supplier: 'X' });
    expect(got['#line-4']).toMatchObject({ code: 'invalid_json', detail: expect.stringContaining('line 4 ') });
    // The parser quotes the line; the detail never does (it may hold a name).
    expect(JSON.stringify(got['#line-4'])).not.toContain('not json');
    expect(got['#line-5']).toMatchObject({ code: 'payload_not_an_object', detail: expect.stringContaining('line 5 ') });
    expect(got['#line-6']).toMatchObject({ code: 'payload_too_large', detail: expect.stringContaining('line 6 ') });
    expect(got['C-3']).toMatchObject({
      code: 'duplicate_external_account_number',
      attr: 'external_account_number',
      detail: expect.stringContaining('lines 7, 8'),
    });
  });

  it('reads a gzipped file exactly as the plain one', async () => {
    const plain = await everything(new PayloadFileSource(write('same.jsonl', text), { maxLineBytes: 16_384 }));
    const gz = await everything(new PayloadFileSource(write('same.jsonl.gz', gzipSync(text)), { maxLineBytes: 16_384 }));
    expect(JSON.stringify(gz).replaceAll('same.jsonl.gz', 'same.jsonl')).toEqual(JSON.stringify(plain));
  });

  it('validate reads it account for account: the same accounts, and a payload nested 5,000 levels deep fails without a stack overflow', async () => {
    const deep = JSON.stringify({ ...realisticAccount({ external_account_number: 'D-4' }), metadata: [{ key: 'k', value: 'DEEP' }] }).replace(
      '"DEEP"',
      '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
    );
    const file = write('v.jsonl', [JSON.stringify(a), deep, 'nope', JSON.stringify(a)].join('\n'));
    const results = [];
    for await (const r of validatePayloadFile(file, { importSupplier: a.import_supplier }))
      results.push({ ext: r.externalAccountNumber, codes: r.errors.map((e) => e.code) });
    expect(results).toEqual([
      { ext: '#line-3', codes: ['invalid_json'] },
      { ext: 'A-1', codes: ['duplicate_external_account_number'] },
      { ext: 'D-4', codes: ['nesting_too_deep'] },
    ]);
  });

  it('validate names a payload for another import supplier', async () => {
    const file = write('s.jsonl', JSON.stringify(a));
    const results = [];
    for await (const r of validatePayloadFile(file, { importSupplier: 'SOMEONE-ELSE' })) results.push(...r.errors.map((e) => [e.code, e.attr]));
    expect(results).toEqual([['import_supplier_mismatch', 'import_supplier']]);
  });

  it('keeps its index on disk in a private folder of its own (0700), removed by close, for a plain file as for a gzipped one', async () => {
    const mine = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`kraken-migrate-payloads-${process.pid}-`));
    const before = new Set(mine());
    const source = new PayloadFileSource(write('kept.jsonl', text), { maxLineBytes: 16_384 });
    expect(await source.listAccountNumbers({ limit: 3 })).toEqual(['#line-4', '#line-5', '#line-6']);
    const created = mine().filter((n) => !before.has(n));
    expect(created).toHaveLength(1);
    const folder = path.join(os.tmpdir(), created[0]);
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(folder)).toContain('index.sqlite');
    // The cursor is the last number of a page, as the run's lister passes it; a number past the end gives an empty page.
    expect(await source.listAccountNumbers({ after: '#line-6', limit: 10 })).toEqual(['#line-9', 'A-1', 'B-2', 'C-3']);
    expect(await source.listAccountNumbers({ after: 'C-3', limit: 10 })).toEqual([]);
    expect(await source.getPayload('Z-404')).toBeUndefined();
    await source.close();
    expect(fs.existsSync(folder)).toBe(false);
  });

  it('refuses an account number written as a lone surrogate escape (valid JSON, not Unicode text) on its line, instead of losing the account', async () => {
    const file = write('surrogate.jsonl', `${JSON.stringify(a)}\n{"external_account_number":"S-\\ud800"}\n`);
    const got = await everything(new PayloadFileSource(file));
    expect(Object.keys(got)).toEqual(['#line-2', 'A-1']);
    expect(got['#line-2']).toMatchObject({ code: 'invalid_utf8', attr: 'external_account_number', detail: expect.stringContaining('line 2 ') });
  });
});
