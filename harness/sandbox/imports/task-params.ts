import type { FieldError } from '../openapi/validator';
import { parseIsoDateTime } from '../time';

export const MAX_WINDOW_AHEAD_MS = 4 * 24 * 3600 * 1000;
const DEFAULT_WINDOW_MS = 24 * 3600 * 1000;

export interface TaskParamsInput {
  is_dry_run?: boolean;
  schedule_window_start?: string | null;
  schedule_window_end?: string | null;
}

export type ResolvedWindow = { ok: true; isDryRun: boolean; startMs: number; endMs: number } | { ok: false; errors: FieldError[] };

/**
 * The `TaskParameters` rules of the spec: absent bounds get defaults (start now, end a day later,
 * never beyond the 4-day limit), start not in the past, end at most 4 days ahead, start before end.
 * Runs after schema validation, so the strings are valid ISO datetimes.
 */
export function resolveWindow(params: TaskParamsInput, nowMs: number, startToleranceMs: number): ResolvedWindow {
  const errors: FieldError[] = [];
  const startMs = params.schedule_window_start ? (parseIsoDateTime(params.schedule_window_start) ?? NaN) : nowMs;
  const endMs = params.schedule_window_end
    ? (parseIsoDateTime(params.schedule_window_end) ?? NaN)
    : Math.min(Math.max(startMs, nowMs) + DEFAULT_WINDOW_MS, nowMs + MAX_WINDOW_AHEAD_MS);
  if (Number.isNaN(startMs)) errors.push({ attr: 'task_params.schedule_window_start', code: 'invalid', detail: 'Datetime has wrong format.' });
  if (Number.isNaN(endMs)) errors.push({ attr: 'task_params.schedule_window_end', code: 'invalid', detail: 'Datetime has wrong format.' });
  if (errors.length) return { ok: false, errors };
  if (startMs < nowMs - startToleranceMs) {
    errors.push({
      attr: 'task_params.schedule_window_start',
      code: 'schedule_window_start_in_past',
      detail: 'The schedule window start must not be in the past.',
    });
  }
  if (endMs > nowMs + MAX_WINDOW_AHEAD_MS + startToleranceMs) {
    errors.push({
      attr: 'task_params.schedule_window_end',
      code: 'schedule_window_end_too_far_in_future',
      detail: 'The schedule window end must not be more than 4 days in the future.',
    });
  }
  if (startMs >= endMs) {
    errors.push({
      attr: 'task_params.non_field_errors',
      code: 'schedule_window_start__after_end',
      detail: 'The schedule window start must be before its end.',
    });
  }
  if (errors.length) return { ok: false, errors };
  return { ok: true, isDryRun: params.is_dry_run === true, startMs, endMs };
}
