import type { ScheduleAccountCreation, EnergyAccount } from '../../schemas/account';
import { parsePlatformErrorBody, PLATFORM_CODES, type PlatformError, type ValidationError } from '../../schemas/errors';
import { importStatusResponseSchema, isKnownImportStatus, type ImportStatusResponse } from '../../schemas/import-status';
import { PLATFORM_ERROR_CODES, PlatformFinalError } from './errors';
import type { HttpRequest, PlatformHttp } from './http';
import type { PlatformLogger, RawResponse } from './transport';
import { joinUrl, pathOf, segment } from './url';

export type ScheduleResult =
  | { kind: 'accepted'; body: unknown }
  | { kind: 'validation_failed'; errors: ValidationError[] }
  | { kind: 'import_process_failed_validation'; detail: string; domain: string }
  | { kind: 'already_imported'; accountNumber: string }
  | { kind: 'supplier_not_ongoing'; detail: string };

export type ValidateResult = { ok: true } | { ok: false; errors: ValidationError[] };

export interface ScheduleOptions {
  /** Sent as `Idempotency-Key`; the platform itself deduplicates by supplier + external account number. */
  idempotencyKey?: string;
}

function rejected(req: HttpRequest, res: RawResponse, why: string): PlatformFinalError {
  return new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, { method: req.method, path: pathOf(req.url), status: res.status }, why);
}

/** A 400 the endpoint documents, classified; anything else is a final rejection. */
function classify400(req: HttpRequest, res: RawResponse): Exclude<PlatformError, { kind: 'unknown' }> {
  if (res.unparseable) throw rejected(req, res, 'unparseable body');
  const parsed = parsePlatformErrorBody(res.status, res.body);
  if (parsed.kind === 'unknown') throw rejected(req, res, 'unrecognised error body');
  return parsed;
}

/**
 * The validate endpoint answers in the same shapes as scheduling; the non-field outcomes become
 * errors with the platform's codes so a caller reads one list.
 */
function asValidationErrors(error: Exclude<PlatformError, { kind: 'unknown' }>): ValidationError[] {
  switch (error.kind) {
    case 'validation':
      return error.errors;
    case 'supplier_not_ongoing':
      return [{ code: PLATFORM_CODES.supplierNotOngoing, attr: 'import_supplier', detail: error.detail }];
    case 'already_imported':
      return [{ code: PLATFORM_CODES.alreadyImported, attr: 'non_field_errors', detail: error.detail }];
    case 'import_process_failed_validation':
      return [{ code: PLATFORM_CODES.importProcessFailedValidation, attr: 'non_field_errors', detail: error.detail }];
  }
}

export function createDataImportApi(http: PlatformHttp, v2BaseUrl: string, logger?: PlatformLogger) {
  // The spec types `status` as a free string: a value we do not know is logged once per client and
  // read as "not finished" by the caller (which keeps polling), never as a failure.
  const unknownStatuses = new Set<string>();
  return {
    /** `POST /v2/data-import/accounts/`: schedules an asynchronous import. */
    async scheduleAccountCreation(request: ScheduleAccountCreation, opts: ScheduleOptions = {}): Promise<ScheduleResult> {
      const req: HttpRequest = {
        method: 'POST',
        url: joinUrl(v2BaseUrl, 'data-import/accounts/'),
        body: request,
        authenticated: true,
        headers: opts.idempotencyKey ? { 'Idempotency-Key': opts.idempotencyKey } : undefined,
      };
      const res = await http.request(req);
      if (res.status >= 200 && res.status < 300) return { kind: 'accepted', body: res.body };
      if (res.status !== 400) throw http.unexpected(req, res);
      const error = classify400(req, res);
      switch (error.kind) {
        case 'validation':
          return { kind: 'validation_failed', errors: error.errors };
        case 'import_process_failed_validation':
          return { kind: 'import_process_failed_validation', detail: error.detail, domain: error.domain };
        case 'already_imported':
          return { kind: 'already_imported', accountNumber: error.accountId };
        case 'supplier_not_ongoing':
          return { kind: 'supplier_not_ongoing', detail: error.detail };
      }
    },

    /** `POST /v2/data-import/accounts/validate/`: validates only; creates nothing. */
    async validateAccount(payload: EnergyAccount): Promise<ValidateResult> {
      const req: HttpRequest = {
        method: 'POST',
        url: joinUrl(v2BaseUrl, 'data-import/accounts/validate/'),
        body: { payload },
        authenticated: true,
      };
      const res = await http.request(req);
      if (res.status >= 200 && res.status < 300) return { ok: true };
      if (res.status !== 400) throw http.unexpected(req, res);
      return { ok: false, errors: asValidationErrors(classify400(req, res)) };
    },

    /** `GET /v2/data-import/accounts/{supplier}/{external_identifier}/`; undefined when the platform knows no such import. */
    async getImportStatus(supplierCode: string, externalIdentifier: string): Promise<ImportStatusResponse | undefined> {
      const req: HttpRequest = {
        method: 'GET',
        url: joinUrl(v2BaseUrl, `data-import/accounts/${segment(supplierCode)}/${segment(externalIdentifier)}/`),
        authenticated: true,
      };
      const res = await http.request(req);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw http.unexpected(req, res);
      const parsed = importStatusResponseSchema.safeParse(res.body);
      if (!parsed.success) throw rejected(req, res, 'unexpected status body');
      const { status } = parsed.data;
      if (!isKnownImportStatus(status) && !unknownStatuses.has(status)) {
        unknownStatuses.add(status);
        logger?.warn(
          { status: status.slice(0, 64), code: 'import_status_unknown' },
          'platform reported an import status the spec does not show; polling continues',
        );
      }
      return parsed.data;
    },
  };
}

export type DataImportApi = ReturnType<typeof createDataImportApi>;
