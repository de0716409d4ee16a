import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow';
import { KmKind, KmRunId } from '../domain/search-attributes';

/** An account whose activity is being retried: what Temporal's pending activities already say. */
export interface RetryingAccount {
  workflowId: string;
  /** The account number (from the workflow id `account-import/<supplier>/<account>`). */
  account: string;
  activity: string;
  attempt: number;
  /** The failure's code (e.g. `platform_unavailable`) or type; never its payload. */
  lastFailureCode: string | null;
  lastFailureMessage: string | null;
  /** ISO time of the next attempt, when Temporal has scheduled one. */
  nextRetryAt: string | null;
}

const MESSAGE_CAP = 160;

/** Caps a failure message: one line, bounded; the platform client's messages hold method, path and status only. */
export function boundedMessage(m: string | undefined | null): string | null {
  if (!m) return null;
  const one = m.replace(/\s+/g, ' ').trim();
  return one.length > MESSAGE_CAP ? `${one.slice(0, MESSAGE_CAP - 1)}…` : one;
}

function failureCode(err: Error | undefined): string | null {
  if (!err) return null;
  if (err instanceof ApplicationFailure) {
    const d = err.details?.[0] as { code?: unknown } | undefined;
    if (d && typeof d.code === 'string') return d.code;
    return err.type ?? null;
  }
  return err.name || null;
}

/**
 * Accounts of a run whose current activity has failed at least once and is waiting for its next
 * attempt (attempt ≥ 2): the ones that show only "Running" in the Temporal UI. Reads the run's
 * running account workflows (search attributes) and describes each: at most the run's concurrency.
 */
export async function listRetryingAccounts(client: Client, runId: string, opts: { limit?: number } = {}): Promise<RetryingAccount[]> {
  const query = `${KmRunId.name} = '${runId.replace(/'/g, "''")}' AND ${KmKind.name} = 'account' AND ExecutionStatus = 'Running'`;
  const out: RetryingAccount[] = [];
  const converter = client.options.loadedDataConverter;
  const limit = opts.limit ?? 500;
  let seen = 0;
  for await (const wf of client.workflow.list({ query })) {
    if (++seen > limit) break;
    let desc;
    try {
      desc = await client.workflow.getHandle(wf.workflowId, wf.runId).describe();
    } catch {
      continue; // finished between the list and the describe
    }
    for (const pa of desc.raw.pendingActivities ?? []) {
      const attempt = pa.attempt ?? 1;
      if (attempt < 2) continue;
      const err = await decodeOptionalFailureToOptionalError(converter, pa.lastFailure).catch(() => undefined);
      const next = pa.nextAttemptScheduleTime?.seconds;
      out.push({
        workflowId: wf.workflowId,
        account: wf.workflowId.split('/').slice(2).join('/') || wf.workflowId,
        activity: pa.activityType?.name ?? '?',
        attempt,
        lastFailureCode: failureCode(err),
        lastFailureMessage: boundedMessage(err?.message),
        nextRetryAt: next ? new Date(Number(next) * 1000 + Math.floor((pa.nextAttemptScheduleTime?.nanos ?? 0) / 1e6)).toISOString() : null,
      });
    }
  }
  return out.sort((a, b) => b.attempt - a.attempt || a.account.localeCompare(b.account));
}

/** One line per account (at most `max`, then how many more): account, activity, attempt, last failure, next retry. */
export function formatRetrying(list: RetryingAccount[], max = 10): string[] {
  const lines = list.slice(0, max).map((r) => {
    const failure = [r.lastFailureCode, r.lastFailureMessage && r.lastFailureMessage !== r.lastFailureCode ? r.lastFailureMessage : null]
      .filter(Boolean)
      .join(': ');
    return `${r.account}  ${r.activity} attempt ${r.attempt}${failure ? `  last failure ${failure}` : ''}${r.nextRetryAt ? `  next retry ${r.nextRetryAt.slice(11, 19)}Z` : ''}`;
  });
  if (list.length > max) lines.push(`… and ${list.length - max} more`);
  return lines;
}
