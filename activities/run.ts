import fs from 'node:fs';
import readline from 'node:readline';
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import { accountWorkflowId } from '../domain/workflow-ids';
import type { AccountImportInput, AccountOutcome, Selection, SourceSpecRef } from '../domain/inputs';
import { supplierStatusSignal } from '../domain/messages';
import { outcomeOf } from '../domain/outcomes';
import { KmAccount, KmKind, KmRunId, KmSupplier } from '../domain/search-attributes';
import { type ActivityContext } from './deps';
import { paceView } from '../ledger';
import type { AccountPage, RunActivities, StartResult } from './types';

/**
 * The run's work (local activities, except the paging ones): register, enumerate the selection,
 * start account workflows, learn from the ledger which have finished, finish.
 */
export function runActivities(
  ctx: Pick<ActivityContext, 'ledger' | 'listerFor' | 'runEnded' | 'temporal'> & Partial<Pick<ActivityContext, 'pool' | 'config'>>,
): RunActivities {
  const { ledger, temporal } = ctx;

  return {
    async registerRun(input) {
      await ledger.registerRun(input);
    },

    async finishRun({ runId, status, totals }) {
      await ledger.finishRun(runId, status, totals);
      // Every account has its outcome: the payload files only this run read here can go.
      await ctx.runEnded(runId);
    },

    async listAccounts({ runId, selection, source, cursor, limit }) {
      return listPage(runId, selection, source, cursor, limit);
    },

    /**
     * Starts one account workflow per account (top-level, so the run's history holds no per-account
     * child events). Idempotent: a retry finds its own earlier starts by their KmRunId. The ID reuse
     * policy refuses a second import of a completed account; such an account is settled here.
     */
    async startAccounts({ taskQueue, account, externalAccountNumbers, priority }) {
      const client = await temporal();
      const workflowIdOf = (ext: string) => accountWorkflowId(account.supplierCode, ext, account.dryRun, account.runId);
      // The attempt rows exist from dispatch on (latency counts from here); a retry of this
      // activity must not start again an account whose outcome is already recorded.
      const finished = await ledger.openAttempts(
        account,
        externalAccountNumbers.map((ext) => ({ externalAccountNumber: ext, workflowId: workflowIdOf(ext) })),
      );
      return Promise.all(
        externalAccountNumbers.map(async (ext): Promise<StartResult> => {
          const input: AccountImportInput = { ...account, externalAccountNumber: ext };
          const workflowId = workflowIdOf(ext);
          if (finished.has(ext)) return { externalAccountNumber: ext, started: true };
          try {
            await client.workflow.start('accountImportWorkflow', {
              taskQueue,
              workflowId,
              args: [input],
              workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
              typedSearchAttributes: [
                { key: KmKind, value: input.dryRun ? 'dry-run-account' : 'account' },
                { key: KmRunId, value: input.runId },
                { key: KmSupplier, value: input.supplierCode },
                { key: KmAccount, value: ext },
              ],
              staticSummary: `Account ${ext} · run ${input.runId}${input.dryRun ? ' · dry run' : ''}`,
              // Fairness per supplier, by the run's weight; reruns and named accounts ahead of the bulk
              // (domain/priority.ts). Its activities inherit it, and so do their asks for the tenant's permits.
              priority: priority ?? { fairnessKey: input.supplierCode },
            });
            return { externalAccountNumber: ext, started: true };
          } catch (e) {
            if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
            const existing = await client.workflow.getHandle(workflowId).describe();
            if (existing.typedSearchAttributes.get(KmRunId) === input.runId) return { externalAccountNumber: ext, started: true };
            return { externalAccountNumber: ext, started: false, outcome: await settleExisting(input, workflowId, existing.status.name) };
          }
        }),
      );
    },

    async settleAccounts({ runId, supplierCode, externalAccountNumbers }) {
      const outcomes = externalAccountNumbers.length > 0 ? await ledger.recordedOutcomes(runId, externalAccountNumbers) : [];
      const supplier = await ledger.supplier(supplierCode);
      // The tenant's window, for the run's UI page (adaptive only; counts, no personal data).
      const platform =
        ctx.pool && ctx.config?.PLATFORM_PACE === 'adaptive'
          ? await paceView(ctx.pool, { mode: 'adaptive', tenant: ctx.config.PLATFORM_V2_BASE_URL, ceiling: ctx.config.PLATFORM_MAX_IN_PROCESSING }).catch(
              () => undefined,
            )
          : undefined;
      return { outcomes, supplierStatus: supplier?.status ?? 'PAUSED', ...(platform ? { platform } : {}) };
    },

    async wakeAccounts({ supplierCode, runId, dryRun, externalAccountNumbers, status }) {
      const client = await temporal();
      await Promise.all(
        externalAccountNumbers.map(
          (ext) =>
            client.workflow
              .getHandle(accountWorkflowId(supplierCode, ext, dryRun, runId))
              .signal(supplierStatusSignal, { status })
              .catch(() => {}), // already finished: nothing to wake
        ),
      );
    },

    async recordRemainingNotAttempted(input) {
      const run = { runId: input.runId, supplierCode: input.supplierCode, dryRun: input.dryRun };
      const wf = (ext: string) => accountWorkflowId(input.supplierCode, ext, input.dryRun, input.runId);
      const notReached = (accounts: string[]) => accounts.map((ext) => outcomeOf(ext, { step: 'not_reached', code: input.code }));
      let total = await ledger.insertOutcomes(run, notReached(input.buffer), wf);
      if (input.exhausted) return total;
      let cursor = input.cursor;
      for (;;) {
        const page = await listPage(input.runId, input.selection, input.source, cursor, 1000);
        total += await ledger.insertOutcomes(run, notReached(page.accounts), wf);
        Context.current().heartbeat(total);
        if (page.exhausted) return total;
        cursor = page.nextCursor;
      }
    },
  };

  /** An account whose workflow exists from another run: completed there, or still in flight there. */
  async function settleExisting(input: AccountImportInput, workflowId: string, status: string): Promise<AccountOutcome> {
    const ref = { runId: input.runId, externalAccountNumber: input.externalAccountNumber, supplierCode: input.supplierCode, dryRun: input.dryRun };
    await ledger.openAttempt(ref, workflowId);
    const accountNumber = await ledger.earlierCompletion(input.supplierCode, input.externalAccountNumber);
    const outcome = outcomeOf(input.externalAccountNumber, { step: 'elsewhere', status, accountNumber });
    await ledger.recordOutcome(ref, outcome);
    return outcome;
  }

  async function listPage(runId: string, selection: Selection, source: SourceSpecRef, cursor: string | undefined, limit: number): Promise<AccountPage> {
    const c = cursor ? (JSON.parse(cursor) as { after?: string; seen: number }) : { seen: 0 };
    switch (selection.kind) {
      case 'all': {
        const remaining = selection.limit === undefined ? limit : Math.min(limit, selection.limit - c.seen);
        if (remaining <= 0) return { accounts: [], exhausted: true };
        const accounts = await ctx.listerFor(source, runId).listAccountNumbers({ after: c.after, limit: remaining });
        const seen = c.seen + accounts.length;
        const exhausted = accounts.length < remaining || (selection.limit !== undefined && seen >= selection.limit);
        return { accounts, exhausted, nextCursor: JSON.stringify({ after: accounts.at(-1) ?? c.after, seen }) };
      }
      case 'failed_of_run': {
        const accounts = await ledger.failedAccounts(selection.runId, selection.codes, c.after, limit);
        return {
          accounts,
          exhausted: accounts.length < limit,
          nextCursor: JSON.stringify({ after: accounts.at(-1) ?? c.after, seen: c.seen + accounts.length }),
        };
      }
      case 'list': {
        // Line-numbered keyset over the file: reads past `seen` lines, keeps memory flat.
        const accounts: string[] = [];
        let line = 0;
        const rl = readline.createInterface({ input: fs.createReadStream(selection.path), crlfDelay: Infinity });
        for await (const raw of rl) {
          const ext = raw.trim();
          if (!ext || ext.startsWith('#')) continue;
          line++;
          if (line <= c.seen) continue;
          accounts.push(ext);
          if (accounts.length >= limit) break;
        }
        rl.close();
        return { accounts, exhausted: accounts.length < limit, nextCursor: JSON.stringify({ seen: c.seen + accounts.length }) };
      }
    }
  }
}
