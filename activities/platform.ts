import type pino from 'pino';
import type { Pool } from '../clients/db';
import { explainFailedValidation, firstFieldAttr, PlatformTransientError, toActivityFailure, type PlatformClient } from '../clients/platform';
import type { EnergyAccount, ScheduleAccountCreation } from '../schemas/account';
import type { ScheduleWindow } from '../workflows/inputs';
import { createLedger } from './ledger';
import type { PlatformActivities } from './types';

export interface PlatformActivityDeps {
  pool: Pool;
  platform: PlatformClient;
  logger: pino.Logger;
  now?: () => Date;
}

/**
 * Calls to the data-import API. Transient failures are thrown for Temporal to retry (429 with the
 * platform's Retry-After as the next delay); final answers become results or non-retryable failures.
 */
export function createPlatformActivities(deps: PlatformActivityDeps): PlatformActivities {
  const ledger = createLedger(deps.pool);
  const now = deps.now ?? (() => new Date());

  return {
    async scheduleAccountCreation(input) {
      const { request } = await ledger.loadPayload<EnergyAccount>(input);
      const body: ScheduleAccountCreation = { payload: request, task_params: taskParams(input.window, input.dryRun, now()) };
      await ledger.markScheduled(input);
      const r = await call(() => deps.platform.scheduleAccountCreation(body));
      switch (r.kind) {
        case 'accepted':
          await ledger.setStage(input, 'await');
          return { kind: 'accepted' };
        case 'already_imported':
          return { kind: 'already_imported', accountNumber: r.accountNumber };
        case 'supplier_not_ongoing':
          return { kind: 'supplier_not_ongoing' };
        case 'validation_failed': {
          const errors = r.errors.map((e) => ({ stage: 'platform', code: e.code, attr: e.attr, detail: e.detail }));
          await ledger.replaceErrors(input, 'platform', errors);
          return { kind: 'validation_failed', code: errors[0]?.code ?? 'account_failed_validation', attr: errors[0]?.attr, errorCount: errors.length };
        }
        case 'import_process_failed_validation': {
          // The answer names the process; the validate endpoint names the fields.
          const errors = await call(() => explainFailedValidation(deps.platform, request, r.detail));
          await ledger.replaceErrors(input, 'platform', errors.map((e) => ({ stage: 'platform', ...e })));
          return { kind: 'validation_failed', code: 'import_process_failed_validation', attr: firstFieldAttr(errors), errorCount: errors.length };
        }
      }
    },

    async explainFailedValidation(input) {
      const { request } = await ledger.loadPayload<EnergyAccount>(input);
      const errors = await call(() => explainFailedValidation(deps.platform, request));
      await ledger.replaceErrors(input, 'platform', errors.map((e) => ({ stage: 'platform', ...e })));
      return { attr: firstFieldAttr(errors), errorCount: errors.length };
    },

    async getImportStatus(input) {
      const s = await call(() => deps.platform.getImportStatus(input.supplierCode, input.externalAccountNumber));
      if (!s) return { status: 'NOT_FOUND' };
      const errorCode = latestErrorCode(s.latest_error);
      return { status: s.status, ...(s.kraken_identifier ? { accountNumber: s.kraken_identifier } : {}), ...(errorCode ? { errorCode } : {}) };
    },
  };

  async function call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof PlatformTransientError) {
        deps.logger.warn({ code: e.code, status: e.status, retryAfterMs: e.retryAfterMs }, 'platform call failed transiently; Temporal retries');
      }
      throw toActivityFailure(e);
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
