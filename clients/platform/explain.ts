import type { EnergyAccount } from '../../schemas/account';
import { PLATFORM_CODES, type ValidationError } from '../../schemas/errors';

/**
 * `import_process_failed_validation` (a schedule answer, an `error` event or an ERRORED status) names
 * the process, not the field; the spec says to "validate the import process to get full details".
 * This asks the validate endpoint (nothing is created) and returns the errors to record: the process
 * code first (attr `non_field_errors`, as the platform reports a whole-payload failure), then every
 * field error with its dot path. When validate finds nothing (the platform's state changed since)
 * only the process code is returned.
 */
export async function explainFailedValidation(
  platform: { validateAccount(payload: EnergyAccount): Promise<{ ok: true } | { ok: false; errors: ValidationError[] }> },
  payload: EnergyAccount,
  processDetail = '',
): Promise<ValidationError[]> {
  const head: ValidationError = { code: PLATFORM_CODES.importProcessFailedValidation, attr: 'non_field_errors', detail: processDetail };
  const r = await platform.validateAccount(payload);
  if (r.ok) return [head];
  // The same code echoed back by validate is the head already.
  return [head, ...r.errors.filter((e) => e.code !== PLATFORM_CODES.importProcessFailedValidation)];
}

/** The attr an account's outcome shows: the first field the platform named. */
export function firstFieldAttr(errors: ValidationError[]): string | undefined {
  return errors.find((e) => e.attr !== 'non_field_errors')?.attr;
}
