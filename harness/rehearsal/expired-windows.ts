import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { Pool } from '../../clients/db';
import { migrationRunInputSchema, type MigrationRunInput } from '../../domain/inputs';
import { runWorkflowId } from '../../domain/workflow-ids';
import { attemptOutcomes } from '../../ledger';
import { sandboxAdmin } from '../sandbox/admin-client';
import type { RunningStack, StackInfo } from '../stack/stack';
import { runOperatorCommand } from './operator-command';

/**
 * The rehearsal's phase of windows that expire and outcomes that never come. The sandbox holds
 * chosen accounts' imports PENDING (a forced `hold`, sandbox/forced-outcomes.ts): those scheduled
 * with a short window end CANCELLED when it passes (some with their `cancelled` event dropped, so
 * only the status tells); those scheduled with the default window are never answered within the
 * run's `pollMaxSeconds`. Each must end failed with its code in the ledger, `rerun-failed --code
 * import_cancelled` (the operator's command itself) must create each cancelled account exactly
 * once, and the never-answered ones must not be created at all (their import still PENDING).
 */

export const expiredWindowsOptionsSchema = z
  .object({
    accountNumbers: z.object({
      /** Held past a short window; their `cancelled` event is delivered. */
      cancelled: z.array(z.string().min(1)),
      /** The same, with their events dropped: only the import status says CANCELLED. */
      cancelledEventDropped: z.array(z.string().min(1)),
      /** Held with the default window (a day): no outcome within `pollMaxSeconds`. */
      neverAnswered: z.array(z.string().min(1)),
    }),
    /** The cancelled accounts' schedule window: every one of them must be scheduled within it. */
    windowSeconds: z
      .number()
      .int()
      .min(5)
      .max(4 * 24 * 3600),
    /** How long the never-answered accounts wait (well under the default window of a day). */
    pollMaxSeconds: z
      .number()
      .int()
      .positive()
      .max(20 * 3600),
    concurrency: z.number().int().min(1).max(500),
    runIdPrefix: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$/, "letters, digits, '.', '_' and '-' only, at most 81"),
  })
  .superRefine((o, ctx) => {
    const all = [...o.accountNumbers.cancelled, ...o.accountNumbers.cancelledEventDropped, ...o.accountNumbers.neverAnswered];
    if (all.length === 0) ctx.addIssue({ code: 'custom', path: ['accountNumbers'], message: 'at least one account is needed' });
    const seen = new Set<string>();
    for (const a of all) {
      if (seen.has(a)) ctx.addIssue({ code: 'custom', path: ['accountNumbers'], message: `${a} is listed twice (each account goes in one list, once)` });
      seen.add(a);
    }
  });
export type ExpiredWindowsOptions = z.input<typeof expiredWindowsOptionsSchema>;

export interface ExpiredWindowsContext {
  /** A running stack (stack/stack.ts); only its environment, config, sandbox URL and data dir are used. */
  stack: Pick<RunningStack, 'env' | 'config'> & { info: Pick<StackInfo, 'sandboxUrl' | 'dataDir'> };
  client: Client;
  pool: Pool;
  log: (line: string) => void;
}

export interface WrongOutcome {
  account: string;
  expected: string;
  got: string;
}

export interface ExpiredWindowsSummary {
  runIds: { cancelled: string | null; neverAnswered: string | null; rerun: string | null };
  accounts: { cancelled: number; cancelledEventDropped: number; neverAnswered: number };
  /** Cancelled accounts whose ledger outcome is `failed` / `import_cancelled`, learnt from the event. */
  cancelledByEvent: number;
  /** The same, learnt from the import status (the event was dropped). */
  cancelledByPoll: number;
  /** Never-answered accounts that ended `failed` / `outcome_timeout`. */
  outcomeTimeout: number;
  /** Cancelled accounts the rerun completed and the sandbox created exactly once. */
  rerunCreated: number;
  /** Cancelled accounts the sandbox created more than once. */
  rerunDuplicated: number;
  /** Never-answered accounts the sandbox created (must be 0: their import is still PENDING). */
  neverAnsweredCreated: number;
  /** Every account whose ledger outcome or platform state is not the expected one (duplicates included). */
  wrong: number;
  examples: { wrong: WrongOutcome[]; duplicated: string[] };
  seconds: { runs: number; rerun: number; total: number };
  passed: boolean;
  line: string;
}

