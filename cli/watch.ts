import cliProgress from 'cli-progress';
import type { Client } from '@temporalio/client';
import type { Pool } from '../clients/db';
import { runProgressQuery, type RunProgress } from '../domain/messages';
import { ledgerProgress, type LedgerProgress } from '../ledger';
import { STOP_SIGNALS } from '../process/stop-signals';
import { describeRun, runHandle, withTimeout } from './runs';
import { stateWithStopLine } from './stop-line';
import { formatRetrying, listRetryingAccounts, type RetryingAccount } from '../clients/retrying-accounts';
import { paceWatchPart, type PlatformPaceView } from './pace';

/** One observation of a run, from the workflow's progress query and the ledger. */
export interface RunSnapshot {
  at: number;
  progress?: RunProgress;
  ledger: LedgerProgress;
  workflowStatus: string;
  /** The tenant's window of accounts in processing (adaptive: its size and throttled share). */
  pace?: PlatformPaceView;
}

export function doneOf(s: RunSnapshot): number {
  const t = s.progress?.totals;
  if (t) return t.completed + t.failed + t.notAttempted;
  const o = s.ledger.outcomes;
  return o.completed + o.failed + o.notAttempted;
}

/** Accounts known so far; final only once the selection is exhausted. */
export function totalOf(s: RunSnapshot): { total: number; final: boolean } {
  const p = s.progress;
  const done = doneOf(s);
  if (!p) return { total: Math.max(done + s.ledger.outcomes.inProgress, done), final: false };
  return { total: Math.max(p.totals.enumerated, done), final: p.exhausted };
}

/**
 * The denominator a watcher shows: never smaller than one it showed before (the progress query can
 * miss a tick, e.g. across continue-as-new, and the ledger alone knows fewer accounts), and final
 * once the run has enumerated its whole selection.
 */
export function stableTotal(prev: { total: number; final: boolean } | undefined, next: { total: number; final: boolean }): { total: number; final: boolean } {
  if (!prev) return next;
  if (prev.final) return { total: Math.max(prev.total, next.total), final: true };
  return { total: Math.max(prev.total, next.total), final: next.final };
}

