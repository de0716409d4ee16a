import { describe, expect, it } from 'vitest';
import { loadContract, requestExample } from '../../../contract';
import { createSpecValidator } from '../../sandbox/openapi/validator';
import { undeclaredProperties } from '../../sandbox/openapi/strict';
import { collectMarkedValues, convertComponents } from '../../sandbox/openapi/to-json-schema';
import { catalogueTariffCodes, defaultCatalogue, isKnownTariffCode } from '../../sandbox/catalogue';
import { resolveWindow } from '../../sandbox/imports/task-params';
import { parseIsoDateTime } from '../../sandbox/time';
import { createPrng } from '../../sandbox/prng';

// Pure: no services. The real spec is loaded once for the file.
const doc = loadContract();
const validator = createSpecValidator(doc);
const example = () => requestExample('/v2/data-import/accounts/', 'post', 'ExamplePayload') as any;

describe('OpenAPI → JSON Schema', () => {
  it('keeps PyYAML strings such as 07123456789 and 0393 as strings', () => {
    const ex = example();
    expect(ex.customers[0].mobile).toBe('07123456789');
    expect(ex.supply_addresses[0].meter_points[0].ssc).toBe('0393');
  });

  it('turns nullable into a null type and reports null on non-nullable fields with code null', () => {
    const defs = convertComponents({
      S: { type: 'object', properties: { a: { type: 'string', nullable: true }, b: { type: 'string' }, c: { enum: ['X'], type: 'string', nullable: true } } },
    });
    expect(defs.S.properties).toMatchObject({ a: { type: ['string', 'null'] }, c: { enum: ['X', null] } });
    const ex = example();
    ex.unknown_occupier = null; // nullable boolean
    ex.billing_name = null; // not nullable
    expect(validator.validate('ValidateAccount', { payload: ex })).toEqual([
      { attr: 'payload.billing_name', code: 'null', detail: 'This field may not be null.' },
    ]);
  });

  it('validates a discriminated meter point against its own branch only', () => {
    const ex = example();
    ex.supply_addresses[0].meter_points[1].supply_type = 'WATER';
    delete ex.supply_addresses[0].meter_points[0].mpid;
    const errors = validator.validate('ValidateAccount', { payload: ex });
    expect(errors.map((e) => `${e.attr}:${e.code}`).sort()).toEqual([
      'payload.supply_addresses.0.meter_points.0.mpid:required',
      'payload.supply_addresses.0.meter_points.1.supply_type:invalid_choice',
    ]);
  });

  it('checks real calendar dates, phone numbers and postcodes', () => {
    const ex = example();
    ex.customers[0].date_of_birth = '2023-02-29';
    ex.customers[0].landline = 'abcde';
    ex.supply_addresses[0].supply_postcode = '12345';
    ex.last_billed_to_date = '2024-02-29'; // a leap day: valid
    const got = validator.validate('ValidateAccount', { payload: ex }).map((e) => `${e.attr}:${e.code}`);
    expect(got.sort()).toEqual([
      'payload.customers.0.date_of_birth:invalid',
      'payload.customers.0.landline:invalid_phone_number',
      'payload.supply_addresses.0.supply_postcode:invalid_postcode',
    ]);
  });

  it('finds every document path and tariff code through the x-validators markers', () => {
    const defs = validator.definitions;
    expect(collectMarkedValues(defs, 'EnergyAccount', example(), 'path_does_not_exist_in_file_store').map((v) => v.attr)).toEqual([
      'notes.0.document_paths.0.document_path',
      'statements.0.statement_path',
      'statements.1.statement_path',
    ]);
    expect(collectMarkedValues(defs, 'EnergyAccount', example(), 'tariff_code_not_found').map((v) => v.value)).toEqual(['ELEC-1234-J', 'GAS-1234-J']);
  });
});

describe('task params window', () => {
  const now = Date.parse('2025-01-10T12:00:00Z');
  it('defaults both bounds and enforces the spec rules', () => {
    expect(resolveWindow({}, now, 0)).toEqual({ ok: true, isDryRun: false, startMs: now, endMs: now + 24 * 3600_000 });
    const far = resolveWindow({ schedule_window_end: '2025-01-14T12:00:01Z' }, now, 0);
    expect(far.ok ? [] : far.errors.map((e) => e.code)).toEqual(['schedule_window_end_too_far_in_future']);
    expect(resolveWindow({ schedule_window_end: '2025-01-14T12:00:00Z' }, now, 0).ok).toBe(true);
  });
  it('reads a zone-less datetime as Europe/London', () => {
    expect(parseIsoDateTime('2025-07-01T12:00:00')).toBe(Date.parse('2025-07-01T11:00:00Z'));
    expect(parseIsoDateTime('2025-01-01T12:00:00')).toBe(Date.parse('2025-01-01T12:00:00Z'));
  });
});

describe('catalogue and PRNG', () => {
  it("has ~150 products and stable, real-pattern tariff codes; knows the spec's example codes", () => {
    expect(defaultCatalogue()).toHaveLength(151);
    expect(isKnownTariffCode('ELEC-1234-J')).toBe(true);
    expect(isKnownTariffCode('GAS-1234-J')).toBe(true);
    const codes = catalogueTariffCodes();
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.every((c) => /^[EG]-1R-[A-Z0-9-]+-[A-P]$/.test(c))).toBe(true);
    expect(isKnownTariffCode('E-1R-VAR-22-11-01-C')).toBe(true);
    expect(isKnownTariffCode('G-1R-AGILE-22-11-01-C')).toBe(false); // Agile is electricity only
  });
  it('draws the same sequence from the same seed', () => {
    const a = createPrng(42);
    const b = createPrng(42);
    expect(Array.from({ length: 5 }, () => a.next())).toEqual(Array.from({ length: 5 }, () => b.next()));
  });
});

describe('Business, discriminated by a tag neither option declares (assumption 26)', () => {
  it('an absent tag reads as BaseBusiness; true selects the fields for existing contracts; strict mode counts the tag as declared', () => {
    const errs = (b: unknown) => validator.validate('Business', b).map((e) => `${e.code} ${e.attr}`);
    expect(errs({ company_name: 'Acme' })).toEqual([]);
    expect(errs({ enforce_business_contracts_exist: '', company_name: 'Acme' })).toEqual([]);
    expect(errs({ enforce_business_contracts_exist: true, business_contract_identifiers: ['C-1'] })).toEqual([]);
    expect(errs({ enforce_business_contracts_exist: 'maybe' })).toEqual(['invalid_choice enforce_business_contracts_exist']);
    const schemas = (loadContract() as any).components.schemas;
    expect(undeclaredProperties(schemas, 'Business', { enforce_business_contracts_exist: true, business_contract_identifiers: ['C-1'] })).toEqual([]);
    expect(undeclaredProperties(schemas, 'Business', { company_name: 'Acme', business_contract_identifiers: ['C-1'] })).toEqual([
      'business_contract_identifiers',
    ]);
  });
});
