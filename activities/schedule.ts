import { CompleteAsyncError, Context } from '@temporalio/activity';
import { acceptedAnswer } from '../domain/event-wait';
import { explainFailedValidation, firstFieldAttr, PlatformTransientError, toActivityFailure } from '../clients/platform';
import { retryAfterFailure } from '../domain/platform-failure';
import { scheduleOnce } from '../clients/platform/schedule';
import type { EnergyAccount, ScheduleAccountCreation } from '../schemas/account';
import { PREFLIGHT_STAGE, preflightNotes, tariffsOf } from '../source/catalogue-check';
import { importEventSignalOf, type ScheduleWindow } from '../domain/inputs';
import type { AttemptRef, LedgerError } from '../ledger';
import type { ActivityContext } from './deps';
import type { PaceSignal } from '../domain/platform-pace';
import { DEFAULT_PRIORITY_KEY } from '../domain/priority';
import type { PermitRequest } from '../ledger';
import type { PlatformActivities, ScheduleOutcome } from './types';

/**
 * Calls to the data-import API, on the rate-limited platform task queue. Transient failures are
 * thrown for Temporal to retry (429 with the platform's Retry-After as the next delay); final
 * answers become results or non-retryable failures.
 */
export function platformActivities(
  ctx: Pick<ActivityContext, 'ledger' | 'platform' | 'config' | 'logger' | 'tariffPreflight' | 'permits'> & { now?: () => Date },
): PlatformActivities {
  const { ledger, platform } = ctx;
  const now = ctx.now ?? (() => new Date());

  return {
    /** Tariff pre-flight, then the schedule call (the supplier guard's last word is the platform's). */
    async scheduleAccount(input) {
      const { supplierStatus, request } = await ledger.scheduleInput<EnergyAccount>(input);
      if (supplierStatus !== 'ONGOING') return { kind: 'supplier_not_ongoing' };
      const notes = await tariffPreflight(input.runId, request);
      // The pre-flight's notes and "scheduled" are written together, just before the call.
      await ledger.markScheduled(input, { stage: PREFLIGHT_STAGE, errors: notes });
      // The window is taken when the call goes (after any wait for its turn): its start may not be in the past.
      const answer = await schedule(input, () => ({ payload: request, task_params: taskParams(input.window, input.dryRun, now()) }));
      return answer.kind === 'accepted' ? accepted(input, input.awaitEventSeconds) : answer;
    },

    async explainFailedValidation(input) {
      const { request } = await ledger.loadPayload<EnergyAccount>(input);
      const errors = await call(() => explainFailedValidation(platform, request));
      await ledger.replaceErrors(
        input,
        'platform',
        errors.map((e) => ({ stage: 'platform', ...e })),
      );
      return { attr: firstFieldAttr(errors), errorCount: errors.length };
    },

    async getImportStatus(input) {
      const s = await call(() => platform.getImportStatus(input.supplierCode, input.externalAccountNumber));
      if (!s) return { status: 'NOT_FOUND' };
      const errorCode = latestErrorCode(s.latest_error);
      return { status: s.status, ...(s.kraken_identifier ? { accountNumber: s.kraken_identifier } : {}), ...(errorCode ? { errorCode } : {}) };
    },
  };

  /**
   * In processing at the tenant. When the workflow asked for it (domain/event-wait.ts), the activity
   * waits for the event: its wait is written with the stage and the inbox read for an event that
   * beat it, in one statement; then the activity completes asynchronously: the events router
   * completes it with the event, or its sweep without one when the wait runs out.
   */
  async function accepted(ref: AttemptRef, awaitEventSeconds: number | undefined): Promise<ScheduleOutcome> {
    const info = activityContext()?.info;
    if (awaitEventSeconds === undefined || !info) {
      await ledger.setStage(ref, 'await');
      return { kind: 'accepted' };
    }
    const { waits, kept } = await ledger.awaitEvent(ref, { activityId: info.activityId, seconds: awaitEventSeconds });
    const answer = acceptedAnswer({ waits, kept: kept && importEventSignalOf(kept), dryRun: ref.dryRun });
    if (answer) return answer;
    throw new CompleteAsyncError();
  }

  /**
   * Tariff pre-flight from documented catalogue data (cached per run): it never refuses an account;
   * tariffs it cannot confirm are noted, and the report counts the account as not pre-checked.
   */
  async function tariffPreflight(runId: string, payload: EnergyAccount): Promise<LedgerError[]> {
    const tariffs = tariffsOf(payload);
    const verdicts = ctx.config.PLATFORM_TARIFF_PREFLIGHT && tariffs.length > 0 ? await call(() => ctx.tariffPreflight(runId).check(tariffs)) : [];
    return preflightNotes(tariffs, new Map(verdicts.map((v) => [v.code, v]))).map((n) => ({ stage: PREFLIGHT_STAGE, ...n }));
  }

  async function schedule(ref: AttemptRef, bodyNow: () => ScheduleAccountCreation): Promise<ScheduleOutcome> {
    let body = bodyNow();
    // A retry follows an attempt whose answer may never have reached us: the import status decides first.
    const r = await call(() =>
      paced(
        () => {
          body = bodyNow();
          return scheduleOnce(platform, { request: body, answerUnseen: currentAttempt() > 1 });
        },
        // Only an accepted account is in processing at the tenant; any other answer frees its permit.
        (answer) => answer.kind === 'accepted',
      ),
    );
    if (r.learnedFromStatus) ctx.logger.info({ status: r.learnedFromStatus, attempt: currentAttempt() }, 'schedule answer was lost; the import status decided');
    switch (r.kind) {
      case 'accepted':
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
      case 'import_process_failed_validation': {
        // The answer names the process; the validate endpoint names the fields.
        const errors = await call(() => explainFailedValidation(platform, body.payload, r.detail));
        await ledger.replaceErrors(
          ref,
          'platform',
          errors.map((e) => ({ stage: 'platform', ...e })),
        );
        return { kind: 'validation_failed', code: 'import_process_failed_validation', attr: firstFieldAttr(errors), errorCount: errors.length };
      }
    }
  }

  /**
   * A schedule call inside the tenant's shared window (PLATFORM_PACE=adaptive): it waits for a
   * permit (by priority and weight, domain/platform-pace.ts), and the tenant's answer (accepted and
   * how fast, 429, 5xx) moves the window. A 429 without Retry-After gives the permit back and waits
   * for another in the same attempt (one more activity attempt per refusal would be a Cloud action
   * each); no permit within the wait ends the attempt as rate-limited and Temporal brings it back.
   */
  async function paced<T>(fn: () => Promise<T>, inProcessing: (answer: T) => boolean): Promise<T> {
    const gate = ctx.permits;
    if (!gate) return fn();
    const me = permitRequest();
    const deadline = Date.now() + MAX_PERMIT_WAIT_MS;
    for (;;) {
      const grant = await gate.acquire(me, Math.max(0, deadline - Date.now()));
      if (!grant) throw retryAfterFailure(PERMIT_RETRY_MS);
      const started = Date.now();
      let answer: T;
      try {
        answer = await fn();
      } catch (e) {
        const refused = paceSignalOf(e);
        const signal = refused?.kind === 'throttled' ? { ...refused, sentUnder: grant.window } : refused;
        await gate.answered(me.holder, signal, false);
        if (signal?.kind === 'throttled' && signal.retryAfterMs === undefined && Date.now() < deadline) continue;
        throw e;
      }
      const keep = inProcessing(answer);
      await gate.answered(me.holder, keep ? { kind: 'accepted', latencyMs: Date.now() - started, full: grant.full } : undefined, keep);
      return answer;
    }
  }

  /** The platform client's errors as Temporal sees them: transient ones retried (Retry-After honoured), final ones not. */
  async function call<T>(fn: () => Promise<T>): Promise<T> {
    honourRetryAfter();
    try {
      return await fn();
    } catch (e) {
      if (e instanceof PlatformTransientError) {
        // Remembered across attempts (heartbeat details travel with the failure): a retry that comes
        // sooner (e.g. after a Temporal server restart) waits instead of calling early.
        if (e.retryAfterMs !== undefined) activityContext()?.heartbeat({ notBefore: Date.now() + e.retryAfterMs });
        ctx.logger.warn({ code: e.code, status: e.status, retryAfterMs: e.retryAfterMs }, 'platform call failed transiently; Temporal retries');
      }
      throw toActivityFailure(e);
    }
  }
}

