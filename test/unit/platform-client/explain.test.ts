import { afterEach, describe, expect, it } from 'vitest';
import { createPlatformClient, explainFailedValidation, firstFieldAttr } from '../../../clients/platform';
import type { EnergyAccount } from '../../../schemas/account';
import { configFor, json, startFakePlatform, type FakePlatform } from './fake-platform';

let platform: FakePlatform | undefined;
afterEach(async () => {
  await platform?.close();
  platform = undefined;
});

const payload = { import_supplier: 'S', external_account_number: 'E-1' } as unknown as EnergyAccount;

describe('explainFailedValidation (import_process_failed_validation says "validate to get full details")', () => {
  it("asks the validate endpoint and returns the process code plus every field path, from the spec's own 400 examples", async () => {
    platform = await startFakePlatform((req, res) => {
      if (req.url === '/v2/data-import/accounts/') {
        return json(res, 400, {
          code: 'import_process_failed_validation',
          detail: 'Import process validation failed during account creation.',
          domain: 'import_process',
        });
      }
      // The spec's validate 400 example: a DRF field map.
      return json(res, 400, { customers: { '0': { landline: ['abcde is not a valid phone number'] } } });
    });
    const client = createPlatformClient(configFor(platform.origin));
    const scheduled = await client.scheduleAccountCreation({ payload, task_params: {} });
    expect(scheduled.kind).toBe('import_process_failed_validation');
    const errors = await explainFailedValidation(client, payload, 'Import process validation failed during account creation.');
    expect(errors.map((e) => `${e.code} ${e.attr}`)).toEqual(['import_process_failed_validation non_field_errors', 'invalid customers.0.landline']);
    expect(firstFieldAttr(errors)).toBe('customers.0.landline');
    // The validate call carried the same payload and created nothing (only validate was asked).
    expect(platform.seen.map((r) => r.url)).toEqual(['/v2/data-import/accounts/', '/v2/data-import/accounts/validate/']);
    expect(platform.seen[1].body).toEqual({ payload });
  });

  it('when validate finds nothing, the process code alone is recorded', async () => {
    platform = await startFakePlatform((_req, res) => json(res, 200));
    const client = createPlatformClient(configFor(platform.origin));
    const errors = await explainFailedValidation(client, payload);
    expect(errors).toEqual([{ code: 'import_process_failed_validation', attr: 'non_field_errors', detail: '' }]);
    expect(firstFieldAttr(errors)).toBeUndefined();
  });
});
