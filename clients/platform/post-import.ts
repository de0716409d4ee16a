import { z } from 'zod';
import type { PostImportItem } from '../../schemas/post-import';
import { PLATFORM_ERROR_CODES, PlatformFinalError } from './errors';
import type { HttpRequest, PlatformHttp } from './http';
import type { RawResponse } from './transport';
import { joinUrl, pathOf, segment } from './url';

/**
 * `GET accounts/<number>/` (the API reference: authenticated, body not shown; sandbox/README.md, endpoint table) and the v1 post-import
 * endpoints. One item per request, so each answer belongs to exactly one item.
 */

/** The account record: any JSON object; reconciliation compares every field it carries. */
export const accountRecordSchema = z.record(z.string(), z.unknown());
export type AccountRecord = z.infer<typeof accountRecordSchema>;

export type PostImportSendResult =
  /** Accepted; a new item is confirmed by a `post_import.*` event. */
  | { kind: 'accepted' }
  /** The platform says the item is already there (NOTE_ALREADY_EXISTS, TRANSACTION_ALREADY_EXISTS, historical_statement_already_exists). */
  | { kind: 'already_exists' }
  /** Payment instruction: the account already has an active instruction (ours after a lost answer, or another). */
  | { kind: 'active_instruction_exists' }
  | { kind: 'rejected'; code: string; attr: string; detail: string }
  | { kind: 'account_not_found' }
  | { kind: 'supplier_not_ongoing'; detail: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** DRF field errors (`{transactions: {'0': {reason: ['Not a valid string.']}}}`) → dot paths. */
export function flattenFieldErrors(value: unknown, prefix = ''): Array<{ attr: string; detail: string }> {
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.map((detail) => ({ attr: prefix || 'non_field_errors', detail }));
  if (!isObj(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => flattenFieldErrors(v, prefix ? `${prefix}.${k}` : k));
}

/** The first error of a 400 answer as code + attr + detail, whatever documented or observed shape it has. */
export function firstError(body: unknown): { code: string; attr: string; detail: string } {
  if (isObj(body)) {
    const errors = Array.isArray(body.errors) ? body.errors.filter(isObj) : [];
    if (errors.length && typeof errors[0].code === 'string') {
      return { code: errors[0].code, attr: String(errors[0].attr ?? 'non_field_errors'), detail: String(errors[0].detail ?? '') };
    }
    if (typeof body.code === 'string') return { code: body.code, attr: 'non_field_errors', detail: String(body.detail ?? '') };
    if (typeof body.error_detail === 'string')
      return {
        code: typeof body.status === 'string' ? body.status.toLowerCase() : 'post_import_rejected',
        attr: 'non_field_errors',
        detail: body.error_detail,
      };
    const flat = flattenFieldErrors(body);
    if (flat.length) return { code: 'invalid', attr: flat[0].attr, detail: flat[0].detail };
  }
  return { code: 'post_import_rejected', attr: 'non_field_errors', detail: 'unrecognised error body' };
}

const ROUTES: Record<PostImportItem['kind'], string> = {
  note: 'data-import/notes/create/',
  transaction: 'data-import/transactions/create/',
  statement: 'data-import/historical-statements/create/',
  payment_instruction: 'data-import/payment-instruction/create/',
};

/** The request body for one item (exported for the contract test). */
export function postImportRequestBody(supplier: string, ext: string, i: PostImportItem): Obj {
  const base = { import_supplier: supplier, external_account_number: ext };
  switch (i.kind) {
    case 'note':
      return { ...base, notes: [i.item] };
    case 'transaction':
      return { ...base, transactions: [i.item] };
    case 'statement':
      return { ...base, statements: [i.item] };
    case 'payment_instruction':
      return { ...base, ...i.item };
  }
}

function interpret201(i: PostImportItem, body: unknown): PostImportSendResult {
  if (i.kind === 'note') {
    const first = Array.isArray(body) ? body[0] : isObj(body) ? body : undefined;
    return isObj(first) && first.status === 'NOTE_ALREADY_EXISTS' ? { kind: 'already_exists' } : { kind: 'accepted' };
  }
  if (i.kind === 'transaction') {
    const first = isObj(body) && Array.isArray(body.results) ? body.results[0] : undefined;
    if (isObj(first) && first.status === 'TRANSACTION_ALREADY_EXISTS') return { kind: 'already_exists' };
    if (isObj(first) && first.status === 'TRANSACTION_IMPORT_ERROR')
      return { kind: 'rejected', code: 'transaction_import_error', attr: 'transactions.0', detail: String(first.error_detail ?? '') };
    return { kind: 'accepted' };
  }
  return { kind: 'accepted' };
}

export function createPostImportApi(http: PlatformHttp, v1BaseUrl: string) {
  const rejected = (req: HttpRequest, res: RawResponse, why: string) =>
    new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, { method: req.method, path: pathOf(req.url), status: res.status }, why);

  return {
    /** `GET accounts/<number>/`; undefined on 404. */
    async getAccount(accountNumber: string): Promise<AccountRecord | undefined> {
      // An ordinary REST endpoint: the token, or HTTP Basic with PLATFORM_REST_AUTH=basic (sandbox/README.md, "Credentials", rule 5).
      const req: HttpRequest = { method: 'GET', url: joinUrl(v1BaseUrl, `accounts/${segment(accountNumber)}/`), authenticated: 'rest' };
      const res = await http.request(req);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw http.unexpected(req, res);
      const parsed = accountRecordSchema.safeParse(res.body);
      if (!parsed.success) throw rejected(req, res, 'account record is not an object');
      return parsed.data;
    },

    /** Sends one post-import item for the account `supplier` + `ext`. */
    async sendPostImportItem(supplier: string, ext: string, i: PostImportItem): Promise<PostImportSendResult> {
      // check_previously_added is the documented default; sent explicitly because it is what makes a resend harmless.
      const req: HttpRequest = {
        method: 'POST',
        url: joinUrl(v1BaseUrl, ROUTES[i.kind], i.kind === 'transaction' ? { check_previously_added: true } : undefined),
        body: postImportRequestBody(supplier, ext, i),
        authenticated: true,
      };
      const res = await http.request(req);
      if (res.status === 201 || res.status === 200) return interpret201(i, res.body);
      if (res.status === 404) return { kind: 'account_not_found' };
      if (res.status !== 400) throw http.unexpected(req, res);
      if (res.unparseable) throw rejected(req, res, 'unparseable body');
      const err = firstError(res.body);
      if (err.code === 'import_supplier_migration_not_ongoing') return { kind: 'supplier_not_ongoing', detail: err.detail };
      if (err.code === 'historical_statement_already_exists') return { kind: 'already_exists' };
      // CreatePaymentInstructionError carries no code: the documented 400 for an active instruction.
      if (i.kind === 'payment_instruction' && isObj(res.body) && typeof res.body.error_detail === 'string' && !('errors' in res.body)) {
        return { kind: 'active_instruction_exists' };
      }
      return { kind: 'rejected', ...err };
    },
  };
}

export type PostImportApi = ReturnType<typeof createPostImportApi>;
