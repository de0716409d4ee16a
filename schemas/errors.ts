import { z } from 'zod';

/**
 * The platform's validation error item: `attr` is a dot path with zero-based indexes
 * (`customers.0.mobile`), `code` is stable, `detail` is prose nobody may branch on.
 */
export const validationErrorSchema = z.object({
  code: z.string(),
  attr: z.string(),
  detail: z.string(),
});
export type ValidationError = z.infer<typeof validationErrorSchema>;

/** Codes this module produces for zod's own issue kinds (DRF's codes where the platform uses DRF's). */
export const ZOD_ISSUE_CODES = {
  required: 'required',
  null: 'null',
  notAList: 'not_a_list',
  invalid: 'invalid',
  invalidChoice: 'invalid_choice',
  maxLength: 'max_length',
  minLength: 'min_length',
  maxValue: 'max_value',
  minValue: 'min_value',
} as const;

/** Codes produced only on this side (the platform never sends them). */
export const LOCAL_CODES = {
  invalidJson: 'invalid_json',
  invalidDocumentPath: 'invalid_document_path',
  /** A source document whose real path (links followed) is outside the documents folder. */
  documentSourceOutsideFolder: 'document_source_outside_folder',
  /** A source document that is a folder, FIFO, socket or device rather than a regular file. */
  documentSourceNotRegularFile: 'document_source_not_regular_file',
  /** A key the contract does not declare on that object (a typo, or a field of another system). */
  undocumentedField: 'undocumented_field',
  /** A key the contract declares that the schema does not model yet (refused, never dropped). */
  documentedFieldNotModelled: 'documented_field_not_modelled',
  /** A payload whose `import_supplier` is not the run's. */
  importSupplierMismatch: 'import_supplier_mismatch',
} as const;

export function pathToAttr(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => String(p)).join('.');
}

export function validationError(code: string, path: ReadonlyArray<PropertyKey> | string, detail: string): ValidationError {
  return { code, attr: typeof path === 'string' ? path : pathToAttr(path), detail };
}

type Issue = z.core.$ZodIssue & { input?: unknown; params?: { code?: unknown } };

function codeFor(issue: Issue): string {
  switch (issue.code) {
    case 'custom':
      return typeof issue.params?.code === 'string' ? issue.params.code : ZOD_ISSUE_CODES.invalid;
    case 'invalid_type':
      if (issue.input === undefined) return ZOD_ISSUE_CODES.required;
      if (issue.input === null) return ZOD_ISSUE_CODES.null;
      return issue.expected === 'array' ? ZOD_ISSUE_CODES.notAList : ZOD_ISSUE_CODES.invalid;
    case 'invalid_value':
      return ZOD_ISSUE_CODES.invalidChoice;
    case 'invalid_union':
      // A discriminated union whose tag (supply_type, transaction type) is absent or unknown.
      if ('discriminator' in issue && issue.discriminator) {
        // zod reports the object; its tag decides: absent → required, anything else → not a choice.
        const input = issue.input as Record<string, unknown> | undefined;
        const tag = typeof input === 'object' && input !== null ? input[issue.discriminator] : undefined;
        return tag === undefined ? ZOD_ISSUE_CODES.required : ZOD_ISSUE_CODES.invalidChoice;
      }
      return ZOD_ISSUE_CODES.invalid;
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array' ? ZOD_ISSUE_CODES.maxLength : ZOD_ISSUE_CODES.maxValue;
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array' ? ZOD_ISSUE_CODES.minLength : ZOD_ISSUE_CODES.minValue;
    default:
      return ZOD_ISSUE_CODES.invalid;
  }
}

function detailFor(issue: Issue, code: string): string {
  if (code === ZOD_ISSUE_CODES.required) return 'This field is required.';
  if (code === ZOD_ISSUE_CODES.null) return 'This field may not be null.';
  return issue.message;
}

