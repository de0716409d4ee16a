import { describe, expect, it } from 'vitest';
import { isMpanCore } from '../../../schemas/formats';
import { isValidMpanCore, mpanCheckDigit } from '../../../source/mpan';
import { normaliseDate, normaliseDateTime, normaliseDecimal, normalisePhone, normalisePostcode, clean } from '../../../source/normalise';
import { minimalPdf } from '../../../harness/synthetic/pdf';
import { Rng } from '../../../harness/synthetic/prng';

describe('normalisePhone', () => {
  it.each([
    ['07123 456789', '07123456789'],
    ['+44 7123 456789', '07123456789'],
    ['0044 7123 456789', '07123456789'],
    ['+44 (0)7123 456789', '07123456789'],
    ['(020) 7234 3456', '02072343456'],
    ['020-7234-3456 ', '02072343456'],
    ['  0161 496 0000', '01614960000'],
    ['+33 1 23 45 67 89', '+33123456789'],
  ])('%j → %j', (raw, want) => {
    expect(normalisePhone(raw)).toBe(want);
  });

  it('passes an invalid number on trimmed, for validation to reject', () => {
    expect(normalisePhone(' 07123 4567 ')).toBe('07123 4567');
  });

  it('omits blanks', () => {
    expect(normalisePhone(null)).toBeUndefined();
    expect(normalisePhone('   ')).toBeUndefined();
  });
});

describe('normaliseDate', () => {
  it.each([
    ['01/08/2019', '2019-08-01'],
    ['1/8/2019', '2019-08-01'],
    ['29/02/2020 ', '2020-02-29'],
    ['2019-08-01', '2019-08-01'],
    ['31.12.1999', '1999-12-31'],
  ])('%j → %j', (raw, want) => {
    expect(normaliseDate(raw)).toEqual({ ok: true, value: want });
  });

  it.each(['31/02/2020', '29/02/2019', '31/04/2021', '00/01/2020', '12/13/2020', 'n/a', '2020-02-30', '01/08/19'])(
    'refuses %j instead of rolling it over',
    (raw) => {
      expect(normaliseDate(raw)).toEqual({ ok: false, raw: raw.trim() });
    },
  );

  it('treats null and blank as absent', () => {
    expect(normaliseDate(null)).toEqual({ ok: true, value: undefined });
    expect(normaliseDate('  ')).toEqual({ ok: true, value: undefined });
  });
});

describe('normaliseDateTime (UK local → UTC)', () => {
  it('subtracts an hour in British Summer Time only', () => {
    expect(normaliseDateTime('10/10/2018 10:20')).toEqual({ ok: true, value: '2018-10-10T09:20:00Z' });
    expect(normaliseDateTime('10/12/2018 10:20')).toEqual({ ok: true, value: '2018-12-10T10:20:00Z' });
    // BST 2024: 31 March 01:00 UTC to 27 October 01:00 UTC
    expect(normaliseDateTime('31/03/2024 00:30')).toEqual({ ok: true, value: '2024-03-31T00:30:00Z' });
    expect(normaliseDateTime('31/03/2024 03:00')).toEqual({ ok: true, value: '2024-03-31T02:00:00Z' });
    expect(normaliseDateTime('27/10/2024 03:00')).toEqual({ ok: true, value: '2024-10-27T03:00:00Z' });
  });

  it('refuses impossible timestamps', () => {
    expect(normaliseDateTime('31/02/2020 10:00').ok).toBe(false);
    expect(normaliseDateTime('01/02/2020 24:00').ok).toBe(false);
  });
});

describe('normalisePostcode', () => {
  it.each([
    ['w1f9de', 'W1F 9DE'],
    [' sw1a  1aa ', 'SW1A 1AA'],
    ['Ec1A1bB', 'EC1A 1BB'],
    ['M1 1AE', 'M1 1AE'],
  ])('%j → %j', (raw, want) => {
    expect(normalisePostcode(raw)).toBe(want);
  });

  it('leaves a non-postcode for validation (upper-cased, trimmed) and omits blanks', () => {
    expect(normalisePostcode(' not known ')).toBe('NOT KNOWN');
    expect(normalisePostcode('')).toBeUndefined();
  });
});

describe('clean and normaliseDecimal', () => {
  it('trims, collapses inner whitespace and omits blanks', () => {
    expect(clean('  High   Street ')).toBe('High Street');
    expect(clean('')).toBeUndefined();
    expect(clean(null)).toBeUndefined();
  });

  it('reads legacy money', () => {
    expect(normaliseDecimal('£1,234.50')).toBe('1234.50');
    expect(normaliseDecimal('-£12.00')).toBe('-12.00');
    expect(normaliseDecimal('ten')).toBe('ten');
  });
});

describe('MPAN core check digit', () => {
  it('accepts the spec example and refuses a wrong check digit', () => {
    expect(isValidMpanCore('1200060176720')).toBe(true);
    expect(mpanCheckDigit('120006017672')).toBe(0);
    expect(isValidMpanCore('1200060176721')).toBe(false);
    expect(isValidMpanCore('120006017672')).toBe(false);
  });

  it('catches every single-digit typo in the body of 200 random cores, and agrees with the validator', () => {
    const rng = new Rng(7);
    let caught = 0;
    let typos = 0;
    for (let n = 0; n < 200; n++) {
      const body = `${rng.int(10, 23)}${rng.digits(10)}`;
      const core = `${body}${mpanCheckDigit(body)}`;
      expect(isValidMpanCore(core)).toBe(true);
      expect(isMpanCore(core)).toBe(true);
      const pos = rng.int(0, 11);
      const digit = (Number(core[pos]) + rng.int(1, 9)) % 10;
      const typo = `${core.slice(0, pos)}${digit}${core.slice(pos + 1)}`;
      typos++;
      if (!isValidMpanCore(typo)) caught++;
      expect(isValidMpanCore(typo)).toBe(isMpanCore(typo));
    }
    // (sum mod 11) mod 10 lets 1 in 11 single-digit typos through; most are caught.
    expect(caught / typos).toBeGreaterThan(0.8);
  });
});

describe('minimalPdf', () => {
  it('writes a PDF whose xref offsets point at its objects', () => {
    const pdf = minimalPdf(['Statement 1', 'Account (A-1)']);
    const text = pdf.toString('latin1');
    expect(text.startsWith('%PDF-1.4\n')).toBe(true);
    expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
    const startxref = Number(/startxref\n(\d+)\n/.exec(text)?.[1]);
    expect(text.slice(startxref, startxref + 4)).toBe('xref');
    const entries = [...text.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    expect(entries).toHaveLength(5);
    entries.forEach((offset, i) => expect(text.slice(offset, offset + `${i + 1} 0 obj`.length)).toBe(`${i + 1} 0 obj`));
    const length = Number(/\/Length (\d+)/.exec(text)?.[1]);
    const streamStart = text.indexOf('stream\n') + 'stream\n'.length;
    expect(text.slice(streamStart + length, streamStart + length + '\nendstream'.length)).toBe('\nendstream');
    expect(pdf.length).toBeLessThan(1000);
    expect(minimalPdf(['Statement 1', 'Account (A-1)']).equals(pdf)).toBe(true);
  });
});
