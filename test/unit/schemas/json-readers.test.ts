import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPayloadLines } from '../../../schemas/json-lines';
import { readJsonArrayRecords } from '../../../schemas/json-array-stream';
import { classifyUnknownKeys } from '../../../schemas/validate';
import { validationError } from '../../../schemas/errors';
import { indexLine } from '../../../source/payload-file';

/**
 * The readers that decide what a team's file is: each JSONL line (offsets, numbering, limits,
 * UTF-8), each record of a `.json` array (index, line, bytes), a line's index entry, and the
 * undocumented-field classification. Inputs are cut into chunks at every position, as a stream
 * delivers them.
 */

/** `text` delivered in chunks of `size` bytes. */
const chunked = (bytes: Buffer, size: number) =>
  Readable.from(Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size)));

async function collect<T>(gen: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of gen) out.push(x);
  return out;
}

describe('readPayloadLines', () => {
  const text = Buffer.from('\uFEFF{"a":1}\r\n\n  \n{"b":22}\n{"c":3}');

  it('numbers lines as an editor does, with byte offsets and lengths of the text without CR, BOM or newline, at every chunk size', async () => {
    const want = [
      { line: 1, offset: 3, length: 7, text: '{"a":1}' },
      { line: 4, offset: 16, length: 8, text: '{"b":22}' },
      { line: 5, offset: 25, length: 7, text: '{"c":3}' },
    ];
    for (let size = 1; size <= text.length; size++) expect(await collect(readPayloadLines(chunked(text, size))), `chunk ${size}`).toEqual(want);
    // The offsets read the text back.
    for (const l of want) expect(text.subarray(l.offset, l.offset + l.length).toString()).toBe(l.text);
  });

  it('a line over the limit is yielded as tooLarge with its full length, never held, and the next line is read; the limit itself is allowed', async () => {
    const input = Buffer.from(`${'x'.repeat(10)}\n${'y'.repeat(11)}\n{"ok":1}\n${'z'.repeat(12)}`);
    for (const size of [1, 3, 7, 64]) {
      expect(await collect(readPayloadLines(chunked(input, size), { maxLineBytes: 10 })), `chunk ${size}`).toEqual([
        { line: 1, offset: 0, length: 10, text: 'x'.repeat(10) },
        { line: 2, offset: 11, length: 11, tooLarge: true },
        { line: 3, offset: 23, length: 8, text: '{"ok":1}' },
        { line: 4, offset: 32, length: 12, tooLarge: true },
      ]);
    }
  });

  it('a line that is not UTF-8 is yielded as invalidUtf8 (never decoded with replacements); a BOM only counts on line 1', async () => {
    const input = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n\uFEFF{"b":1}\n')]);
    const got = await collect(readPayloadLines(chunked(input, 4)));
    expect(got[0]).toEqual({ line: 1, offset: 0, length: 10, invalidUtf8: true });
    expect(got[1]).toEqual({ line: 2, offset: 11, length: 10, text: '\uFEFF{"b":1}' });
  });

  it('an empty input yields nothing; a file of blank lines yields nothing; a blank last line without a newline yields nothing', async () => {
    expect(await collect(readPayloadLines(chunked(Buffer.alloc(0), 1)))).toEqual([]);
    expect(await collect(readPayloadLines(chunked(Buffer.from('\n \r\n\t\n'), 2)))).toEqual([]);
    expect(await collect(readPayloadLines(chunked(Buffer.from('{"a":1}\n \t'), 3)))).toEqual([{ line: 1, offset: 0, length: 7, text: '{"a":1}' }]);
  });

  it('only the three bytes of a BOM are skipped on line 1: bytes that merely look like one are the line (and not UTF-8)', async () => {
    for (const start of [
      [0x41, 0xbb, 0xbf],
      [0xef, 0x41, 0xbf],
      [0xef, 0xbb, 0x41],
    ]) {
      const got = await collect(readPayloadLines(chunked(Buffer.concat([Buffer.from(start), Buffer.from('{"a":1}\n')]), 4)));
      expect(got, start.join(',')).toEqual([{ line: 1, offset: 0, length: 10, invalidUtf8: true }]);
    }
  });
});

