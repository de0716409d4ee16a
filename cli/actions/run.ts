// What `kraken-migrate run …` does. cli/commands/run.ts declares the commands (options, help) and loads
// this module only when an action runs, so the CLI starts without the Temporal client, pg and zod.
import type { Client } from '@temporalio/client';
import { flagOf, optionsSchema, parseOptions } from '../option-schema';
import { controlRunOptions, LIST_RUNS_OPTIONS, START_RUN_OPTIONS } from '../options/run';
import type { Pool } from '../../clients/db';
import { cancelRun, pauseRun, resumeRun, type RunProgress } from '../../domain/messages';
import { KmRunId, KmSupplier, KmKind } from '../../domain/search-attributes';
import { loadCliContext, withServices, workflowUiUrl } from '../context';
import { EXIT, usageError } from '../errors';
import { runRow, runRows } from '../../ledger';
import { info, printJson, println, table } from '../output';
import { describeRun, parsePayloadOptions, parseSelectionOptions, parseSourceOption, runHandle, startRun, type StartedRun } from '../runs';
import { watchRun, type WatchResult } from '../watch';
import { rerunFailedPostImport } from './post-import';
import { platformPace } from '../pace';

/** Watches a run and turns its ending into the exit code (0: every account completed). */
export async function watchAndReport(client: Client, pool: Pool, runId: string): Promise<WatchResult> {
  info(`Watching run ${runId} (Ctrl-C stops watching; the run continues in Temporal).`);
  const r = await watchRun(client, pool, runId, { pace: () => platformPace(pool, loadCliContext().cfg) });
  if (r.interrupted) {
    info(`\nStopped watching. Run ${runId} continues; watch again with: kraken-migrate run watch ${runId}`);
    process.exitCode = 130;
    return r;
  }
  const o = r.ledger.outcomes;
  println(`Run ${runId} ${r.final?.state ?? r.workflowStatus.toLowerCase()}: completed ${o.completed}, failed ${o.failed}, not attempted ${o.notAttempted}.`);
  process.exitCode = r.allCompleted ? EXIT.ok : EXIT.failures;
  return r;
}

import { rerunFailedOptionsSchema } from './ledger-lists';

export function printStarted(started: StartedRun, json: boolean | undefined): void {
  if (json) return printJson(started);
  println(`Started run ${started.runId}`);
  println(`Temporal UI: ${started.uiUrl}`);
  println(`Failed accounts: ${started.failedAccountsUrl}`);
}

export async function executeControl(client: Client, runId: string, action: 'pause' | 'resume' | 'cancel', reason: string | undefined): Promise<RunProgress> {
  const desc = await describeRun(client, runId);
  if (desc.status.name !== 'RUNNING') throw usageError('run_not_running', `run ${runId} is ${desc.status.name.toLowerCase()}: nothing to ${action}`);
  const h = runHandle(client, runId);
  if (action === 'pause') return h.executeUpdate(pauseRun, { args: [{ reason }] });
  if (action === 'resume') return h.executeUpdate(resumeRun, { args: [] });
  return h.executeUpdate(cancelRun, { args: [{ reason }] });
}

/** `run start`'s options (cli/options/run.ts): one source and one selection a run. */
export const startRunOptionsSchema = optionsSchema(START_RUN_OPTIONS).superRefine((o, ctx) => {
  const sources = (['payloads', 'payloadsTable', 'source'] as const).filter((k) => (k === 'source' ? o.source !== 'postgres' : o[k] !== undefined));
  if (sources.length > 1) ctx.addIssue({ code: 'custom', path: [sources[1]], message: `cannot be used with ${flagOf(sources[0])}: one source a run` });
  if (o.documents !== undefined && o.payloads === undefined && o.payloadsTable === undefined)
    ctx.addIssue({ code: 'custom', path: ['documents'], message: 'goes with --payloads or --payloads-table' });
  if (o.limit !== undefined && o.accounts !== undefined) ctx.addIssue({ code: 'custom', path: ['accounts'], message: 'cannot be used with --limit' });
});

export async function startRunAction(options: unknown): Promise<void> {
  const opts = parseOptions(startRunOptionsSchema, options);
  const ctx = loadCliContext();
  const source = (await parsePayloadOptions(opts)) ?? parseSourceOption(opts.source);
  const selection = parseSelectionOptions({ limit: opts.limit, accounts: opts.accounts });
  await withServices(ctx, async (s) => {
    const client = await s.temporal();
    const started = await startRun(client, ctx.cfg, {
      runId: opts.runId,
      supplierCode: opts.supplier ?? ctx.cfg.IMPORT_SUPPLIER_CODE,
      source,
      selection,
      dryRun: Boolean(opts.dryRun),
      concurrency: opts.concurrency,
      ...(opts.weight !== undefined ? { weight: opts.weight } : {}),
      window: opts.windowStart || opts.windowEnd ? { start: opts.windowStart, end: opts.windowEnd } : undefined,
      stopLine: { enabled: opts.stopLine, maxSameCode: opts.maxSameCode, maxFailureRate: opts.maxFailureRate, overLast: opts.overLast },
      sendRegistrationFlows: Boolean(opts.sendRegistrationFlows),
    });
    printStarted(started, opts.json);
    if (opts.watch) await watchAndReport(client, await s.db(), started.runId);
  });
}