/** zod issues (parsed with `reportInput: true`, so missing and null can be told apart) → platform shape. */
export function issuesToValidationErrors(issues: ReadonlyArray<z.core.$ZodIssue>, prefix: ReadonlyArray<PropertyKey> = []): ValidationError[] {
  return issues.flatMap((raw) => {
    const issue = raw as Issue;
    // A strict object names every key it does not declare: one error each, at the key's own path.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) =>
        validationError(LOCAL_CODES.undocumentedField, [...prefix, ...issue.path, key], `"${key}" is not a field the contract declares here.`),
      );
    }
    const code = codeFor(issue);
    return { code, attr: pathToAttr([...prefix, ...issue.path]), detail: detailFor(issue, code) };
  });
}

/** Sorted by attr then code, duplicates (same code and attr) dropped. */
export function sortErrors(errors: ValidationError[]): ValidationError[] {
  const seen = new Set<string>();
  const out: ValidationError[] = [];
  for (const e of errors) {
    const key = `${e.attr}\u0000${e.code}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(e);
    }
  }
  return out.sort((a, b) => (a.attr < b.attr ? -1 : a.attr > b.attr ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------
// 400 bodies of the data-import endpoints

export const PLATFORM_CODES = {
  accountFailedValidation: 'account_failed_validation',
  importProcessFailedValidation: 'import_process_failed_validation',
  alreadyImported: 'account_import_process_already_imported',
  supplierNotOngoing: 'import_supplier_migration_not_ongoing',
} as const;

export type PlatformError =
  | { kind: 'validation'; errors: ValidationError[]; detail?: string }
  | { kind: 'import_process_failed_validation'; detail: string; domain: string }
  | { kind: 'already_imported'; accountId: string; detail: string }
  | { kind: 'supplier_not_ongoing'; detail: string }
  | { kind: 'unknown'; status: number; body: unknown };

const codedSchema = z.object({ code: z.string(), detail: z.unknown().optional() });
const codedItemsSchema = z.object({ errors: z.array(z.unknown()) });
const failedValidationSchema = z.object({
  code: z.literal(PLATFORM_CODES.importProcessFailedValidation),
  detail: z.string().optional(),
  domain: z.string().optional(),
});
/** v2: `{non_field_errors: {code, detail}, account_id}`. */
const alreadyImportedV2Schema = z.object({
  non_field_errors: z.object({ code: z.literal(PLATFORM_CODES.alreadyImported), detail: z.string().optional() }),
  account_id: z.string(),
});
/** v1 validate-account: `{external_account_number, kraken_account_number, non_field_errors: [prose]}`. */
const alreadyImportedV1Schema = z.object({
  kraken_account_number: z.string(),
  non_field_errors: z.array(z.string()).min(1),
});
/** StandardizedValidationErrorResponse (`account_failed_validation` is the one code the API reference names). */
const standardizedSchema = z.object({
  code: z.string(),
  detail: z.unknown().optional(),
  errors: z.array(z.unknown()),
});

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);
}

/** The supplier-paused/complete code may arrive as the body's code or as one of its errors. */
function findSupplierNotOngoing(body: unknown): { detail: string } | undefined {
  const top = codedSchema.safeParse(body);
  if (top.success && top.data.code === PLATFORM_CODES.supplierNotOngoing) return { detail: text(top.data.detail) };
  const items = codedItemsSchema.safeParse(body);
  if (items.success) {
    for (const item of items.data.errors) {
      const coded = codedSchema.safeParse(item);
      if (coded.success && coded.data.code === PLATFORM_CODES.supplierNotOngoing) return { detail: text(coded.data.detail) };
    }
  }
  return undefined;
}

/** A lenient item: the platform's codes are kept even if an item misses a field. */
function toValidationError(item: unknown): ValidationError {
  const parsed = validationErrorSchema.safeParse(item);
  if (parsed.success) return parsed.data;
  const o = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
  return { code: text(o.code) || DRF_DEFAULT_CODE, attr: text(o.attr), detail: text(o.detail) };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** DRF's `ValidationError.default_code`: what a bare message means when the body gives no code. */
export const DRF_DEFAULT_CODE = 'invalid';

/**
 * A DRF error map (`{"customers": {"0": {"landline": ["…"]}}}`, `{"field": ["msg"]}`,
 * `{"customers": [{}, {"mobile": ["…"]}]}`) flattened into `{code, attr, detail}` items with dot
 * paths. Messages without a code get DRF's default code `invalid` (no logic may read the wording);
 * items that carry `{code, detail}` keep their code.
 */
export function flattenDrfErrors(body: unknown, path: ReadonlyArray<string> = []): ValidationError[] {
  const attr = path.length > 0 ? path.join('.') : 'non_field_errors';
  if (typeof body === 'string') return [{ code: DRF_DEFAULT_CODE, attr, detail: body }];
  if (Array.isArray(body)) {
    // A list of messages for one field, or a list serializer's per-item errors (empty = item fine).
    if (body.every((m) => typeof m === 'string' || (isRecord(m) && typeof m.code === 'string' && !('attr' in m)))) {
      return body.flatMap((m) => flattenDrfErrors(m, path));
    }
    return body.flatMap((item, i) => flattenDrfErrors(item, [...path, String(i)]));
  }
  if (isRecord(body)) {
    if (
      typeof body.code === 'string' &&
      (typeof body.detail === 'string' || typeof body.message === 'string') &&
      Object.keys(body).every((k) => ['code', 'detail', 'message', 'attr'].includes(k))
    ) {
      const at = typeof body.attr === 'string' && body.attr !== '' ? [...path, body.attr].join('.') : attr;
      return [{ code: body.code, attr: at, detail: text(body.detail ?? body.message) }];
    }
    return Object.entries(body).flatMap(([k, v]) => flattenDrfErrors(v, [...path, k]));
  }
  return [];
}

/** `{code, detail, errors: [...]}` items; an item without an attr is about the whole payload. */
function standardizedItems(errors: unknown[]): ValidationError[] {
  return errors.flatMap((item) => {
    if (isRecord(item) && !('code' in item) && !('attr' in item)) return flattenDrfErrors(item);
    const e = toValidationError(item);
    return [{ ...e, attr: e.attr || 'non_field_errors' }];
  });
}

/**
 * Classifies a data-import 400 body, in every shape the spec shows. Never throws; only a non-400,
 * or a body that says nothing (not an object, empty), is `unknown`.
 */
export function parsePlatformErrorBody(status: number, body: unknown): PlatformError {
  if (status !== 400) return { kind: 'unknown', status, body };

  const notOngoing = findSupplierNotOngoing(body);
  if (notOngoing) return { kind: 'supplier_not_ongoing', detail: notOngoing.detail };

  const v2 = alreadyImportedV2Schema.safeParse(body);
  if (v2.success) return { kind: 'already_imported', accountId: v2.data.account_id, detail: v2.data.non_field_errors.detail ?? '' };
  const v1 = alreadyImportedV1Schema.safeParse(body);
  if (v1.success) return { kind: 'already_imported', accountId: v1.data.kraken_account_number, detail: v1.data.non_field_errors.join(' ') };

  const failed = failedValidationSchema.safeParse(body);
  if (failed.success && !('errors' in (body as object))) {
    return { kind: 'import_process_failed_validation', detail: failed.data.detail ?? '', domain: failed.data.domain ?? '' };
  }

  // StandardizedValidationErrorResponse: any whole-failure code with its errors[].
  const standardized = standardizedSchema.safeParse(body);
  if (standardized.success) {
    const errors = standardizedItems(standardized.data.errors);
    return {
      kind: 'validation',
      errors: errors.length > 0 ? errors : [{ code: standardized.data.code, attr: 'non_field_errors', detail: text(standardized.data.detail) }],
      detail: text(standardized.data.detail),
    };
  }

  // ErrorResponse / DRFError: `{code, detail}` names the whole failure.
  const coded = codedSchema.safeParse(body);
  if (coded.success && Object.keys(body as object).every((k) => ['code', 'detail', 'domain'].includes(k))) {
    return {
      kind: 'validation',
      errors: [{ code: coded.data.code, attr: 'non_field_errors', detail: text(coded.data.detail) }],
      detail: text(coded.data.detail),
    };
  }

  // A DRF field map.
  if (isRecord(body) && Object.keys(body).length > 0) {
    const errors = flattenDrfErrors(body);
    if (errors.length > 0) return { kind: 'validation', errors };
  }

  return { kind: 'unknown', status, body };
}