describe('readJsonArrayRecords', () => {
  const text = Buffer.from('\uFEFF[\n  {"a":[1,{"b":"],}"}]},\n  "s\\"",\n\n  3 ,{"c":"é"}\n]\n');

  it('yields each element of the top-level array with its index, its first line and its exact bytes, at every chunk size', async () => {
    const want = [
      { index: 0, line: 2, text: '{"a":[1,{"b":"],}"}]}' },
      { index: 1, line: 3, text: '"s\\""' },
      { index: 2, line: 5, text: '3' },
      { index: 3, line: 5, text: '{"c":"é"}' },
    ];
    for (let size = 1; size <= text.length; size++) {
      const got = (await collect(readJsonArrayRecords(chunked(text, size)))).map((r) =>
        'bytes' in r ? { index: r.index, line: r.line, text: r.bytes.toString() } : r,
      );
      expect(got, `chunk ${size}`).toEqual(want);
    }
  });

  it('an empty array yields nothing (also one byte at a time); nested arrays are one record', async () => {
    expect(await collect(readJsonArrayRecords(chunked(Buffer.from(' [ ] '), 2)))).toEqual([]);
    expect(await collect(readJsonArrayRecords(chunked(Buffer.from('[]'), 1)))).toEqual([]);
    const got = await collect(readJsonArrayRecords(chunked(Buffer.from('[[1,2],[3]]'), 3)));
    expect(got.map((r) => ('bytes' in r ? r.bytes.toString() : r))).toEqual(['[1,2]', '[3]']);
  });

  it('ends with one syntaxError record at the failing record: a trailing comma, a missing comma, an unclosed array, content after it', async () => {
    const cases: Array<[string, number, RegExp]> = [
      ['[1,2,]', 2, /not valid JSON from line 1/],
      ['[1\n,\n2 3]', 1, /not valid JSON from line 2/],
      ['[{"a":1},\n{"b":2}', 1, /ends before its array closes \(line 2\)/],
      ['[1]\n[2]', 1, /not valid JSON/],
      ['[1] x', 1, /not valid JSON/],
    ];
    for (const [input, index, message] of cases) {
      const got = await collect(readJsonArrayRecords(chunked(Buffer.from(input), 2)));
      const last = got.at(-1)!;
      expect(
        got.filter((r) => 'syntaxError' in r),
        input,
      ).toHaveLength(1);
      expect(last, input).toMatchObject({ index, syntaxError: expect.stringMatching(message) });
    }
  });

  it('a document that is empty, a BOM or part of one is no array: a syntax error, not a hang or nothing', async () => {
    expect(await collect(readJsonArrayRecords(chunked(Buffer.alloc(0), 1)))).toEqual([
      { index: 0, line: 1, syntaxError: 'not valid JSON: the document ends before its array closes (line 1)' },
    ]);
    expect(await collect(readJsonArrayRecords(chunked(Buffer.from([0xef, 0xbb, 0xbf]), 1)))).toEqual([
      { index: 0, line: 1, syntaxError: 'not valid JSON: the document ends before its array closes (line 1)' },
    ]);
    for (const part of [[0xef], [0xef, 0xbb]]) {
      expect(await collect(readJsonArrayRecords(chunked(Buffer.from(part), 1)))).toEqual([{ index: 0, line: 1, syntaxError: 'not valid JSON from line 1' }]);
    }
  });

  it('a record over the limit stops the file with json_record_too_large naming it; a record at the limit passes', async () => {
    const at = `[${JSON.stringify({ x: 'y'.repeat(10) })}]`; // the record is 18 bytes
    expect((await collect(readJsonArrayRecords(chunked(Buffer.from(at), 5), { maxRecordBytes: 18 }))).length).toBe(1);
    // Whitespace around a record is not part of it.
    expect((await collect(readJsonArrayRecords(chunked(Buffer.from(`[\n\n      ${at.slice(1, -1)}   \n]`), 5), { maxRecordBytes: 18 }))).length).toBe(1);
    await expect(collect(readJsonArrayRecords(chunked(Buffer.from(`[1,\n\n${at.slice(1)}`), 5), { maxRecordBytes: 17, name: 'f.json' }))).rejects.toMatchObject(
      {
        code: 'json_record_too_large',
        message: expect.stringMatching(/^f\.json record 1 \(line 3\) is over the 17-byte limit/),
      },
    );
  });
});