export async function watchRunAction(runId: string): Promise<void> {
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    await watchAndReport(await s.temporal(), await s.db(), runId);
  });
}

const listRunsOptionsSchema = optionsSchema(LIST_RUNS_OPTIONS);

export async function listRunsAction(options: unknown): Promise<void> {
  const opts = parseOptions(listRunsOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const client = await s.temporal();
    const supplier = opts.supplier ? ` AND KmSupplier = '${String(opts.supplier).replace(/'/g, "\\'")}'` : '';
    const query = `(KmKind = 'run' OR KmKind = 'dry-run')${supplier}`;
    const found: Array<{
      runId: string;
      workflowId: string;
      status: string;
      kind: string;
      supplierCode: string;
      startTime: string;
      closeTime: string | null;
    }> = [];
    for await (const wf of client.workflow.list({ query, pageSize: opts.limit })) {
      const sa = wf.typedSearchAttributes;
      found.push({
        runId: sa.get(KmRunId) ?? wf.workflowId.replace(/^migration-run\//, ''),
        workflowId: wf.workflowId,
        status: wf.status.name,
        kind: sa.get(KmKind) ?? 'run',
        supplierCode: sa.get(KmSupplier) ?? '',
        startTime: wf.startTime.toISOString(),
        closeTime: wf.closeTime?.toISOString() ?? null,
      });
      if (found.length >= opts.limit) break;
    }
    // Continue-as-new leaves several executions per run: keep the newest.
    const runs = [...new Map(found.map((f) => [f.runId, f])).values()];
    const rows = await runRows(
      await s.db(),
      runs.map((r) => r.runId),
    );
    const out = runs.map((r) => {
      const row = rows.get(r.runId);
      return { ...r, ledgerStatus: row?.status ?? null, totals: row?.totals ?? null, uiUrl: workflowUiUrl(ctx.cfg, r.workflowId) };
    });
    if (opts.json) return printJson(out);
    if (out.length === 0) return println('No runs yet. Start one with: kraken-migrate run start --help');
    const n = (t: Record<string, unknown> | null, k: string) => (t && typeof t[k] === 'number' ? String(t[k]) : '');
    println(
      table(
        ['RUN', 'KIND', 'SUPPLIER', 'STATUS', 'STARTED', 'DONE', 'FAILED', 'N/A'],
        out.map((r) => [
          r.runId,
          r.kind,
          r.supplierCode,
          r.ledgerStatus ?? r.status.toLowerCase(),
          r.startTime.slice(0, 19),
          n(r.totals, 'completed'),
          n(r.totals, 'failed'),
          n(r.totals, 'notAttempted'),
        ]),
      ),
    );
  });
}

/** `run pause`, `resume` and `cancel`'s options (`resume` takes no reason). */
const controlOptionsSchema = optionsSchema(controlRunOptions('cancel'));

export async function controlRunAction(action: 'pause' | 'resume' | 'cancel', runId: string, options: unknown): Promise<void> {
  const opts = parseOptions(controlOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const p = await executeControl(await s.temporal(), runId, action, opts.reason);
    if (opts.json) return printJson(p);
    const t = p.totals;
    println(`Run ${runId} is now ${p.state}: in flight ${p.inFlight}, completed ${t.completed}, failed ${t.failed}, not attempted ${t.notAttempted}.`);
  });
}

export async function rerunFailedAction(runId: string, options: unknown): Promise<void> {
  const opts = parseOptions(rerunFailedOptionsSchema, options);
  if (opts.stage === 'post-import') return rerunFailedPostImport(runId, { json: opts.json, concurrency: opts.concurrency });
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const pool = await s.db();
    const original = await runRow(pool, runId);
    if (!original) throw usageError('run_not_found', `no run ${runId} in the ledger`);
    const client = await s.temporal();
    const started = await startRun(client, ctx.cfg, {
      runId: opts.runId,
      supplierCode: original.supplierCode,
      source: original.source,
      selection: { kind: 'failed_of_run', runId, ...(opts.code?.length ? { codes: opts.code } : {}) },
      dryRun: original.dryRun,
      concurrency: opts.concurrency ?? original.concurrency,
    });
    printStarted(started, opts.json);
    if (opts.watch) await watchAndReport(client, pool, started.runId);
  });
}
