// `run status`: the ledger's part starts at once and Temporal's (the run workflow's status, its
// progress, the accounts being retried) beside it. A run Temporal does not know (its retention
// passed, a ledger loaded by `db seed-ledger`), or a Temporal that does not answer in time, still
// gets the ledger's answer, with a line saying so. This module loads no Temporal package itself:
// cli/run-status-temporal.ts is loaded only to ask (docs/throughput.md).
import type { Client } from '@temporalio/client';
import type { Pool } from '../../clients/db';
import type { Config } from '../../config';
import { accountWorkflowId, runWorkflowId } from '../../domain/workflow-ids';
import type { RunProgress } from '../../domain/messages';
import type { RetryingAccount } from '../../clients/retrying-accounts';
import { ledgerProgress, runRow } from '../../ledger/run-queries';
import { createReconciliationLedger } from '../../ledger/reconciliation';
import { firstLine, loadCliContext, runAccountViews, withServices, workflowUiUrl } from '../context';
import { unreachableError } from '../errors';
import { optionsSchema, parseOptions } from '../option-schema';
import { RUN_STATUS_OPTIONS } from '../options/run';
import { printJson, println } from '../output';
import { createSupplyLedger } from '../../ledger/supply';
import { balanceLine, postImportLine, postImportStatus, reconciliationLine } from '../after-import-status';
import { paceLine, platformPace } from '../pace';
import { stopLineLines, stopLineView } from '../stop-line';
import { withTimeout } from '../with-timeout';
import { supplyLine } from '../report/summary';
import type { RunExecution } from '../run-status-temporal';

/** How long `run status` waits for Temporal to describe the run before answering from the ledger alone. */
export const TEMPORAL_WAIT_MS = 3000;

type Questions = typeof import('../run-status-temporal');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Temporal SDK, loaded only to ask it
const loadQuestions = (): Questions => require('../run-status-temporal');

/** How `run status` reaches Temporal: the client (connected on first use) and the questions' module (loaded on first use). */
export interface TemporalAccess {
  client: () => Promise<Client>;
  questions?: () => Questions;
  /** How long to wait for Temporal to describe the run (default TEMPORAL_WAIT_MS). */
  waitMs?: number;
}

type Asked = { execution: RunExecution; client: Client } | { error: Error };

/** Temporal's description of the run, or why there is none (not found, unreachable, too slow); never throws. */
async function askTemporal(t: Required<TemporalAccess>, runId: string): Promise<Asked> {
  const waitMs = t.waitMs;
  const asked = (async (): Promise<Asked> => {
    const client = await t.client();
    return { execution: await t.questions().describeRunExecution(client, runId), client };
  })().catch((e: Error): Asked => ({ error: e }));
  return (
    (await withTimeout(asked, waitMs)) ?? {
      error: unreachableError('temporal_unreachable', `Temporal did not describe the run within ${waitMs / 1000} s`),
    }
  );
}

