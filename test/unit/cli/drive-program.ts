import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { register } from 'tsx/cjs/api';

/**
 * Drives the real command tree in this process, as bin/kraken-migrate.js does: with tsx's CommonJS
 * hook, so the actions each command `require`s when it runs (cli/program.ts), the program and the
 * error classes runCli maps to exit codes all come from one loader. No stack: a data dir of its own.
 */
const unregister = register();
// eslint-disable-next-line @typescript-eslint/no-require-imports -- through tsx's hook, as above
const { buildProgram } = require('../../../cli/program') as typeof import('../../../cli/program');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the same loader as the program's actions
const { runCli } = require('../../../cli/run-cli') as typeof import('../../../cli/run-cli');

export const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'drive-program-'));

/** Stops the hook and removes the data dir (call from afterAll). */
export function done(): void {
  unregister();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** A configuration every command refuses (`config error: DATABASE_URL=…`): options that pass reach it, and nothing further. */
export const UNREACHABLE_CONFIG = { DATABASE_URL: 'mysql://nowhere' };

/** `kraken-migrate …args` with `env` set for its duration: exit code and what it wrote. */
export async function kraken(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  const saved = Object.fromEntries(Object.keys({ DATA_DIR: '', ...env }).map((k) => [k, process.env[k]]));
  Object.assign(process.env, { DATA_DIR: dataDir, ...env });
  for (const s of ['stdout', 'stderr'] as const)
    process[s].write = (chunk: string | Uint8Array) => {
      out[s] += String(chunk);
      return true;
    };
  try {
    await runCli(buildProgram(), ['node', 'kraken-migrate', ...args]);
    return { code: Number(process.exitCode ?? 0), ...out };
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    process.exitCode = undefined;
  }
}

/** The options commander hands `args`' action (its defaults and negations applied); the action itself is not run. */
export async function optionsOf(args: string[]): Promise<Record<string, unknown>> {
  const program = buildProgram();
  let cmd = program;
  for (const name of args.slice(0, 2)) cmd = cmd.commands.find((c) => c.name() === name) ?? cmd;
  let seen: Record<string, unknown> | undefined;
  cmd.action((...a: unknown[]) => void (seen = a[a.length - 2] as Record<string, unknown>));
  await program.parseAsync(['node', 'kraken-migrate', ...args]);
  if (!seen) throw new Error(`no action ran for ${args.join(' ')}`);
  return seen;
}
