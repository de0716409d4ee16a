import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateFile, type FileValidationResult } from '../../../schemas/validate-file';
import { validatePayloadFile } from '../../../source/payload-validate';
import { makers } from '../../../harness/synthetic/hostile-inputs';

/**
 * The bad-input battery of issue 39, each case ending in its code, with no hang: files generated
 * here (harness/synthetic/hostile-inputs.ts), small; harness/bench/hostile-input.ts runs the big sizes and
 * measures peak memory and disk.
 */

const ROOT = path.resolve(__dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-input-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function all(results: AsyncIterable<FileValidationResult>): Promise<FileValidationResult[]> {
  const out: FileValidationResult[] = [];
  for await (const r of results) out.push(r);
  return out;
}
const payloads = (file: string, limits?: NonNullable<Parameters<typeof validatePayloadFile>[1]>['limits']) => all(validatePayloadFile(file, { limits }));
const codes = (rs: FileValidationResult[]) => rs.flatMap((r) => r.errors.map((e) => [r.externalAccountNumber ?? `#${r.index}`, e.code, e.attr]));
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code?: string }).code, message: (e as Error).message };
  }
  throw new Error('expected a refusal');
};

describe('hostile payload files are refused with a code, never followed into a hang', () => {
  it('a gzip bomb stops at its decompressed limit, its partial copy removed', async () => {
    const file = await makers.gzipBomb(dir, 8 * 1024 * 1024);
    const before = fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`kraken-migrate-payloads-${process.pid}-`));
    const r = await failure(payloads(file, { maxDecompressedBytes: 1024 * 1024 }));
    expect(r).toMatchObject({ code: 'decompressed_too_large', message: expect.stringContaining('expands past 1048576 bytes') });
    expect(fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`kraken-migrate-payloads-${process.pid}-`))).toEqual(before);
  });

  it('more lines than the limit: too_many_lines; a file that is not gzip: invalid_gzip', async () => {
    expect(await failure(payloads(await makers.manyEmptyLines(dir, 1000), { maxLines: 999 }))).toMatchObject({ code: 'too_many_lines' });
    expect(await failure(payloads(makers.notGzip(dir)))).toMatchObject({ code: 'invalid_gzip' });
  });

  it('a FIFO, a directory or a device is not opened: not_a_regular_file', async () => {
    for (const [make, kind] of [
      [makers.fifo, 'a FIFO'],
      [makers.directory, 'a directory'],
      [makers.device, 'a device'],
    ] as const) {
      const file = make(dir);
      expect(await failure(payloads(file))).toMatchObject({ code: 'not_a_regular_file', message: expect.stringContaining(kind) });
      expect(await failure(all(validateFile(file)))).toMatchObject({ code: 'not_a_regular_file' });
    }
  });

  it('invalid UTF-8 fails its own line with invalid_utf8, naming the line; the other lines are read', async () => {
    expect(codes(await payloads(makers.invalidUtf8(dir)))).toEqual([['#line-2', 'invalid_utf8', '']]);
    const [r] = (await payloads(makers.invalidUtf8(dir))).filter((x) => x.errors.length);
    expect(r.errors[0].detail).toContain('line 2 is not valid UTF-8');
  });

  it('a key given twice fails its line with duplicate_json_key at that field (the account number included)', async () => {
    const top = await payloads(makers.duplicateKey(dir));
    expect(codes(top).filter(([, c]) => c === 'duplicate_json_key')).toEqual([['#line-1', 'duplicate_json_key', 'external_account_number']]);
    // Neither number is taken for it: the line is its own account.
    expect(top.map((r) => r.externalAccountNumber)).not.toContain('D-2');
    const nested = await payloads(makers.duplicateNestedKey(dir));
    expect(codes(nested).filter(([, c]) => c === 'duplicate_json_key')).toEqual([['#line-2', 'duplicate_json_key', 'customers.0.given_name']]);
  });

  it('NUL, C0, C1 and bidi control characters fail with control_character at the field, named by code point, never echoed', async () => {
    const cases = [
      [makers.nul(dir), 'notes_x', 'U+0000'],
      [makers.c1InNumber(dir), 'external_account_number', 'U+0085'],
      [makers.bidiInValue(dir), 'x', 'U+202E'],
      [makers.escapeInNumber(dir), 'external_account_number', 'U+001B'],
    ] as const;
    for (const [file, attr, point] of cases) {
      const rs = await payloads(file);
      const errors = rs.flatMap((r) => r.errors);
      expect(errors.map((e) => [e.code, e.attr])).toContainEqual(['control_character', attr]);
      expect(errors.find((e) => e.code === 'control_character')!.detail).toContain(point);
      // What is printed carries no control character of the input.
      // eslint-disable-next-line no-control-regex -- control characters are what it looks for
      expect(JSON.stringify(rs)).not.toMatch(/\\u001b|\\u0085|\\u202e|\u001b|\u0085|\u202e/);
    }
  });

  it('a byte order mark is accepted, in JSONL and in JSON', async () => {
    const rs = await payloads(makers.bom(dir));
    expect(rs.map((r) => r.externalAccountNumber)).toEqual(['BOM-1', 'BOM-2']);
    expect(codes(rs).filter(([, c]) => c === 'invalid_json')).toEqual([]);
    const json = await all(validateFile(makers.bomJson(dir)));
    expect(json.map((r) => r.externalAccountNumber)).toEqual(['BOMJ-1']);
  });

  it('a JSON array with a duplicate key names the record and the field', async () => {
    const rs = await all(validateFile(makers.jsonArrayDuplicate(dir)));
    expect(rs).toEqual([
      { index: 0, externalAccountNumber: 'J-1', errors: [] },
      { index: 1, errors: [expect.objectContaining({ code: 'duplicate_json_key', attr: 'a', detail: expect.stringContaining('record 1 (line 1)') })] },
    ]);
  });

  it('a line over the size limit and a payload nested too deep fail alone, as today', async () => {
    expect(codes(await payloads(makers.longLine(dir, 5000), { maxLineBytes: 4096 }))[0]).toEqual(['#line-1', 'payload_too_large', '']);
    expect(codes(await payloads(makers.deepNesting(dir, 200))).map(([, c]) => c)).toContain('nesting_too_deep');
  });

  it('a JSON array of any size is streamed record by record (no document limit); one record over its limit stops the file with json_record_too_large, naming it', async () => {
    const file = makers.bigJson(dir, 200_000);
    const rs = await all(validateFile(file, { maxJsonDocumentBytes: 1_000, maxJsonRecordBytes: 20_000 }));
    const written = fs.readFileSync(file, 'utf8').match(/"external_account_number":"BIG"/g)!.length + 1; // and the closing {}
    expect(rs.length).toBe(written);
    expect(rs.map((r) => r.index)).toEqual(rs.map((_, i) => i));
    expect(rs.at(-2)?.externalAccountNumber).toBe('BIG');
    expect(await failure(all(validateFile(file, { maxJsonRecordBytes: 500 })))).toMatchObject({
      code: 'json_record_too_large',
      message: expect.stringMatching(/^record 0 \(line 1\) is over the 500-byte limit/),
    });
    // A record that never ends (one endless string over several chunks) is not held to its end.
    const endless = path.join(dir, 'endless.json');
    fs.writeFileSync(endless, `[\n{"external_account_number":"E","x":"${'x'.repeat(3 * 1024 * 1024)}`);
    expect(await failure(all(validateFile(endless, { maxJsonRecordBytes: 1024 * 1024 })))).toMatchObject({
      code: 'json_record_too_large',
      message: expect.stringMatching(/^record 0 \(from line 2\) is over/),
    });
  });

  it('a JSON document that is not an array over its limit is refused before it is read: json_document_too_large', async () => {
    expect(await failure(all(validateFile(makers.bigJsonObject(dir, 200_000), { maxJsonDocumentBytes: 100_000 })))).toMatchObject({
      code: 'json_document_too_large',
    });
  });

  it('in a streamed JSON array, NUL, invalid UTF-8 and a repeated key fail their own record with the code, the line and the field; the sound records pass', async () => {
    const rs = await all(validateFile(makers.jsonArrayHostileLines(dir)));
    const got = rs.map((r) => ({ index: r.index, ext: r.externalAccountNumber, errors: r.errors.map((e) => [e.code, e.attr, e.detail]) }));
    expect(got).toEqual([
      { index: 0, ext: 'H-0', errors: [] },
      { index: 1, ext: undefined, errors: [['control_character', 'x', expect.stringMatching(/^record 1 \(line 3\): .*U\+0000/)]] },
      { index: 2, ext: undefined, errors: [['invalid_utf8', '', 'record 2 (line 4) is not valid UTF-8']] },
      { index: 3, ext: undefined, errors: [['duplicate_json_key', 'customers.0.given_name', expect.stringMatching(/^record 3 \(line 5\): /)]] },
      { index: 4, ext: 'H-4', errors: [] },
    ]);
  });

  it('a broken JSON array ends with invalid_json naming the record and its line, after the records before it', async () => {
    const rs = await all(validateFile(makers.jsonArrayBroken(dir)));
    expect(rs.map((r) => [r.index, r.externalAccountNumber, r.errors.map((e) => [e.code, e.detail])])).toEqual([
      [0, 'K-0', []],
      [1, undefined, [['invalid_json', expect.stringMatching(/^record 1 \(line 2\): not valid JSON/)]]],
    ]);
  });
});

/** `kraken-migrate validate` as a user runs it: the exit code and what it prints. */
function cli(args: string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'cli/main.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, DATA_DIR: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 60_000,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, ms: Date.now() - started }));
  });
}

describe('kraken-migrate validate on a file that cannot be read as one', () => {
  it('exits 4 with one line naming the code (a FIFO is not waited on); a validation failure keeps exit 1', async () => {
    const fifo = path.join(dir, 'cli-fifo.jsonl');
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('mkfifo', [fifo]);
    const r = await cli(['validate', fifo]);
    expect(r.code).toBe(4);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error \[not_a_regular_file\]: .*cli-fifo\.jsonl is a FIFO/)]);
    const bad = await cli(['validate', makers.duplicateKey(fs.mkdtempSync(path.join(dir, 'd-')))]);
    expect(bad.code).toBe(1);
  }, 120_000);
});