describe('indexLine', () => {
  const at = { line: 7, offset: 100, length: 0 };
  const entry = (text: string) => indexLine({ ...at, length: Buffer.byteLength(text), text });

  it('keys a line by its own account number, trimmed-empty or absent numbers by the line', () => {
    expect(entry('{"external_account_number":"A-1","x":1}')).toEqual({ key: 'A-1', entry: { line: 7, offset: 100, length: 39 } });
    expect(entry('{"external_account_number":"  "}').key).toBe('#line-7');
    expect(entry('{"external_account_number":5}').key).toBe('#line-7');
    expect(entry('{"x":1}')).toEqual({ key: '#line-7', entry: { line: 7, offset: 100, length: 7 } });
  });

  it('names each problem by code and line, without quoting the line', () => {
    const problem = (text: string) => entry(text).entry.problem;
    expect(problem('{"a":1,}')).toEqual({ code: 'invalid_json', detail: 'line 7 is not JSON (at character 7)' });
    expect(problem('nope')).toEqual({ code: 'invalid_json', detail: 'line 7 is not JSON' });
    expect(problem('{"a":1,"b":2,}')).toEqual({ code: 'invalid_json', detail: 'line 7 is not JSON (at character 13)' });
    expect(problem('[1]')).toEqual({ code: 'payload_not_an_object', detail: 'line 7 is JSON but not an object (one EnergyAccount a line)' });
    expect(problem('null')?.code).toBe('payload_not_an_object');
    expect(problem('"s"')?.code).toBe('payload_not_an_object');
    expect(problem('{"external_account_number":"A","external_account_number":"B"}')).toEqual({
      code: 'duplicate_json_key',
      attr: 'external_account_number',
      detail: 'line 7 at external_account_number: the key "external_account_number" is given twice in one object',
    });
    expect(problem('{"\\u0007":1}')).toMatchObject({
      code: 'control_character',
      attr: '',
      detail: expect.stringMatching(/^line 7: a control character \(U\+0007\) in a key/),
    });
    expect(problem('{"external_account_number":"A-\\udc00"}')).toMatchObject({ code: 'invalid_utf8', attr: 'external_account_number' });
    expect(entry('{"external_account_number":"A-\\ud83d\\ude00"}').key).toBe('A-\u{1F600}');
    expect(indexLine({ ...at, length: 99, tooLarge: true }, 50).entry.problem).toEqual({
      code: 'payload_too_large',
      detail: 'line 7 is 99 bytes, over the 50-byte limit of one payload',
    });
    expect(indexLine({ ...at, length: 3, invalidUtf8: true }).entry.problem).toEqual({ code: 'invalid_utf8', detail: 'line 7 is not valid UTF-8' });
    // A problem line is never keyed by its number.
    expect(entry('{"external_account_number":"A","external_account_number":"B"}').key).toBe('#line-7');
  });
});

describe('classifyUnknownKeys', () => {
  const undocumented = (attr: string) => validationError('undocumented_field', attr, `"${attr}" is not in the contract`);
  const declared = new Set(['customers.details', 'psr']);

  it('names a key the contract declares (generic path, indices dropped) documented_field_not_modelled; others stay undocumented_field', () => {
    const out = classifyUnknownKeys(
      [undocumented('customers.0.details'), undocumented('customers.0.detials'), validationError('blank', 'psr', 'x')],
      '',
      declared,
    );
    expect(out.map((e) => [e.code, e.attr])).toEqual([
      ['documented_field_not_modelled', 'customers.0.details'],
      ['undocumented_field', 'customers.0.detials'],
      ['blank', 'psr'],
    ]);
    expect(out[0].detail).toContain('"customers.details"');
  });

  it('reads attrs under a request prefix relative to the payload, and only under that prefix', () => {
    const out = classifyUnknownKeys([undocumented('payload.psr'), undocumented('psr'), undocumented('payloadx.psr')], 'payload', declared);
    expect(out.map((e) => e.code)).toEqual(['documented_field_not_modelled', 'documented_field_not_modelled', 'undocumented_field']);
  });

  it('returns the errors as they are when none is an undocumented field', () => {
    const errors = [validationError('blank', 'psr', 'x')];
    expect(classifyUnknownKeys(errors, '', declared)).toBe(errors);
  });
});