/** Longest a schedule call waits for a permit inside an attempt (its start-to-close is 45 s; the call itself needs the rest). */
const MAX_PERMIT_WAIT_MS = 25_000;
/** No permit came: the attempt comes back this soon (its place in the queue is kept meanwhile). */
const PERMIT_RETRY_MS = 1_000;

/**
 * Who asks for a permit: the account workflow (one permit per account attempt), with the priority
 * its start gave it, which its activities inherit (priorityKey 3 and weight 1 when none was set).
 */
function permitRequest(): PermitRequest {
  const info = activityContext()?.info;
  const priority = info?.priority;
  return {
    holder: info?.workflowExecution?.workflowId ?? 'outside-an-activity',
    priorityKey: priority?.priorityKey ?? DEFAULT_PRIORITY_KEY,
    fairnessKey: priority?.fairnessKey ?? '',
    weight: priority?.fairnessWeight ?? 1,
  };
}

/** What a failed call tells the pace: a 429 (with its Retry-After) or a 5xx; anything else nothing. */
export function paceSignalOf(e: unknown): PaceSignal | undefined {
  if (!(e instanceof PlatformTransientError) || e.status === undefined) return undefined;
  if (e.status === 429) return e.retryAfterMs === undefined ? { kind: 'throttled' } : { kind: 'throttled', retryAfterMs: e.retryAfterMs };
  if (e.status >= 500) return e.retryAfterMs === undefined ? { kind: 'server_error' } : { kind: 'server_error', retryAfterMs: e.retryAfterMs };
  return undefined;
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
  throw retryAfterFailure(notBefore - Date.now());
}

/** The schedule window: given bounds, or from now for `hours` (the platform allows at most 4 days). */
export function taskParams(window: ScheduleWindow, dryRun: boolean, now: Date): ScheduleAccountCreation['task_params'] {
  const start = window.start ?? isoSeconds(now);
  const end = window.end ?? isoSeconds(new Date(Date.parse(start) + window.hours * 3600_000));
  return { is_dry_run: dryRun, schedule_window_start: start, schedule_window_end: end };
}

function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function latestErrorCode(e: unknown): string | undefined {
  if (!e) return undefined;
  if (typeof e === 'string') return e;
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') return (e as { code: string }).code;
  return undefined;
}
