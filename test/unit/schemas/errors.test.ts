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

  it.each([
    [400, { foo: 'bar' }],
    [400, 'Bad Request'],
    [400, null],
    [500, { code: 'account_failed_validation', errors: [] }],
    [404, { detail: 'The requested resource was not found.', code: 'not_found' }],
  ])('unknown for status %i body %j', (status, body) => {
    expect(parsePlatformErrorBody(status, body)).toEqual({ kind: 'unknown', status, body });
  });
});
