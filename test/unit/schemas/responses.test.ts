import { describe, expect, it } from 'vitest';
import { productListSchema, standardUnitRateListSchema } from '../../../schemas/catalogue';
import { importStatusResponseSchema, isKnownImportStatus } from '../../../schemas/import-status';
import { spec } from './spec';

const statusExamples = () =>
  spec().paths['/v2/data-import/accounts/{import_supplier_code}/{external_identifier}/'].get.responses['200'].content['application/json'].examples;

describe('import status response', () => {
  it('parses the spec example of a processed import', () => {
    const parsed = importStatusResponseSchema.parse(statusExamples()['200OK-ImportProcessIsProcessed'].value);
    expect(parsed).toMatchObject({ status: 'PROCESSED', kraken_identifier: 'INTERNAL-KRAKEN-IDENTIFIER', latest_error: null });
  });

  it('parses the spec example of an errored import once its status placeholder is a real status', () => {
    const value = { ...statusExamples()['200OK-ErrorInProcessing'].value, status: 'ERRORED' };
    const parsed = importStatusResponseSchema.parse(value);
    expect(parsed.latest_error).toEqual({ code: 'some_error_code', detail: 'A detailed error message', domain: 'import_process' });
  });

  it.each(['PENDING', 'IN_PROGRESS', 'PROCESSED', 'ERRORED', 'CANCELLED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED'])('accepts status %s', (status) => {
    const value = { ...statusExamples()['200OK-NoErrorInProcessing'].value, status };
    expect(importStatusResponseSchema.safeParse(value).success).toBe(true);
  });

  it('reads any status string (the spec types it as a free string); only the listed ones are known', () => {
    const placeholder = importStatusResponseSchema.safeParse(statusExamples()['200OK-NoErrorInProcessing'].value);
    expect(placeholder.success).toBe(true);
    expect(isKnownImportStatus(placeholder.data!.status)).toBe(false);
    expect(importStatusResponseSchema.parse({ ...statusExamples()['200OK-ImportProcessIsProcessed'].value, status: 'DONE' }).status).toBe('DONE');
    expect(isKnownImportStatus('DONE')).toBe(false);
    expect(isKnownImportStatus('PROCESSED')).toBe(true);
  });
});

describe('catalogue', () => {
  const product = {
    code: 'AGILE-24-10-01',
    direction: 'IMPORT',
    full_name: 'Agile Octopus October 2024 v1',
    display_name: 'Agile Octopus',
    description: 'With Agile Octopus, you get access to half-hourly energy prices.',
    is_variable: true,
    is_green: true,
    is_tracker: false,
    is_prepay: false,
    is_business: false,
    is_restricted: false,
    term: 12,
    available_from: '2024-10-01T00:00:00Z',
    available_to: null,
    links: [{ href: 'https://api.example/v1/products/AGILE-24-10-01/', method: 'GET', rel: 'self' }],
    brand: 'OCTOPUS_ENERGY',
  };

  it('parses a product list page and keeps next for explicit paging', () => {
    const page = productListSchema.parse({ count: 101, next: 'https://api.example/v1/products/?page=2', previous: null, results: [product] });
    expect(page.next).toBe('https://api.example/v1/products/?page=2');
    expect(page.results[0].code).toBe('AGILE-24-10-01');
  });

  it('rejects a product missing its code', () => {
    const { code: _code, ...rest } = product;
    expect(productListSchema.safeParse({ count: 1, next: null, previous: null, results: [rest] }).success).toBe(false);
  });

  it('parses unit rates, negative values included', () => {
    const rates = standardUnitRateListSchema.parse({
      count: 2,
      next: null,
      previous: null,
      results: [
        { value_exc_vat: -1.2, value_inc_vat: -1.26, valid_from: '2025-01-15T12:30:00Z', valid_to: '2025-01-15T13:00:00Z', payment_method: null },
        { value_exc_vat: 20.1, value_inc_vat: 21.105, valid_from: '2025-01-15T12:00:00Z', valid_to: '2025-01-15T12:30:00Z', payment_method: null },
      ],
    });
    expect(rates.results.map((r) => r.value_inc_vat)).toEqual([-1.26, 21.105]);
  });
});
