import { CommanderError, type Command } from 'commander';
import { CliError, describeError } from './errors';

/** Parses argv with `program` and turns what it throws into the CLI's exit codes (cli/errors.ts). */
export async function runCli(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode;
      return;
    }
    // commander already printed its own message for usage errors.
    if (!(e instanceof CliError && e.code.startsWith('usage_'))) {
      for (const l of describeError(e).lines) process.stderr.write(l + '\n');
      if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') process.stderr.write(`${(e as Error).stack ?? ''}\n`);
    }
    process.exitCode = describeError(e).exitCode;
  }
}

export function exitSoon(): void {
  // Commands close their connections; a socket left behind must not keep a finished command alive.
  setTimeout(() => process.exit(), 500).unref();
}
