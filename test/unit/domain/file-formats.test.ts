import { describe, expect, it } from 'vitest';
import { fileFormat, LEGACY_FILE_PATTERN, PAYLOAD_FILE_PATTERN, sourceSpecSchema, SOURCE_FILE_PATTERN } from '../../../domain/source-spec';

/** The file formats, known in domain/source-spec.ts alone: what each option takes and how each file is read. */
describe('file formats', () => {
  it('a legacy export is .jsonl or .csv; payloads are .jsonl or .jsonl.gz; any case', () => {
    const legacy = ['a.jsonl', 'A.CSV', 'x/y.Jsonl'];
    const payloads = ['a.jsonl', 'a.jsonl.gz', 'A.JSONL.GZ'];
    for (const f of legacy) expect(LEGACY_FILE_PATTERN.test(f), f).toBe(true);
    for (const f of ['a.jsonl.gz', 'a.ndjson', 'a.json', 'a.csv.gz', 'a.txt', 'jsonl']) expect(LEGACY_FILE_PATTERN.test(f), f).toBe(false);
    for (const f of payloads) expect(PAYLOAD_FILE_PATTERN.test(f), f).toBe(true);
    for (const f of ['a.csv', 'a.ndjson', 'a.ndjson.gz', 'a.json', 'a.gz', 'a.jsonl.gz.bak']) expect(PAYLOAD_FILE_PATTERN.test(f), f).toBe(false);
  });

  it("refuses another extension in a run's source with the rule", () => {
    const legacy = sourceSpecSchema.safeParse({ kind: 'file', path: 'a.json' });
    expect(legacy.success ? '' : legacy.error.issues[0].message).toBe('a .jsonl or .csv file');
    const payloads = sourceSpecSchema.safeParse({ kind: 'payloads', path: 'a.csv' });
    expect(payloads.success ? '' : payloads.error.issues[0].message).toBe('a .jsonl or .jsonl.gz file');
  });

  it('reads each extension its own way', () => {
    expect(fileFormat('a.jsonl')).toMatchObject({ read: 'lines', gzip: false });
    expect(fileFormat('a.ndjson.GZ')).toMatchObject({ read: 'lines', gzip: true });
    expect(fileFormat('a.jsonl.gz')).toMatchObject({ read: 'lines', gzip: true });
    expect(fileFormat('a.csv')).toMatchObject({ read: 'csv', gzip: false });
    expect(fileFormat('a.json')).toMatchObject({ read: 'json' });
    expect(fileFormat('a.txt')).toBeUndefined();
  });

  it("names a source file's change feed beside it", () => {
    for (const f of ['d/accounts.jsonl', 'd/accounts.csv', 'd/accounts.jsonl.gz'])
      expect(f.replace(SOURCE_FILE_PATTERN, '.changes.jsonl')).toBe('d/accounts.changes.jsonl');
  });
});
