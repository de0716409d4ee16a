import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SeededRun } from '../seed/seed-ledger';
import { planSeed, seedCounts } from '../seed/seed-mix';
import { runOperatorCommand } from './operator-command';
import type { RunningStack } from '../stack/stack';

export interface OperatorTiming {
  command: string;
  ms: number;
  peakRssMb: number;
  result: string;
  /** The whole command as an operator types it (`kraken-migrate …`, CLI start included), when it runs without a Temporal run behind it. */
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
  // [name, ledger part's arguments, the whole command's arguments]. `run status` and `run list` ask
  // Temporal about the run first, and a seeded run is not in it: their ledger part only.
  const commands: Array<[string, string[], string[]?]> = [
    ['run status', ['status', runId]],
    ['run list', ['list', runId]],
    ['report (CSV streamed, HTML summary)', ['report', runId, o.dir], ['report', runId, '--out', o.dir]],
    [`rerun-failed --code ${topCode} (selection)`, ['rerun-failed', runId, topCode], ['run', 'rerun-failed', runId, '--code', topCode, '--list']],
    ['rerun-failed (selection, every code)', ['rerun-failed', runId], ['run', 'rerun-failed', runId, '--list']],
    ['run reconcile (selection)', ['reconcile', runId], ['run', 'reconcile', runId, '--list']],
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
function wholeCommand(root: string, env: Record<string, string>, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [path.join(root, 'bin', 'kraken-migrate.js'), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`kraken-migrate ${args.join(' ')} exited ${code}: ${stderr.slice(-400)}`));
      resolve(Math.round(performance.now() - started));
    });
  });
}

function ledgerPart(root: string, env: Record<string, string>, args: string[]): Promise<Omit<OperatorTiming, 'command'>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'harness', 'bench', 'ledger-part.ts'), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /: (\d+) ms, peak RSS (\d+) MB/.exec(stderr);
      if (code !== 0 || !m) return reject(new Error(`bench/ledger-part.ts ${args[0]} exited ${code}: ${stderr.slice(-400)}`));
      resolve({ ms: Number(m[1]), peakRssMb: Number(m[2]), result: stdout.trim().slice(0, 200) });
    });
  });
}