/** Accounts per second over a sliding window of samples. */
export class RateMeter {
  private samples: Array<{ at: number; done: number }> = [];
  constructor(private readonly windowMs = 30_000) {}
  add(at: number, done: number): void {
    this.samples.push({ at, done });
    while (this.samples.length > 2 && at - this.samples[0].at > this.windowMs) this.samples.shift();
  }
  perSecond(): number {
    if (this.samples.length < 2) return 0;
    const a = this.samples[0];
    const b = this.samples[this.samples.length - 1];
    return b.at > a.at ? ((b.done - a.done) * 1000) / (b.at - a.at) : 0;
  }
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const fmtCounts = (r: Record<string, number>) =>
  Object.entries(r)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(' · ') || '-';

export function snapshotLines(
  s: RunSnapshot,
  rate: number,
  shown = totalOf(s),
): { state: string; counts: string; stages: string; errors: string; eta: string } {
  const { total, final } = shown;
  const remaining = total - doneOf(s);
  const o = s.progress?.totals ?? { completed: s.ledger.outcomes.completed, failed: s.ledger.outcomes.failed, notAttempted: s.ledger.outcomes.notAttempted };
  return {
    state: stateWithStopLine(s.progress, s.workflowStatus.toLowerCase()),
    counts:
      `completed ${o.completed} · failed ${o.failed} · not attempted ${o.notAttempted} · in flight ${s.progress?.inFlight ?? s.ledger.outcomes.inProgress}` +
      paceWatchPart(s.pace),
    stages: `in progress by stage: ${fmtCounts(s.ledger.stagesInProgress)}`,
    errors: `top errors: ${s.ledger.topErrors.map((e) => `${e.code} ${e.count}`).join(' · ') || '-'}`,
    eta: final && rate > 0 ? formatDuration(remaining / rate) : final && remaining === 0 ? '0s' : '?',
  };
}

/** The one-line form used when stdout is not a terminal (logs, CI). */
export function progressLine(runId: string, s: RunSnapshot, rate: number, shown = totalOf(s)): string {
  const { total, final } = shown;
  const l = snapshotLines(s, rate, shown);
  return `[${new Date(s.at).toISOString()}] ${runId} ${l.state} ${doneOf(s)}/${total}${final ? '' : '+'} | ${rate.toFixed(1)}/s ETA ${l.eta} | ${l.counts} | ${l.errors}`;
}

async function snapshot(client: Client, pool: Pool, runId: string, pace?: () => Promise<PlatformPaceView>): Promise<RunSnapshot> {
  const handle = runHandle(client, runId);
  const [desc, progress, ledger, p] = await Promise.all([
    describeRun(client, runId),
    withTimeout(handle.query(runProgressQuery), 3000),
    ledgerProgress(pool, runId),
    pace?.().catch(() => undefined),
  ]);
  return { at: Date.now(), progress, ledger, workflowStatus: desc.status.name, ...(p ? { pace: p } : {}) };
}

export interface WatchResult {
  /** Watching stopped by Ctrl-C; the run goes on. */
  interrupted: boolean;
  workflowStatus: string;
  final?: RunProgress;
  ledger: LedgerProgress;
  /** Every account of the run completed and the workflow completed. */
  allCompleted: boolean;
}

/**
 * Shows a run's progress until its workflow closes. Ctrl-C stops watching only: the run is a
 * Temporal workflow and does not depend on this process.
 */
export async function watchRun(
  client: Client,
  pool: Pool,
  runId: string,
  opts: { tty?: boolean; out?: NodeJS.WriteStream; intervalMs?: number; lineEveryMs?: number; pace?: () => Promise<PlatformPaceView> } = {},
): Promise<WatchResult> {
  const out = opts.out ?? process.stdout;
  const tty = opts.tty ?? Boolean(out.isTTY);
  const intervalMs = opts.intervalMs ?? 1000;
  const lineEveryMs = opts.lineEveryMs ?? 5000;
  const rate = new RateMeter();
  let interrupted = false;
  let wake: () => void = () => {};
  const onStop = () => {
    interrupted = true;
    wake();
  };
  for (const sig of STOP_SIGNALS) process.on(sig, onStop);

  let multi: cliProgress.MultiBar | undefined;
  let bar: cliProgress.SingleBar | undefined;
  const lines: cliProgress.SingleBar[] = [];
  let lastLine = 0;
  let shown: { total: number; final: boolean } | undefined;
  let s = await snapshot(client, pool, runId, opts.pace);
  // Accounts whose platform call keeps failing: one describe per running account, so every few seconds only.
  let retrying: RetryingAccount[] = [];
  let retryingAt = 0;
  const refreshRetrying = async () => {
    if (s.workflowStatus !== 'RUNNING' || s.at - retryingAt < lineEveryMs) return;
    retryingAt = s.at;
    retrying = await listRetryingAccounts(client, runId, { limit: 200 }).catch(() => retrying);
  };
  try {
    if (tty) {
      multi = new cliProgress.MultiBar(
        { stream: out, hideCursor: true, clearOnComplete: false, stopOnComplete: false, barsize: 30, autopadding: true, format: ' {text}' },
        cliProgress.Presets.shades_classic,
      );
      bar = multi.create(1, 0, { state: '', rate: '0.0', eta: '?', more: '' }, { format: ' {bar} {value}/{total}{more} | {rate}/s | ETA {eta} | {state}' });
      for (let i = 0; i < 4; i++) lines.push(multi.create(1, 0, { text: '' }));
    }
    for (;;) {
      await refreshRetrying();
      rate.add(s.at, doneOf(s));
      const r = rate.perSecond();
      shown = stableTotal(shown, totalOf(s));
      const { total, final } = shown;
      const l = snapshotLines(s, r, shown);
      if (bar && multi) {
        bar.setTotal(Math.max(total, 1));
        bar.update(doneOf(s), { state: l.state, rate: r.toFixed(1), eta: l.eta, more: final ? '' : '+' });
        lines[0].update(0, { text: l.counts });
        lines[1].update(0, { text: l.stages });
        lines[2].update(0, { text: l.errors });
        lines[3].update(0, { text: retrying.length ? `retrying ${retrying.length}: ${formatRetrying(retrying, 1)[0]}` : 'retrying: -' });
      } else if (s.at - lastLine >= lineEveryMs || s.workflowStatus !== 'RUNNING') {
        out.write(progressLine(runId, s, r, shown) + '\n');
        if (retrying.length && s.workflowStatus === 'RUNNING')
          for (const line of [`retrying ${retrying.length}:`, ...formatRetrying(retrying, 5)]) out.write(`  ${line}\n`);
        lastLine = s.at;
      }
      if (s.workflowStatus !== 'RUNNING' || interrupted) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, intervalMs);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      if (interrupted) break;
      s = await snapshot(client, pool, runId, opts.pace);
    }
  } finally {
    multi?.stop();
    for (const sig of STOP_SIGNALS) process.off(sig, onStop);
  }

  if (interrupted) return { interrupted, workflowStatus: s.workflowStatus, ledger: s.ledger, allCompleted: false };
  let final: RunProgress | undefined;
  if (s.workflowStatus === 'COMPLETED')
    final = await runHandle(client, runId)
      .result()
      .catch(() => undefined);
  const ledger = await ledgerProgress(pool, runId);
  const t = final?.totals;
  const allCompleted =
    s.workflowStatus === 'COMPLETED' &&
    t !== undefined &&
    t.failed === 0 &&
    t.notAttempted === 0 &&
    ledger.outcomes.failed === 0 &&
    ledger.outcomes.notAttempted === 0;
  return { interrupted, workflowStatus: s.workflowStatus, final, ledger, allCompleted };
}