const EXAMPLES = 10;

interface PlatformRow {
  external_identifier: string;
  created_count: number;
  status: string | null;
}

/** Ends when the run workflow (across continue-as-new) ends; fails past the deadline, naming the run. */
async function awaitRun(client: Client, runId: string, deadlineMs: number): Promise<void> {
  const handle = client.workflow.getHandle(runWorkflowId(runId));
  const waitMs = deadlineMs - Date.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`run ${runId} did not end within ${Math.round(waitMs / 1000)} s`)), waitMs);
  });
  try {
    await Promise.race([handle.result(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runExpiredWindowsPhase(ctx: ExpiredWindowsContext, options: ExpiredWindowsOptions): Promise<ExpiredWindowsSummary> {
  const parsed = expiredWindowsOptionsSchema.safeParse(options);
  if (!parsed.success) throw new Error(`expired-windows phase: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`).join('; ')}`);
  const o = parsed.data;
  const { stack, client, pool, log } = ctx;
  const cfg = stack.config;
  const supplier = cfg.IMPORT_SUPPLIER_CODE;
  const { cancelled, cancelledEventDropped, neverAnswered } = o.accountNumbers;
  const allCancelled = [...cancelled, ...cancelledEventDropped];
  const started = Date.now();
  const admin = <T>(method: string, route: string, body?: unknown) => sandboxAdmin<T>(stack.info.sandboxUrl, method, route, body);
  const listFile = (name: string, accounts: string[]) => {
    const file = path.join(stack.info.dataDir, 'rehearsal', `${name}.txt`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, accounts.join('\n') + '\n');
    return file;
  };
  const startRun = async (input: Omit<MigrationRunInput, 'supplierCode' | 'source' | 'concurrency'>) => {
    const args = migrationRunInputSchema.parse({ supplierCode: supplier, source: { kind: 'postgres' }, concurrency: o.concurrency, ...input });
    await client.workflow.start('migrationRunWorkflow', { taskQueue: cfg.TEMPORAL_TASK_QUEUE, workflowId: runWorkflowId(args.runId), args: [args] });
  };

  const holds: Record<string, { hold: true; drop_events: boolean } | null> = {};
  for (const a of cancelled) holds[a] = { hold: true, drop_events: false };
  for (const a of cancelledEventDropped) holds[a] = { hold: true, drop_events: true };
  for (const a of neverAnswered) holds[a] = { hold: true, drop_events: false };
  const release = Object.fromEntries(Object.keys(holds).map((a) => [a, null]));

  const runIds = {
    cancelled: allCancelled.length ? `${o.runIdPrefix}-cancelled` : null,
    neverAnswered: neverAnswered.length ? `${o.runIdPrefix}-never-answered` : null,
    rerun: allCancelled.length ? `${o.runIdPrefix}-rerun-cancelled` : null,
  };
  const eventWait = cfg.OUTCOME_EVENT_WAIT_SECONDS;
  // The cancelled run waits for its event past the window's end, so a delivered `cancelled` event is
  // what decides (status polling starts only after it): by-event and by-poll counts are exact.
  // The cancellation's event gets 45 s past the window before the account polls: with 15 s, an event
  // slowed by the run's worker kill, Temporal restart and outage lost the race to the poll, and an
  // account whose event was delivered was recorded `by poll` (CI, 2026-11-28).
  const cancelledTimings = { eventWaitSeconds: o.windowSeconds + 45, pollMaxSeconds: Math.max(cfg.OUTCOME_POLL_MAX_SECONDS, 600), supplierRecheckSeconds: 10 };
  // Polling backs off up to 300 s (workflows/account-import.ts): the last wait may overshoot pollMaxSeconds by one.
  const neverDeadline = eventWait + o.pollMaxSeconds + Math.min(300, o.pollMaxSeconds) + 120;
  const cancelledDeadline = cancelledTimings.eventWaitSeconds + 5 * 60 + 120;

  let runsSeconds: number;
  let rerunSeconds = 0;
  const wrong: WrongOutcome[] = [];
  let cancelledByEvent = 0;
  let cancelledByPoll = 0;
  let outcomeTimeout = 0;
  try {
    await admin('PUT', '/admin/forced-outcomes', holds);
    log(
      `expired windows: holding ${allCancelled.length} accounts past a ${o.windowSeconds} s window (${cancelledEventDropped.length} with events dropped), ` +
        `${neverAnswered.length} never answered (pollMaxSeconds ${o.pollMaxSeconds})`,
    );
    const waits: Promise<void>[] = [];
    if (runIds.cancelled) {
      await startRun({
        runId: runIds.cancelled,
        selection: { kind: 'list', path: listFile(runIds.cancelled, allCancelled) },
        // No start: the platform takes "now" when each account is scheduled (a start given here would
        // be in the past by then, and refused beyond its tolerance).
        window: { end: new Date(Date.now() + o.windowSeconds * 1000).toISOString() },
        timings: cancelledTimings,
      });
      waits.push(awaitRun(client, runIds.cancelled, Date.now() + cancelledDeadline * 1000));
    }
    if (runIds.neverAnswered) {
      await startRun({
        runId: runIds.neverAnswered,
        selection: { kind: 'list', path: listFile(runIds.neverAnswered, neverAnswered) },
        timings: { eventWaitSeconds: eventWait, pollMaxSeconds: o.pollMaxSeconds, supplierRecheckSeconds: 10 },
      });
      waits.push(awaitRun(client, runIds.neverAnswered, Date.now() + neverDeadline * 1000));
    }
    log(`expired windows: runs ${[runIds.cancelled, runIds.neverAnswered].filter(Boolean).join(', ')} started; waiting for them to end`);
    await Promise.all(waits);
    runsSeconds = Math.round((Date.now() - started) / 1000);

    // What the ledger recorded for each account.
    const ledgerOf = async (runId: string | null) => new Map(runId ? (await attemptOutcomes(pool, runId)).map((r) => [r.external_account_number, r]) : []);
    const first = new Map([...(await ledgerOf(runIds.cancelled)), ...(await ledgerOf(runIds.neverAnswered))]);
    const check = (account: string, expectedCode: string, expectedSource: string | null) => {
      const r = first.get(account);
      const got = r
        ? `${r.outcome ?? 'no outcome'}${r.error_code ? ` ${r.error_code}` : ''}${r.outcome_source ? ` by ${r.outcome_source}` : ''}`
        : 'no attempt';
      const ok = r?.outcome === 'failed' && r.error_code === expectedCode && (expectedSource === null || r.outcome_source === expectedSource);
      if (!ok) wrong.push({ account, expected: `failed ${expectedCode}${expectedSource ? ` by ${expectedSource}` : ''}`, got });
      return ok;
    };
    for (const a of cancelled) if (check(a, 'import_cancelled', 'event')) cancelledByEvent++;
    for (const a of cancelledEventDropped) if (check(a, 'import_cancelled', 'poll')) cancelledByPoll++;
    for (const a of neverAnswered) if (check(a, 'outcome_timeout', null)) outcomeTimeout++;
    log(
      `expired windows: ledger after ${runsSeconds} s: ${cancelledByEvent} cancelled by event, ${cancelledByPoll} by poll, ${outcomeTimeout} outcome_timeout`,
    );
  } finally {
    // Lifting the holds releases no import already held (sandbox/forced-outcomes.ts): the
    // never-answered imports stay PENDING, and a new schedule is processed as usual.
    await admin('PUT', '/admin/forced-outcomes', release).catch((e: Error) => log(`expired windows: could not lift the holds: ${e.message}`));
  }

  // The operator's rerun, through the command itself.
  if (runIds.cancelled && runIds.rerun) {
    const rerunStarted = Date.now();
    log(`expired windows: kraken-migrate run rerun-failed ${runIds.cancelled} --code import_cancelled --run-id ${runIds.rerun}`);
    await runOperatorCommand(stack.env, ['run', 'rerun-failed', runIds.cancelled, '--code', 'import_cancelled', '--run-id', runIds.rerun, '--json']);
    await awaitRun(client, runIds.rerun, Date.now() + (cfg.OUTCOME_EVENT_WAIT_SECONDS + 15 * 60) * 1000);
    rerunSeconds = Math.round((Date.now() - rerunStarted) / 1000);
    const rerun = await attemptOutcomes(pool, runIds.rerun);
    const expected = new Set(allCancelled);
    for (const r of rerun)
      if (!expected.has(r.external_account_number)) wrong.push({ account: r.external_account_number, expected: 'not in the rerun', got: 'rerun' });
    const byAccount = new Map(rerun.map((r) => [r.external_account_number, r]));
    for (const a of allCancelled) {
      const r = byAccount.get(a);
      if (r?.outcome !== 'completed')
        wrong.push({
          account: a,
          expected: 'rerun completed',
          got: r ? `rerun ${r.outcome ?? 'no outcome'} ${r.error_code ?? ''}`.trim() : 'not in the rerun',
        });
    }
  }

  // The platform's ground truth: each cancelled account created once, the never-answered ones not at all.
  const gt = await admin<{ accounts: PlatformRow[] }>('GET', `/admin/ground-truth?supplier=${encodeURIComponent(supplier)}`);
  const platform = new Map(gt.accounts.map((a) => [a.external_identifier, a]));
  let rerunCreated = 0;
  const duplicated: string[] = [];
  for (const a of allCancelled) {
    const n = platform.get(a)?.created_count ?? 0;
    if (n === 1) rerunCreated++;
    else if (n > 1) duplicated.push(a);
    if (n !== 1) wrong.push({ account: a, expected: 'created once', got: `created ${n} times` });
  }
  let neverAnsweredCreated = 0;
  for (const a of neverAnswered) {
    const p = platform.get(a);
    if ((p?.created_count ?? 0) > 0) neverAnsweredCreated++;
    if ((p?.created_count ?? 0) !== 0 || p?.status !== 'PENDING')
      wrong.push({ account: a, expected: 'not created, import PENDING', got: `created ${p?.created_count ?? 0}, import ${p?.status ?? 'absent'}` });
  }
  const total = Math.round((Date.now() - started) / 1000);
  const wrongAccounts = new Set(wrong.map((w) => w.account)).size;
  const summary: ExpiredWindowsSummary = {
    runIds,
    accounts: { cancelled: cancelled.length, cancelledEventDropped: cancelledEventDropped.length, neverAnswered: neverAnswered.length },
    cancelledByEvent,
    cancelledByPoll,
    outcomeTimeout,
    rerunCreated,
    rerunDuplicated: duplicated.length,
    neverAnsweredCreated,
    wrong: wrongAccounts,
    examples: { wrong: wrong.slice(0, EXAMPLES), duplicated: duplicated.slice(0, EXAMPLES) },
    seconds: { runs: runsSeconds, rerun: rerunSeconds, total },
    passed: wrongAccounts === 0,
    line: '',
  };
  summary.line =
    `expired windows: ${cancelledByEvent}/${cancelled.length} cancelled by event, ${cancelledByPoll}/${cancelledEventDropped.length} by poll (event dropped), ` +
    `${outcomeTimeout}/${neverAnswered.length} outcome_timeout; rerun created ${rerunCreated}/${allCancelled.length}, duplicated ${duplicated.length}; ` +
    `never-answered created ${neverAnsweredCreated}; wrong ${wrongAccounts} (${total} s)`;
  log(summary.line);
  return summary;
}
