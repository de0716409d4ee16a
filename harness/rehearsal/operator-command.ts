import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** The installed command (bin/kraken-migrate.js): what an operator types, not a copy of its code. */
const BIN = path.join(ROOT, 'bin', 'kraken-migrate.js');
/** The harness's own commands (`db seed-ledger`) are not in the installed command: their entry point. */
const HARNESS = ['--import', 'tsx', path.join(ROOT, 'harness', 'cli', 'main.ts')];

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `kraken-migrate <args>` against a stack, as an operator would: a child process with the
 * stack's environment (its endpoints and secrets; the command reads nothing else of the stack).
 * A non-zero exit is an error carrying the command's own message (stderr), never its environment.
 */
export async function runOperatorCommand(
  env: Record<string, string | undefined>,
  args: string[],
  timeoutMs = 120_000,
  entry: 'installed' | 'harness' = 'installed',
): Promise<CommandResult> {
  const result = await new Promise<CommandResult>((resolve, reject) => {
    const child = spawn(process.execPath, [...(entry === 'harness' ? HARNESS : [BIN]), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kraken-migrate ${args.join(' ')} did not finish in ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  if (result.code !== 0) throw new Error(`kraken-migrate ${args.join(' ')} exited ${result.code}: ${result.stderr.trim().slice(0, 2000)}`);
  return result;
}
