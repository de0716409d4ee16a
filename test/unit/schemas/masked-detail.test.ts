import { describe, expect, it } from 'vitest';
import { HIDDEN, isPersonalPath, maskedDetail, maskedValue } from '../../../schemas/bounded-output';

/** What the reports may quote of an error or a difference (the masking `validate` applies). */

describe('isPersonalPath', () => {
  it.each(['customers.0.date_of_birth', 'customers.0.given_name', 'customers.1.email', 'billing_address.line_1', 'customers[0].mobile', 'contacts.0.phone'])(
    '%s is personal',
    (p) => expect(isPersonalPath(p)).toBe(true),
  );
  it.each(['agreements.0.tariff_code', 'balance', 'meter_points.0.mpan', 'notes.0.document_paths.0.document_path', '', 'nameplate_rating'])('%s is not', (p) =>
    expect(isPersonalPath(p)).toBe(false),
  );
});

describe('maskedDetail', () => {
  it('hides every quoted value when the attr is personal', () => {
    expect(maskedDetail('"31/02/1980" is not a real date', 'customers.0.date_of_birth', [])).toBe(`"${HIDDEN}" is not a real date`);
    expect(maskedDetail('got "a \\"quoted\\" name" and "b"', 'customers.0.given_name', [])).toBe(`got "${HIDDEN}" and "${HIDDEN}"`);
  });

  it('keeps quotes under a non-personal attr, and hides the record’s own personal values anywhere', () => {
    expect(maskedDetail('tariff "E-1R" is not offered', 'agreements.0.tariff_code', [])).toBe('tariff "E-1R" is not offered');
    expect(maskedDetail('contact Ann Lee (ann@x.test) refused', 'meter_points.0.contact', ['ann@x.test', 'Ann Lee'])).toBe(
      `contact ${HIDDEN} (${HIDDEN}) refused`,
    );
  });

  it('caps what is left like validate does', () => {
    expect(maskedDetail('x'.repeat(1000), 'balance', []).length).toBeLessThan(400);
  });
});

describe('maskedValue', () => {
  it('hides a value under a personal path, keeps absence and non-personal values', () => {
    expect(maskedValue('customers.0.email', 'a@b.test')).toBe(HIDDEN);
    expect(maskedValue('customers.0.email', null)).toBeNull();
    expect(maskedValue('customers.0.email', undefined)).toBeUndefined();
    expect(maskedValue('agreements.0.tariff_code', 'E-1R')).toBe('E-1R');
  });
});
