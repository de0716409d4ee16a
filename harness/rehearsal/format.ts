import type { RehearsalResult } from './run';

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
const pad = (s: string | number, n: number) => String(s).padStart(n);

/** The rehearsal's report as an operator reads it: the tenths table, the goals, storage, the verdict. */
export function formatRehearsal(r: RehearsalResult): string[] {
  const o = r.options;
  const lines: string[] = [];
  lines.push(
    `Rehearsal: ${r.accounts} accounts, ${o.engine} engine, concurrency ${o.concurrency}, ${o.workers} workers, ` +
      `platform ${o.platform.latencyMs}±${o.platform.latencyJitterMs} ms a call, processing ${o.platform.processingDelayMs / 1000}-${(o.platform.processingDelayMs + o.platform.processingDelayJitterMs) / 1000} s, ` +
      `${Math.round(o.platform.eventDropRate * 100)}% events dropped; ${r.seconds} s on ${r.machine.cores} cores`,
  );
  const groups = ['worker', 'events', 'temporal', 'postgres', 'sandbox'];
  lines.push('');
  lines.push(`tenth | accounts |  acc/s | p50 s | p95 s | worker RSS MB (steady / all) | CPU ms/account: ${groups.join(' / ')} | load`);
  for (const t of r.tenths) {
    lines.push(
      `${pad(t.tenth, 5)} | ${pad(t.accounts, 8)} | ${pad(t.accountsPerSecond.toFixed(2), 6)} | ${pad(t.p50Seconds, 5)} | ${pad(t.p95Seconds, 5)} | ` +
        `${pad(`${t.steadyWorkerRssMb ?? '-'} / ${t.workersRssMb ?? '-'}`, 28)} | ${groups.map((g) => t.cpuMsPerAccount[g] ?? 0).join(' / ')} | ${t.load1 ?? '-'}`,
    );
  }
  lines.push('');
  const g = r.goals;
  lines.push(
    `Goals: last tenth / first = ${g.lastOverFirst ?? '-'} (≥ 0.9); steady worker RSS growth, 2nd tenth → last = ${g.rssGrowthPercent ?? '-'} % (< 10 %)`,
  );
  const out = r.faults.outage;
  lines.push(
    `Faults: ${r.faults.workerKills} worker kill -9, ${r.faults.serverRestarts} Temporal restart, ${r.faults.stalls} worker stall; ` +
      `platform down ${out.seconds} s with up to ${out.retryingSeenMax} accounts shown waiting on it` +
      (out.recovery
        ? `; before ${out.recovery.beforePerSecond} acc/s, back to ≥ 80 % ${out.recovery.backAfterSeconds === null ? 'never' : `${out.recovery.backAfterSeconds} s`} after its return (2 min after: ${out.recovery.afterPerSecond} acc/s)`
        : ''),
  );
  for (const l of out.statusLines) lines.push(`  run status during the outage: ${l}`);
  const s = r.storage;
  lines.push(
    `Storage per 1,000 accounts: Temporal ${mb(s.temporalPer1000)}, ledger ${mb(s.ledgerPer1000)}, inbox ${mb(s.inboxPer1000)} (sandbox ${mb(s.sandboxPer1000)}, not in a deployment)`,
  );
  lines.push(
    `Outcomes: ${Object.entries(r.outcomes)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  if (r.replay) {
    const x = r.replay;
    lines.push(
      `Replay: ${x.workflowsScanned} histories (${x.events} events) read back: nondeterminism ${x.nondeterminism}, workflow-task failures ${x.workflowTaskFailed}, ` +
        `task timeouts ${x.workflowTaskTimedOut} in ${x.workflowsWithTimeouts} workflows (by worker: ${
          Object.entries(x.timedOutByWorker)
            .map(([w, n]) => `${w} ${n}`)
            .join(', ') || 'none'
        })`,
    );
  }
  if (r.windows) lines.push(`Expired windows and outcomes that never came: ${r.windows.line}`);
  if (r.operatorCommands) {
    lines.push(`Operator commands on a ledger of ${r.operatorCommands.rows.toLocaleString('en')} attempts (ledger part, one process each):`);
    for (const t of r.operatorCommands.timings)
      lines.push(`  ${t.command}: ${t.ms} ms, peak RSS ${t.peakRssMb} MB${t.wholeMs === undefined ? '' : `; whole command ${t.wholeMs} ms`}`);
  }
  const v = r.verdict;
  for (const p of r.problems) lines.push(`problem: ${p}`);
  lines.push(
    `Verdict (sandbox ground truth and ledger): lost ${v.lost}, duplicated ${v.duplicated}, reopened ${v.reopened}, wrong ${v.wrong} — ${r.passed ? 'PASSED' : 'FAILED'}`,
  );
  return lines;
}
