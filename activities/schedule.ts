import { ApplicationFailure } from '@temporalio/common';
import { PlatformFinalError, PlatformTransientError } from '../clients/platform';
import type { EnergyAccount, ScheduleAccountCreation } from '../schemas/account';
import { catalogueErrors, tariffCodesOf } from '../source/catalogue-check';
import type { ScheduleWindow } from '../workflows/inputs';
import type { AttemptRef } from '../ledger';
import type { ActivityContext } from './deps';
import type { PlatformActivities, ScheduleOutcome } from './types';

/**
 * Calls to the data-import API, on the rate-limited platform task queue. Transient failures are
 * thrown for Temporal to retry (429 with the platform's Retry-After as the next delay); final
 * answers become results or non-retryable failures.
 */
export function platformActivities(ctx: ActivityContext & { now?: () => Date }): PlatformActivities {
  const { ledger, platform } = ctx;
  const now = ctx.now ?? (() => new Date());

  return {
    /** Tariff pre-flight, then the schedule call (the supplier guard's last word is the platform's). */
    async scheduleAccount(input) {
      const supplier = await ledger.supplier(input.supplierCode);
      if (supplier?.status !== 'ONGOING') return { kind: 'supplier_not_ongoing' };
      const { request } = await ledger.loadPayload<EnergyAccount>(input);
      const unknownTariffs = await tariffPreflight(input, request);
      if (unknownTariffs) return unknownTariffs;
      return schedule(input, { payload: request, task_params: taskParams(input.window, input.dryRun, now()) });
    },

    async getImportStatus(input) {
      const s = await call(() => platform.getImportStatus(input.supplierCode, input.externalAccountNumber));
      if (!s) return { status: 'NOT_FOUND' };
      const errorCode = latestErrorCode(s.latest_error);
      return { status: s.status, ...(s.kraken_identifier ? { accountNumber: s.kraken_identifier } : {}), ...(errorCode ? { errorCode } : {}) };
    },
  };

  /** Every tariff the account uses must be in the platform's public catalogue (cached per run). */
  async function tariffPreflight(ref: AttemptRef, payload: EnergyAccount): Promise<ScheduleOutcome | undefined> {
    const codes = [...new Set(tariffCodesOf(payload).map((t) => t.code))];
    const unknown = new Set(await call(() => ctx.tariffChecker(ref.runId).unknownTariffCodes(codes)));
    const errors = catalogueErrors(payload, new Set(codes.filter((c) => !unknown.has(c))));
    if (errors.length === 0) return undefined;
    await ledger.replaceErrors(ref, 'catalogue', errors.map((e) => ({ stage: 'catalogue', ...e })));
    return { kind: 'catalogue_failed', code: errors[0].code, attr: errors[0].attr, errorCount: errors.length };
  }

  async function schedule(ref: AttemptRef, body: ScheduleAccountCreation): Promise<ScheduleOutcome> {
    await ledger.markScheduled(ref);
    const r = await call(() => platform.scheduleAccountCreation(body));
    switch (r.kind) {
      case 'accepted':
        await ledger.setStage(ref, 'await');
        return { kind: 'accepted' };
      case 'already_imported':
        return { kind: 'already_imported', accountNumber: r.accountNumber };
      case 'supplier_not_ongoing':
        return { kind: 'supplier_not_ongoing' };
      case 'validation_failed': {
        const errors = r.errors.map((e) => ({ stage: 'platform', code: e.code, attr: e.attr, detail: e.detail }));
        await ledger.replaceErrors(ref, 'platform', errors);
        return { kind: 'validation_failed', code: errors[0]?.code ?? 'account_failed_validation', attr: errors[0]?.attr, errorCount: errors.length };
      }
      case 'import_process_failed_validation':
        await ledger.replaceErrors(ref, 'platform', [{ stage: 'platform', code: 'import_process_failed_validation', attr: r.domain, detail: r.detail }]);
        return { kind: 'validation_failed', code: 'import_process_failed_validation', attr: r.domain, errorCount: 1 };
    }
  }

  /** The platform client's errors as Temporal sees them: transient ones retried (Retry-After honoured), final ones not. */
  async function call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof PlatformTransientError) {
        ctx.logger.warn({ code: e.code, status: e.status, retryAfterMs: e.retryAfterMs }, 'platform call failed transiently; Temporal retries');
        throw ApplicationFailure.create({
          message: e.message,
          type: 'PlatformTransientError',
          nonRetryable: false,
          ...(e.retryAfterMs !== undefined ? { nextRetryDelay: e.retryAfterMs } : {}),
          details: [{ code: e.code, status: e.status }],
        });
      }
      if (e instanceof PlatformFinalError) {
        throw ApplicationFailure.create({ message: e.message, type: 'PlatformFinalError', nonRetryable: true, details: [{ code: e.code, status: e.status }] });
      }
      throw e;
    }
  }
}

/** The schedule window: given bounds, or from now for `hours` (the platform allows at most 4 days). */
export function taskParams(window: ScheduleWindow, dryRun: boolean, now: Date): ScheduleAccountCreation['task_params'] {
  const start = window.start ?? isoSeconds(now);
  const end = window.end ?? isoSeconds(new Date(Date.parse(start) + window.hours * 3600_000));
  return { is_dry_run: dryRun, schedule_window_start: start, schedule_window_end: end } as ScheduleAccountCreation['task_params'];
}

function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function latestErrorCode(e: unknown): string | undefined {
  if (!e) return undefined;
  if (typeof e === 'string') return e;
  if (typeof e === 'object' && e !== null && 'code' in e && typeof (e as { code: unknown }).code === 'string') return (e as { code: string }).code;
  return undefined;
}