export async function runStatus(temporal: TemporalAccess, pool: Pool, cfg: Config, runId: string) {
  const t = { questions: loadQuestions, waitMs: TEMPORAL_WAIT_MS, ...temporal };
  const [asked, row, ledger, after, checkpoint, pace] = await Promise.all([
    askTemporal(t, runId),
    runRow(pool, runId),
    ledgerProgress(pool, runId, 10),
    postImportStatus(pool, runId),
    createReconciliationLedger(pool).checkpoint(runId),
    platformPace(pool, cfg),
  ]);
  // Known to neither: Temporal's own error (not found, or unreachable) stands.
  if ('error' in asked && !row) throw asked.error;
  const execution = 'execution' in asked ? asked.execution : undefined;
  const details: { progress: RunProgress | undefined; retrying: RetryingAccount[] } =
    'execution' in asked ? await t.questions().runDetails(asked.client, runId, asked.execution.status === 'RUNNING') : { progress: undefined, retrying: [] };
  const progress = details.progress;
  const dryRun = row?.dryRun ?? progress?.dryRun ?? null;
  return {
    runId,
    workflowId: runWorkflowId(runId),
    uiUrl: workflowUiUrl(cfg, runWorkflowId(runId)),
    accountViews: runAccountViews(cfg, runId, dryRun === true),
    /** Temporal's status of the run workflow; null when it was not read (`temporal` says why). */
    workflowStatus: execution?.status ?? null,
    startTime: execution?.startTime ?? row!.startedAt,
    closeTime: execution ? execution.closeTime : (row?.finishedAt ?? null),
    /** null: answered by Temporal; else why it did not (the rest is the ledger's). */
    temporal: 'error' in asked ? { answered: false, reason: firstLine(asked.error.message) } : null,
    state: progress?.state ?? null,
    supplierCode: row?.supplierCode ?? progress?.supplierCode ?? null,
    dryRun,
    ledgerStatus: row?.status ?? null,
    progress: progress ?? null,
    stopLine: progress ? stopLineView(cfg, progress) : null,
    outcomes: ledger.outcomes,
    stagesInProgress: ledger.stagesInProgress,
    stagesFailed: ledger.stagesFailed,
    topErrors: ledger.topErrors,
    retrying: details.retrying,
    reconciliation: after.reconciliation,
    /** Counts, balance totals and a sample of accounts to review, each with its workflow link. */
    checkpoint: {
      ...checkpoint,
      reviewSample: checkpoint.reviewSample.map((a) => ({
        ...a,
        uiUrl: workflowUiUrl(cfg, accountWorkflowId(a.supplierCode, a.externalAccountNumber, false, runId)),
      })),
    },
    postImport: after.postImport,
    platformPace: pace,
    /** On a switch: the meter points' funnel (docs/supply.md); null otherwise. */
    supply: await createSupplyLedger(pool).runFunnel(runId),
  };
}

const runStatusOptionsSchema = optionsSchema(RUN_STATUS_OPTIONS);

export async function runStatusAction(runId: string, options: unknown): Promise<void> {
  const opts = parseOptions(runStatusOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const st = await runStatus({ client: () => s.temporal() }, await s.db(), ctx.cfg, runId);
    if (opts.json) return printJson(st);
    const status = st.workflowStatus ?? `${st.ledgerStatus} (ledger)`;
    println(`Run ${st.runId}  ${status}${st.state ? ` (${st.state})` : ''}  supplier ${st.supplierCode ?? '?'}${st.dryRun ? '  dry run' : ''}`);
    if (st.temporal) println(`Temporal: ${st.temporal.reason}; answered from the ledger (no workflow status, progress or retrying accounts)`);
    println(`Temporal UI: ${st.uiUrl}`);
    println(`Failed accounts: ${st.accountViews.failed}`);
    println(`Started ${st.startTime}${st.closeTime ? `, closed ${st.closeTime}` : ''}`);
    const o = st.outcomes;
    println(`Accounts: completed ${o.completed}, failed ${o.failed}, not attempted ${o.notAttempted}, in progress ${o.inProgress}`);
    if (st.progress)
      println(
        `Enumerated ${st.progress.totals.enumerated}${st.progress.exhausted ? '' : '+'}, dispatched ${st.progress.totals.dispatched}, in flight ${st.progress.inFlight}`,
      );
    if (Object.keys(st.stagesInProgress).length)
      println(
        `In progress by stage: ${Object.entries(st.stagesInProgress)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      );
    if (st.stopLine?.enabled) for (const line of stopLineLines(st.stopLine, st.runId)) println(line);
    if (st.topErrors.length) println(`Top errors: ${st.topErrors.map((e) => `${e.code} ${e.count}`).join(', ')}`);
    println(paceLine(st.platformPace));
    if (st.retrying.length) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- Temporal answered: its SDK is loaded already
      const { formatRetrying } = require('../../clients/retrying-accounts') as typeof import('../../clients/retrying-accounts');
      println(`Retrying (${st.retrying.length}):`);
      for (const line of formatRetrying(st.retrying, 20)) println(`  ${line}`);
    }
    if (st.reconciliation.checked) println(reconciliationLine(st.reconciliation));
    if (st.supply) println(supplyLine(st.supply, st.runId));
    const balances = balanceLine(st.reconciliation);
    if (balances) println(balances);
    const pi = postImportLine(st.postImport);
    if (pi) println(pi);
  });
}
