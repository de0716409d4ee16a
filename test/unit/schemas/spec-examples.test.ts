import { describe, expect, it } from 'vitest';
import { energyAccountSchema, scheduleAccountCreationSchema } from '../../../schemas/account';
import { exampleScheduleRequest, realisticAccount } from '../../../schemas/fixtures';
import { loadContract } from '../../../contract';
import { unmodelledPaths } from '../../../schemas/contract-coverage';
import { validateAccount, validateScheduleRequest } from '../../../schemas/validate';
import { exampleOf } from './spec';

// The examples were written in 2019: judge "future"/"past" rules against that day.
const EXAMPLE_DAY = '2019-08-05';

describe("the spec's own examples", () => {
  it('parses the v2 schedule example wrapped into {payload, task_params}', () => {
    const payload = exampleOf('/v2/data-import/accounts/');
    const now = new Date('2019-08-05T10:00:00Z');
    const body = {
      payload,
      task_params: { is_dry_run: true, schedule_window_start: '2019-08-05T11:00:00Z', schedule_window_end: '2019-08-06T11:00:00Z' },
    };
    expect(scheduleAccountCreationSchema.safeParse(body).success).toBe(true);
    const result = validateScheduleRequest(body, { today: EXAMPLE_DAY, now });
    expect(result.ok ? [] : result.errors).toEqual([]);
  });

  it('validates the v2 validate endpoint example (its body is the bare account)', () => {
    const payload = exampleOf('/v2/data-import/accounts/validate/');
    const result = validateAccount(payload, { today: EXAMPLE_DAY });
    expect(result.ok ? [] : result.errors).toEqual([]);
    expect(result.ok && result.value.supply_addresses?.[0].meter_points.map((m) => m.supply_type)).toEqual(['ELECTRICITY', 'GAS']);
  });

  it("keeps the example's ledgers, readings and document paths", () => {
    const parsed = energyAccountSchema.parse(exampleOf('/v2/data-import/accounts/'));
    expect(parsed.ledgers?.[0].current_statement_transactions?.map((t) => t.type)).toEqual(['REPAYMENT', 'PAYMENT']);
    expect(parsed.notes?.[0].document_paths?.[0].document_path).toBe('/notes/1234/attachment.jpg');
    expect(parsed.customers?.[0].mobile).toBe('07123456789');
  });

  it('rejects the bare example as a schedule request (the schema needs payload and task_params)', () => {
    const result = validateScheduleRequest(exampleOf('/v2/data-import/accounts/'), { today: EXAMPLE_DAY });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toContainEqual(expect.objectContaining({ code: 'required', attr: 'payload' }));
      expect(result.errors).toContainEqual(expect.objectContaining({ code: 'required', attr: 'task_params' }));
    }
  });
});

describe('unknown fields', () => {
  it('are refused at every level with undocumented_field and their dot path, each one listed', () => {
    const input: any = realisticAccount();
    input.not_in_spec = 1;
    input.customers[0].familyname = 'Smith';
    input.customers[0].shoe_size = 42;
    input.supply_addresses[0].meter_points[0].meters[0].registers[0].colour = 'red';
    input.ledgers[0].current_statement_transactions[0].typo = true;
    const result = validateAccount(input);
    expect(result.ok).toBe(false);
    const undocumented = result.ok ? [] : result.errors.filter((e) => e.code === 'undocumented_field').map((e) => e.attr);
    expect(undocumented.sort()).toEqual([
      'customers.0.familyname',
      'customers.0.shoe_size',
      'ledgers.0.current_statement_transactions.0.typo',
      'not_in_spec',
      'supply_addresses.0.meter_points.0.meters.0.registers.0.colour',
    ]);
  });

  it('a payload without them is returned as it came, field for field', () => {
    const input = realisticAccount();
    const result = validateAccount(input);
    expect(result.ok && result.value).toEqual(input);
  });

  it('does not add spec defaults to omitted fields', () => {
    const account = realisticAccount();
    delete account.communication_preference; // spec default: ONLINE
    delete account.customers![0].customer_preferences!.opted_into_offers; // spec default: false
    const result = validateAccount(account);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect('communication_preference' in result.value).toBe(false);
      expect('opted_into_offers' in result.value.customers![0].customer_preferences!).toBe(false);
    }
  });
});

describe('fixtures', () => {
  it('realisticAccount is valid, with 2 meter points and 12 readings', () => {
    const account = realisticAccount();
    expect(validateAccount(account)).toMatchObject({ ok: true });
    const points = account.supply_addresses!.flatMap((s) => s.meter_points);
    expect(points.map((p) => p.supply_type)).toEqual(['ELECTRICITY', 'GAS']);
    const readings = points.flatMap((p) => p.meters ?? []).reduce((n, m) => n + (m.transfer_readings?.length ?? 0) + (m.reading_history?.length ?? 0), 0);
    expect(readings).toBe(12);
  });

  it('exampleScheduleRequest is valid now', () => {
    expect(validateScheduleRequest(exampleScheduleRequest())).toMatchObject({ ok: true });
  });
});

describe('fields the contract declares that the schema does not model', () => {
  it('there are none: every property of EnergyAccount and what it nests is modelled', () => {
    expect(unmodelledPaths()).toEqual([]);
  });

  it('a property a newer contract adds to an object written out by hand is listed (validate would name it documented_field_not_modelled); under the real contract such a key is undocumented', () => {
    const newer: any = structuredClone(loadContract());
    newer.components.schemas.Debt.properties.collection_stage = { type: 'string' };
    expect(unmodelledPaths(newer)).toEqual(['debt.collection_stage', 'debts.collection_stage']); // `debt` (deprecated) is a Debt too
    // With the real contract the key is not declared at all: undocumented, at its path.
    const input: any = realisticAccount({ debts: [{ agency_name: 'Acme Recoveries', collection_stage: 'late' } as any] });
    input.customers[0].familyname = 'Smith';
    const result = validateAccount(input);
    expect(result.ok ? [] : result.errors.map((e) => [e.code, e.attr])).toEqual([
      ['undocumented_field', 'customers.0.familyname'],
      ['undocumented_field', 'debts.0.collection_stage'],
    ]);
  });

  it('formerly left-out fields are accepted and kept (deprecated ones too)', () => {
    const input: any = realisticAccount();
    input.payment_adequacy_changes = [];
    input.supply_addresses[0].meter_points[0].agents = { dc_contract: { contract_reference: 'DC-1', is_amr: false } };
    input.dd_reference = 'DD-REF-1'; // deprecated: x-use-instead payment_instructions.reference
    const result = validateAccount(input);
    expect(result.ok ? [] : result.errors).toEqual([]);
    expect(result.ok && result.value).toStrictEqual(input);
  });
});
