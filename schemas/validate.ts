import type { z } from 'zod';
import { type EnergyAccount, type ScheduleAccountCreation, accountSchemasFor } from './account';
import { collectDocumentPaths, resolveDocumentPath } from './document-path';
import { LOCAL_CODES, type ValidationError, issuesToValidationErrors, sortErrors, validationError } from './errors';
import { type CountryCode, DEFAULT_PHONE_REGION, todayUtc } from './formats';
import { genericPath, unmodelledPathSet } from './contract-coverage';
import { nestingError } from './nesting';
import { accountRuleErrors, taskParamsRuleErrors } from './rules';

export interface ValidateOptions {
  /** Region phone numbers without a `+` prefix are read in; default 'GB'. */
  defaultRegion?: CountryCode;
  /** `YYYY-MM-DD` used for "in the future" and "on supply" rules; default: today (UTC) of `now`. */
  today?: string;
  /** The current instant, for the schedule window rules; default: the clock. */
  now?: Date;
  /** Check document paths locally (`invalid_document_path`); default true. */
  checkDocumentPaths?: boolean;
  /** The run's import supplier: a payload naming another fails `import_supplier_mismatch`. */
  importSupplier?: string;
  /** The run's migration type (`send_registration_flows`): false refuses agents to appoint; absent: not checked. */
  sendRegistrationFlows?: boolean;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: ValidationError[] };

/**
 * Parsed by zod; a failing payload again with `reportInput`, so issues can tell a missing field
 * (`required`) from a null one (`null`).
 */
function parseWithInputs<T extends z.ZodType>(schema: T, value: unknown): { data?: z.output<T>; errors: ValidationError[] } {
  const fast = schema.safeParse(value);
  if (fast.success) return { data: fast.data, errors: [] };
  const slow = schema.safeParse(value, { reportInput: true });
  return { errors: slow.success ? [] : issuesToValidationErrors(slow.error.issues) };
}

/**
 * A key the schema refuses that the contract does declare (schemas/COVERAGE.md, "Left out") is not
 * undocumented: it is named `documented_field_not_modelled`, so a team knows its payload is right and
 * this client cannot pass the field on yet (it is refused rather than dropped).
 */
export function classifyUnknownKeys(errors: ValidationError[], prefix: string, declared?: ReadonlySet<string>): ValidationError[] {
  if (!errors.some((e) => e.code === LOCAL_CODES.undocumentedField)) return errors;
  const documented = declared ?? unmodelledPathSet();
  return errors.map((e) => {
    if (e.code !== LOCAL_CODES.undocumentedField) return e;
    // No attr starts with '.': with no prefix nothing is cut.
    const path = genericPath(e.attr.startsWith(`${prefix}.`) ? e.attr.slice(prefix.length + 1) : e.attr);
    if (!documented.has(path)) return e;
    return validationError(
      LOCAL_CODES.documentedFieldNotModelled,
      e.attr,
      `The contract declares "${path}", but this client does not model it yet (schemas/COVERAGE.md): refused, not dropped.`,
    );
  });
}

function prefixed(errors: ValidationError[], prefix: string): ValidationError[] {
  return prefix === '' ? errors : errors.map((e) => ({ ...e, attr: e.attr === '' ? prefix : `${prefix}.${e.attr}` }));
}

function documentPathErrors(payload: unknown): ValidationError[] {
  if (typeof payload !== 'object' || payload === null) return [];
  const errors: ValidationError[] = [];
  for (const ref of collectDocumentPaths(payload as EnergyAccount)) {
    const resolved = resolveDocumentPath('', ref.path);
    if (!resolved.ok) errors.push(validationError(resolved.code, ref.attr, resolved.detail));
  }
  return errors;
}

/** Cross-field and local checks of one account payload; attrs relative to the payload. */
function accountLevelErrors(payload: unknown, opts: ValidateOptions): ValidationError[] {
  const today = opts.today ?? todayUtc(opts.now);
  const errors = accountRuleErrors(payload, { today, sendRegistrationFlows: opts.sendRegistrationFlows });
  if (opts.checkDocumentPaths !== false) errors.push(...documentPathErrors(payload));
  const supplier = typeof payload === 'object' && payload !== null ? (payload as { import_supplier?: unknown }).import_supplier : undefined;
  if (opts.importSupplier !== undefined && typeof supplier === 'string' && supplier !== opts.importSupplier) {
    errors.push(
      validationError(
        LOCAL_CODES.importSupplierMismatch,
        'import_supplier',
        `The payload names import supplier "${supplier}", the run imports for "${opts.importSupplier}".`,
      ),
    );
  }
  return errors;
}

/** Validates a bare EnergyAccount payload. Every error is returned, sorted by attr. */
export function validateAccount(payload: unknown, opts: ValidateOptions = {}): ValidationResult<EnergyAccount> {
  const deep = nestingError(payload);
  if (deep) return { ok: false, errors: [deep] };
  const { energyAccountSchema } = accountSchemasFor(opts.defaultRegion ?? DEFAULT_PHONE_REGION);
  const { data, errors } = parseWithInputs(energyAccountSchema, payload);
  errors.push(...accountLevelErrors(payload, opts));
  if (data !== undefined && errors.length === 0) return { ok: true, value: data };
  return { ok: false, errors: sortErrors(classifyUnknownKeys(errors, '')) };
}

/** Validates a full `{payload, task_params}` schedule request; payload attrs are prefixed `payload.`. */
export function validateScheduleRequest(body: unknown, opts: ValidateOptions = {}): ValidationResult<ScheduleAccountCreation> {
  const deep = nestingError(body);
  if (deep) return { ok: false, errors: [deep] };
  const { scheduleAccountCreationSchema } = accountSchemasFor(opts.defaultRegion ?? DEFAULT_PHONE_REGION);
  const { data, errors } = parseWithInputs(scheduleAccountCreationSchema, body);
  if (typeof body === 'object' && body !== null) {
    const { payload, task_params } = body as { payload?: unknown; task_params?: unknown };
    errors.push(...prefixed(accountLevelErrors(payload, opts), 'payload'));
    errors.push(...taskParamsRuleErrors(task_params, { now: opts.now ?? new Date() }));
  }
  if (data !== undefined && errors.length === 0) return { ok: true, value: data };
  return { ok: false, errors: sortErrors(classifyUnknownKeys(errors, 'payload')) };
}
