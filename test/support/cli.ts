import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Which entry point runs the command: the installed product's, or the harness's (dev, demo, generate, db seed-ledger…). */
export type CliEntry = 'product' | 'harness';
const ENTRY: Record<CliEntry, string> = { product: 'cli/main.ts', harness: 'harness/cli/main.ts' };

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env: Record<string, string>;
  entry?: CliEntry;
  timeoutMs?: number;
}

function argv(args: string[], entry: CliEntry = 'product'): string[] {
  return [require.resolve('tsx/cli'), ENTRY[entry], ...args];
}

/** The CLI as an operator runs it, waiting for it to end (stdout is a pipe: watch prints lines). */
export function cliSync(args: string[], { env, entry, timeoutMs = 120_000 }: CliOptions): CliResult {
  const r = spawnSync(process.execPath, argv(args, entry), { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: timeoutMs });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same, without blocking the test's own event loop (for commands that run while the test polls). */
export function cli(args: string[], { env, entry, timeoutMs = 240_000 }: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv(args, entry), { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kraken-migrate ${args.join(' ')} timed out\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
