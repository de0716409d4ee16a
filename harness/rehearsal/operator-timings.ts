import fs from 'node:fs';
import type { SeededRun } from '../seed/seed-ledger';
import { planSeed, seedCounts } from '../seed/seed-mix';
import { runOperatorCommand, spawnOperatorCommand } from './operator-command';
import type { RunningStack } from '../stack/stack';

export interface OperatorTiming {
  command: string;
  ms: number;
  peakRssMb: number;
  result: string;
  /** The whole command as an operator types it (`kraken-migrate …`, CLI start included): the issue's measure (#41). */
  wholeMs?: number;
}

/**
 * Seeds the ledger with a run of `rows` attempts (`kraken-migrate db seed-ledger`: the outcome and error-code mix of
 * ledger/seed-mix.ts) and times the ledger part of each operator command on it, each in a process
 * of its own (its peak RSS is the command's): bench/ledger-part.ts, the same calls the CLI makes.
 */
export async function timeOperatorCommands(
  stack: Pick<RunningStack, 'env'>,
  rows: number,
  o: { root: string; dir: string; log: (l: string) => void; reuse?: boolean },
): Promise<OperatorTiming[]> {
  const runId = `seeded-${rows}`;
  // The operator's own command: it also leaves statistics and visibility as autovacuum would after a
  // run (without that, the first reads after a bulk load set hint bits on every page: a minute, not seconds).
  // `reuse`: a run seeded before (timing again, or another checkout's commands on the same rows).
  const byCode = o.reuse
    ? seedCounts(planSeed(rows)).byCode
    : (
        JSON.parse(
          (await runOperatorCommand(stack.env, ['db', 'seed-ledger', '--accounts', String(rows), '--run-id', runId, '--json'], 30 * 60_000, 'harness')).stdout,
        ) as { runs: SeededRun[] }
      ).runs[0].byCode;
  const topCode = Object.entries(byCode).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'import_cancelled';
  fs.mkdirSync(o.dir, { recursive: true });
  // [name, ledger part's arguments, the whole command's arguments]. `run status` asks Temporal beside
  // the ledger; a seeded run is not in Temporal, so it answers from the ledger (and says so).
  const commands: Array<[string, string[], string[]?]> = [
    ['run status', ['status', runId], ['run', 'status', runId]],
    ['run list', ['list', runId]],
    ['report --summary', ['summary', runId], ['report', runId, '--summary']],
    ['report (CSV streamed, HTML summary)', ['report', runId, o.dir], ['report', runId, '--out', o.dir]],
    [`rerun-failed --code ${topCode} --list`, ['rerun-failed', runId, topCode], ['run', 'rerun-failed', runId, '--code', topCode, '--list']],
    ['rerun-failed --list (every code)', ['rerun-failed', runId], ['run', 'rerun-failed', runId, '--list']],
    ['run reconcile --list', ['reconcile', runId], ['run', 'reconcile', runId, '--list']],
  ];
  const out: OperatorTiming[] = [];
  for (const [command, args, whole] of commands) {
    const t = await ledgerPart(o.root, stack.env, args);
    const wholeMs = whole ? await wholeCommand(o.root, stack.env, whole) : undefined;
    o.log(`  ${command}: ${t.ms} ms, peak RSS ${t.peakRssMb} MB${wholeMs === undefined ? '' : `; whole command ${wholeMs} ms`}`);
    out.push({ command, ...t, ...(wholeMs === undefined ? {} : { wholeMs }) });
  }
  return out;
}

/** Wall time of `kraken-migrate <args>` from spawn to exit, its output discarded (as `| wc -l` would read it). */
async function wholeCommand(root: string, env: Record<string, string>, args: string[]): Promise<number> {
  return (await spawnOperatorCommand(env, args, { root, stdout: 'discard', timeoutMs: 10 * 60_000 })).ms;
}

/** The command's ledger part in a process of its own (bench/ledger-part.ts): its time and the process's peak RSS. */
async function ledgerPart(root: string, env: Record<string, string>, args: string[]): Promise<Omit<OperatorTiming, 'command'>> {
  const r = await spawnOperatorCommand(env, args, { root, entry: { script: 'harness/bench/ledger-part.ts' }, timeoutMs: 10 * 60_000 });
  const m = /: (\d+) ms, peak RSS (\d+) MB/.exec(r.stderr);
  if (!m) throw new Error(`bench/ledger-part.ts ${args[0]} printed no timing: ${r.stderr.slice(-400)}`);
  return { ms: Number(m[1]), peakRssMb: Number(m[2]), result: r.stdout.trim().slice(0, 200) };
}
