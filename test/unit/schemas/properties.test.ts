import fc from 'fast-check';
import { parsePhoneNumberWithError } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { isCalendarDate, isUtcDateTime, isValidPhone } from '../../../schemas/formats';

const RUNS = { numRuns: 300 };

describe('dates (property)', () => {
  const day = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });

  it('every real calendar date formats to YYYY-MM-DD, is accepted, and parses back to the same day', () => {
    fc.assert(
      fc.property(day, (d) => {
        const text = d.toISOString().slice(0, 10);
        expect(isCalendarDate(text)).toBe(true);
        expect(new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10)).toBe(text);
      }),
      RUNS,
    );
  });

  it('a day past the end of its month is rejected', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), (year, month) => {
        // Day 0 of the next month is the last day of this one; setUTCFullYear keeps years < 100 literal.
        const end = new Date(0);
        end.setUTCFullYear(year, month, 0);
        const length = end.getUTCDate();
        const pad = (n: number, w: number) => String(n).padStart(w, '0');
        expect(isCalendarDate(`${pad(year, 4)}-${pad(month, 2)}-${pad(length, 2)}`)).toBe(true);
        expect(isCalendarDate(`${pad(year, 4)}-${pad(month, 2)}-${pad(length + 1, 2)}`)).toBe(false);
      }),
      RUNS,
    );
  });

  it('every UTC instant written as YYYY-MM-DDTHH:MM:SSZ is accepted; with an offset it is not', () => {
    fc.assert(
      fc.property(day, (d) => {
        const text = d.toISOString().replace(/\.\d{3}Z$/, 'Z');
        expect(isUtcDateTime(text)).toBe(true);
        expect(isUtcDateTime(text.replace(/Z$/, '+00:00'))).toBe(false);
      }),
      RUNS,
    );
  });
});

describe('phone numbers (property)', () => {
  // UK mobiles 071xx–073xx are all allocated ranges: national and international forms agree.
  const ukMobile = fc.tuple(fc.constantFrom('71', '72', '73'), fc.stringMatching(/^\d{8}$/)).map(([p, rest]) => `0${p}${rest}`);

  it('a valid national UK mobile is valid in GB and in its +44 form from any region', () => {
    fc.assert(
      fc.property(ukMobile, fc.constantFrom<'GB' | 'FR' | 'US' | 'DE'>('GB', 'FR', 'US', 'DE'), (national, region) => {
        expect(isValidPhone(national, 'GB')).toBe(true);
        expect(isValidPhone(`+44${national.slice(1)}`, region)).toBe(true);
        expect(parsePhoneNumberWithError(national, 'GB').number).toBe(`+44${national.slice(1)}`);
      }),
      RUNS,
    );
  });

  it('strings without enough digits are never valid', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }).filter((s) => (s.match(/\d/g) ?? []).length < 7),
        (s) => {
          expect(isValidPhone(s)).toBe(false);
        },
      ),
      RUNS,
    );
  });
});
