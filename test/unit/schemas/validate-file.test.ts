import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exampleScheduleRequest, realisticAccount } from '../../../schemas/fixtures';
import { type FileValidationResult, formatValidationLine, formatValidationLines, validateFile } from '../../../schemas/validate-file';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemas-validate-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

async function collect(file: string): Promise<FileValidationResult[]> {
  const out: FileValidationResult[] = [];
  for await (const r of validateFile(file)) out.push(r);
  return out;
}

const badPhone = () => realisticAccount({ external_account_number: 'EXT-123', customers: [{ family_name: 'Hughes', mobile: 'abcde' }] });

describe('validateFile', () => {
  it('reads a JSON array of bare payloads, one result per record', async () => {
    const file = write('accounts.json', JSON.stringify([realisticAccount(), badPhone()]));
    const results = await collect(file);
    expect(results.map((r) => [r.index, r.externalAccountNumber, r.errors.map((e) => `${e.attr} ${e.code}`)])).toEqual([
      [0, 'EXT-1001', []],
      [1, 'EXT-123', ['customers.0.mobile invalid_phone_number']],
    ]);
  });

  it('reads one JSON payload', async () => {
    expect(await collect(write('one.json', JSON.stringify(realisticAccount())))).toEqual([{ index: 0, externalAccountNumber: 'EXT-1001', errors: [] }]);
  });

  it('reads JSONL with schedule requests and bare payloads, reporting a broken line as invalid_json', async () => {
    const lines = [JSON.stringify(exampleScheduleRequest()), '', '{"broken": ', JSON.stringify(badPhone())].join('\n');
    const results = await collect(write('accounts.jsonl', lines));
    expect(results.map((r) => [r.index, r.errors.map((e) => `${e.attr}|${e.code}`)])).toEqual([
      [0, []],
      [1, ['|invalid_json']],
      [2, ['customers.0.mobile|invalid_phone_number']],
    ]);
  });

  it('attrs of a wrapped request are prefixed with payload.', async () => {
    const request: any = exampleScheduleRequest();
    request.payload.customers[0].mobile = 'abcde';
    const [result] = await collect(write('request.json', JSON.stringify(request)));
    expect(result.errors.map((e) => e.attr)).toEqual(['payload.customers.0.mobile']);
  });

  it('a .json file that is not JSON is one invalid_json result', async () => {
    const results = await collect(write('bad.json', '{"a": 1'));
    expect(results).toEqual([{ index: 0, errors: [expect.objectContaining({ code: 'invalid_json', attr: '' })] }]);
  });
});

describe('formatValidationLine', () => {
  it('prints the account number, attr, code and detail', () => {
    expect(
      formatValidationLine({ index: 3, externalAccountNumber: 'EXT-123' }, { attr: 'customers.0.mobile', code: 'invalid_phone_number', detail: 'bad' }),
    ).toBe('EXT-123 customers.0.mobile invalid_phone_number: bad');
  });

  it('falls back to the record index and marks a root error', () => {
    expect(formatValidationLines({ index: 7, errors: [{ attr: '', code: 'invalid_json', detail: 'Not valid JSON' }] })).toEqual([
      '#7 - invalid_json: Not valid JSON',
    ]);
  });
});
