import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type pino from 'pino';
import type { Pool } from '../clients/db';
import { PlatformFinalError, PlatformTransientError, type PlatformClient } from '../clients/platform';
import { scheduleOnce } from '../clients/platform/schedule';
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
      // A retry follows an attempt whose answer may never have reached us: the status decides first.
      const r = await call(() => scheduleOnce(deps.platform, { request: body, answerUnseen: currentAttempt() > 1 }));
      if (r.learnedFromStatus) deps.logger.info({ status: r.learnedFromStatus, attempt: currentAttempt() }, 'schedule answer was lost; the import status decided');
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
        case 'import_process_failed_validation':
          await ledger.replaceErrors(input, 'platform', [{ stage: 'platform', code: 'import_process_failed_validation', attr: r.domain, detail: r.detail }]);
          return { kind: 'validation_failed', code: 'import_process_failed_validation', attr: r.domain, errorCount: 1 };
      }
    },

    async getImportStatus(input) {
      const s = await call(() => deps.platform.getImportStatus(input.supplierCode, input.externalAccountNumber));
      if (!s) return { status: 'NOT_FOUND' };
      const errorCode = latestErrorCode(s.latest_error);
      return { status: s.status, ...(s.kraken_identifier ? { accountNumber: s.kraken_identifier } : {}), ...(errorCode ? { errorCode } : {}) };
    },
  };

  async function call<T>(fn: () => Promise<T>): Promise<T> {
    honourRetryAfter();
    try {
      return await fn();
    } catch (e) {
      if (e instanceof PlatformTransientError) {
        // Remembered across attempts (heartbeat details travel with the failure): a retry that comes
        // sooner (e.g. after a Temporal server restart) waits instead of calling early.
        if (e.retryAfterMs !== undefined) activityContext()?.heartbeat({ notBefore: Date.now() + e.retryAfterMs });
        deps.logger.warn({ code: e.code, status: e.status, retryAfterMs: e.retryAfterMs }, 'platform call failed transiently; Temporal retries');
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

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined; // outside an activity (unit tests)
  }
}

/** The activity's attempt number (1 outside an activity). */
function currentAttempt(): number {
  return activityContext()?.info.attempt ?? 1;
}

/**
 * The platform's Retry-After outlives the attempt that was told it: an attempt that starts before
 * then sends nothing and asks Temporal to come back when it has passed.
 */
function honourRetryAfter(): void {
  const ctx = activityContext();
  const notBefore = (ctx?.info.heartbeatDetails as { notBefore?: unknown } | undefined)?.notBefore;
  if (!ctx || typeof notBefore !== 'number' || notBefore <= Date.now()) return;
  ctx.heartbeat({ notBefore });
  throw ApplicationFailure.create({
    message: 'platform_rate_limited: waiting for the Retry-After the platform gave',
    type: 'PlatformTransientError',
    nonRetryable: false,
    nextRetryDelay: notBefore - Date.now(),
    details: [{ code: 'platform_rate_limited', status: 429 }],
  });
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
