import { spawn } from 'node:child_process';
import path from 'node:path';

/** This checkout; `root` names another (its `main`, for a before-and-after in the timing step). */
const ROOT = path.resolve(__dirname, '../..');
/** The installed command (bin/kraken-migrate.js): what an operator types, not a copy of its code. */
const bin = (root: string) => [path.join(root, 'bin', 'kraken-migrate.js')];
/** The harness's own commands (`db seed-ledger`) are not in the installed command: their entry point. */
const harness = (root: string) => ['--import', 'tsx', path.join(root, 'harness', 'cli', 'main.ts')];

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit: the whole command as an operator waits for it. */
  ms: number;
}

export interface CommandOptions {
  timeoutMs?: number;
  /** The installed command, the harness's, or a script of the checkout run through tsx (`harness/bench/ledger-part.ts`). */
  entry?: 'installed' | 'harness' | { script: string };
  /** The checkout whose command runs (default this one). */
  root?: string;
  /** `discard`: stdout goes nowhere (as `| wc -l` would read it) and is not kept: a list of a million lines. */
  stdout?: 'keep' | 'discard';
}

/**
 * Runs `kraken-migrate <args>` against a stack, as an operator would: a child process with the
 * stack's environment (its endpoints and secrets; the command reads nothing else of the stack).
 * A non-zero exit is an error carrying the command's own message (stderr), never its environment.
 * The one place the harness spawns the CLI (the rehearsal, its timing step, the demo's commands).
 */
export async function runOperatorCommand(
  env: Record<string, string | undefined>,
  args: string[],
  timeoutMs = 120_000,
  entry: 'installed' | 'harness' = 'installed',
): Promise<CommandResult> {
  return spawnOperatorCommand(env, args, { timeoutMs, entry });
}

export async function spawnOperatorCommand(env: Record<string, string | undefined>, args: string[], o: CommandOptions = {}): Promise<CommandResult> {
  const root = o.root ?? ROOT;
  const timeoutMs = o.timeoutMs ?? 120_000;
  const keep = o.stdout !== 'discard';
  const result = await new Promise<CommandResult>((resolve, reject) => {
    const started = performance.now();
    const entry = o.entry ?? 'installed';
    const argv = entry === 'installed' ? bin(root) : entry === 'harness' ? harness(root) : ['--import', 'tsx', path.join(root, entry.script)];
    const child = spawn(process.execPath, [...argv, ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', keep ? 'pipe' : 'ignore', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kraken-migrate ${args.join(' ')} did not finish in ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Math.round(performance.now() - started) });
    });
  });
  if (result.code !== 0)
    throw new Error(
      `${typeof o.entry === 'object' ? o.entry.script : 'kraken-migrate'} ${args.join(' ')} exited ${result.code}: ${result.stderr.trim().slice(0, 2000)}`,
    );
  return result;
}
