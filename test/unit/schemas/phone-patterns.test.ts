import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidPhone } from '../../../schemas/formats';
import { isValidPhoneNumber } from 'libphonenumber-js/max';
import {
  compiledPhonePatterns,
  installPhonePatternCache,
  phoneParserFound,
  withLibraryPhonePatterns,
} from '../../../schemas/phone-patterns';

describe('phone pattern cache (libphonenumber-js compiled once per pattern)', () => {
  it('finds and replaces the library helper (a library upgrade that moves it fails here)', () => {
    expect(installPhonePatternCache()).toBe(true);
    expect(isValidPhone('07123456789', 'GB')).toBe(true);
    expect(compiledPhonePatterns()).toBeGreaterThan(0);
  });

  it("finds the library's parser, so numbers skip the public entry point's option copies", () => {
    expect(phoneParserFound()).toBe(true);
  });

  it('answers as isValidPhoneNumber for unusual text and regions the library does not know', () => {
    const texts = ['', ' ', '+', '++44', 'abc', '0712345678901234567890', '+44 7123 456789', '07123 456789 ext. 12', '(020) 7234 3456', '+999123456'];
    for (const region of ['GB', 'US', 'XK', 'ZZ', 'AC'] as const) {
      for (const text of texts) {
        let expected: boolean;
        try {
          expected = isValidPhoneNumber(text, region as never);
        } catch {
          expected = false;
        }
        expect([text, region, isValidPhone(text, region as never)]).toEqual([text, region, expected]);
      }
    }
  });

  it('answers exactly as the library does on its own, for numbers of any shape and region', () => {
    const regions = fc.constantFrom('GB', 'US', 'FR', 'DE', 'IE', 'JE') as fc.Arbitrary<'GB' | 'US' | 'FR' | 'DE' | 'IE' | 'JE'>;
    const prefix = fc.constantFrom('', '0', '07', '+44', '+447', '+1', '+33', '+353', '00', '+');
    const digits = fc.stringMatching(/^[0-9 ()-]{0,14}$/);
    const plausible = fc.stringMatching(/^(\+44|0)(7[1-9]\d{8}|20 ?\d{8}|1\d{9}|3\d{9}|8\d{9})$/);
    let valid = 0;
    fc.assert(
      fc.property(fc.oneof(fc.tuple(prefix, digits).map(([p, d]) => p + d), plausible), regions, (text, region) => {
        const cached = isValidPhone(text, region);
        if (cached) valid += 1;
        // The library's public entry point with its own helper: both shortcuts together change no answer.
        expect(cached).toBe(withLibraryPhonePatterns(() => isValidPhoneNumber(text, region)));
      }),
      { numRuns: 3000 },
    );
    // Both answers occur, so the comparison means something.
    expect(valid).toBeGreaterThan(100);
  });
});
