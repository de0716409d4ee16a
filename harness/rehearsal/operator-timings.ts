import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SeededRun } from '../seed/seed-ledger';
import { runOperatorCommand } from './operator-command';
import type { RunningStack } from '../stack/stack';

export interface OperatorTiming {
  command: string;
  ms: number;
  peakRssMb: number;
  result: string;
}

/**
 * Seeds the ledger with a run of `rows` attempts (`kraken-migrate db seed-ledger`: the outcome and error-code mix of
 * ledger/seed-mix.ts) and times the ledger part of each operator command on it, each in a process
 * of its own (its peak RSS is the command's): bench/ledger-part.ts, the same calls the CLI makes.
 */
export async function timeOperatorCommands(
  stack: RunningStack,
  rows: number,
  o: { root: string; dir: string; log: (l: string) => void },
): Promise<OperatorTiming[]> {
  const runId = `seeded-${rows}`;
  // The operator's own command: it also leaves statistics and visibility as autovacuum would after a
  // run (without that, the first reads after a bulk load set hint bits on every page: a minute, not seconds).
  const seeding = await runOperatorCommand(stack.env, ['db', 'seed-ledger', '--accounts', String(rows), '--run-id', runId, '--json'], 30 * 60_000, 'harness');
  const seeded = (JSON.parse(seeding.stdout) as { runs: SeededRun[] }).runs[0];
  const topCode = Object.entries(seeded.byCode).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'import_cancelled';
  fs.mkdirSync(o.dir, { recursive: true });
  const commands: Array<[string, string[]]> = [
    ['run status', ['status', runId]],
    ['run list', ['list', runId]],
    ['report (CSV streamed, HTML summary)', ['report', runId, o.dir]],
    [`rerun-failed --code ${topCode} (selection)`, ['rerun-failed', runId, topCode]],
    ['run reconcile (selection)', ['reconcile', runId]],
  ];
  const out: OperatorTiming[] = [];
  for (const [command, args] of commands) {
    const t = await ledgerPart(o.root, stack.env, args);
    o.log(`  ${command}: ${t.ms} ms, peak RSS ${t.peakRssMb} MB`);
    out.push({ command, ...t });
  }
  return out;
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
