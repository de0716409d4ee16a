import { describe, expect, it } from 'vitest';
import { parsePlatformErrorBody, validationErrorSchema } from '../../../schemas/errors';

describe('parsePlatformErrorBody', () => {
  it('validation: account_failed_validation with its errors', () => {
    const body = {
      detail: 'Account failed validation.',
      code: 'account_failed_validation',
      errors: [
        { detail: 'abcde is not a valid phone number', code: 'invalid_phone_number', attr: 'customers.0.landline' },
        { detail: 'Tariff not found', code: 'tariff_code_not_found', attr: 'supply_addresses.0.meter_points.0.agreements.0.tariff_code' },
      ],
    };
    const parsed = parsePlatformErrorBody(400, body);
    expect(parsed.kind).toBe('validation');
    if (parsed.kind === 'validation') {
      expect(parsed.errors.map((e) => `${e.attr} ${e.code}`)).toEqual([
        'customers.0.landline invalid_phone_number',
        'supply_addresses.0.meter_points.0.agreements.0.tariff_code tariff_code_not_found',
      ]);
      expect(parsed.errors.every((e) => validationErrorSchema.safeParse(e).success)).toBe(true);
    }
  });

  it('import_process_failed_validation (the spec example)', () => {
    const body = {
      code: 'import_process_failed_validation',
      detail: 'Import process validation failed during account creation.',
      domain: 'import_process',
    };
    expect(parsePlatformErrorBody(400, body)).toEqual({
      kind: 'import_process_failed_validation',
      detail: 'Import process validation failed during account creation.',
      domain: 'import_process',
    });
  });

  it('already_imported (the spec example), keeping the existing account number', () => {
    const body = {
      non_field_errors: {
        detail: 'The account import process with the account number 1234567890 has already been imported.',
        code: 'account_import_process_already_imported',
      },
      account_id: 'A-12345678',
    };
    expect(parsePlatformErrorBody(400, body)).toEqual({
      kind: 'already_imported',
      accountId: 'A-12345678',
      detail: 'The account import process with the account number 1234567890 has already been imported.',
    });
  });

  it('already_imported from the v1 validate-account shape', () => {
    const body = { external_account_number: 'EXTERNAL-1234', kraken_account_number: 'A-E8981832', non_field_errors: ['already imported'] };
    expect(parsePlatformErrorBody(400, body)).toMatchObject({ kind: 'already_imported', accountId: 'A-E8981832' });
  });

  it('supplier_not_ongoing as the top-level code', () => {
    expect(parsePlatformErrorBody(400, { code: 'import_supplier_migration_not_ongoing', detail: 'Supplier is paused.' })).toEqual({
      kind: 'supplier_not_ongoing',
      detail: 'Supplier is paused.',
    });
  });

  it('supplier_not_ongoing inside errors[] wins over the generic validation kind', () => {
    const body = {
      code: 'account_failed_validation',
      detail: 'Account failed validation.',
      errors: [
        { code: 'blank', attr: 'billing_address1', detail: 'blank' },
        { code: 'import_supplier_migration_not_ongoing', attr: 'import_supplier', detail: 'Migration is complete.' },
      ],
    };
    expect(parsePlatformErrorBody(400, body)).toEqual({ kind: 'supplier_not_ongoing', detail: 'Migration is complete.' });
  });

  // Every 400 body shape the spec shows becomes {code, attr, detail} items with dot paths.
  it('the v2 validate example: a nested DRF field map with index keys', () => {
    const body = { customers: { '0': { landline: ['abcde is not a valid phone number'] } } };
    expect(parsePlatformErrorBody(400, body)).toEqual({
      kind: 'validation',
      errors: [{ code: 'invalid', attr: 'customers.0.landline', detail: 'abcde is not a valid phone number' }],
    });
  });

  it('the v1 example: {"billing_address": {"postcode": ["…"]}}', () => {
    const body = { billing_address: { postcode: ['postcode field is required.'] } };
    expect(parsePlatformErrorBody(400, body)).toMatchObject({ kind: 'validation', errors: [{ attr: 'billing_address.postcode', code: 'invalid' }] });
  });

  it('a flat {"field": ["msg"]} map, a list serializer with empty items and coded items', () => {
    const body = {
      email: ['Enter a valid email address.'],
      customers: [{}, { mobile: [{ code: 'invalid_phone_number', detail: 'bad' }] }],
      non_field_errors: ['Both billing address forms given.'],
    };
    const parsed = parsePlatformErrorBody(400, body);
    expect(parsed.kind).toBe('validation');
    if (parsed.kind === 'validation') {
      expect(parsed.errors.map((e) => `${e.attr} ${e.code}`)).toEqual(['email invalid', 'customers.1.mobile invalid_phone_number', 'non_field_errors invalid']);
    }
  });

  it('a standardized body with another whole-failure code keeps its items; items without attr point at the payload', () => {
    const body = { code: 'some_failure', detail: 'x', errors: [{ code: 'blank', detail: 'blank' }] };
    expect(parsePlatformErrorBody(400, body)).toEqual({
      kind: 'validation',
      detail: 'x',
      errors: [{ code: 'blank', attr: 'non_field_errors', detail: 'blank' }],
    });
  });

  it('an ErrorResponse {code, detail} is one error with that code', () => {
    expect(parsePlatformErrorBody(400, { code: 'invalid_import_supplier', detail: 'No such supplier.' })).toEqual({
      kind: 'validation',
      detail: 'No such supplier.',
      errors: [{ code: 'invalid_import_supplier', attr: 'non_field_errors', detail: 'No such supplier.' }],
    });
  });

  it.each([
    [400, {}],
    [400, 'Bad Request'],
    [400, null],
    [500, { code: 'account_failed_validation', errors: [] }],
    [404, { detail: 'The requested resource was not found.', code: 'not_found' }],
  ])('unknown for status %i body %j', (status, body) => {
    expect(parsePlatformErrorBody(status, body)).toEqual({ kind: 'unknown', status, body });
  });
});
