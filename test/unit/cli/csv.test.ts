import { describe, expect, it } from 'vitest';
import { csvCell, neutraliseFormula, toCsv } from '../../../cli/report/csv';
import { CSV_HEADER } from '../../../cli/report/data';
import { parseCsv } from '../../support/csv';

describe('CSV cells', () => {
  it.each(['=SUM(A1:A9)', '+44 7700 900123', '-1+2', '@cmd', '\tleading tab', '\rleading cr'])('prefixes %j with a quote so spreadsheets keep it text', (v) => {
    expect(neutraliseFormula(v)).toBe(`'${v}`);
  });

  it('leaves ordinary text alone, including formula characters that are not first', () => {
    for (const v of ['LGC-000123', 'a=b', 'mobile', '', 'invalid_phone_number']) expect(neutraliseFormula(v)).toBe(v);
  });

  it('quotes cells with commas, quotes or line breaks and doubles inner quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(42)).toBe('42');
  });

  it('neutralises before quoting: a hostile cell with a comma stays one text cell', () => {
    expect(csvCell('=HYPERLINK("http://x.example","click"),1')).toBe(`"'=HYPERLINK(""http://x.example"",""click""),1"`);
  });

  it('writes a document that reads back cell for cell', () => {
    const rows = [
      ['LGC-1', 'failed', 'validate', 'invalid_phone_number', 'customers.0.mobile', 'Enter a valid phone number, e.g. "07…"', 'customer.phone'],
      ['LGC-2', 'not_attempted', 'guard', 'run_cancelled', '', 'multi\r\nline, detail', ''],
    ];
    const text = toCsv(CSV_HEADER, rows);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(parseCsv(text)).toEqual([[...CSV_HEADER], ...rows]);
  });
});
