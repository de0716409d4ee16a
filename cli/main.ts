import { CommanderError } from 'commander';
import { CliError, describeError } from './errors';
import { buildProgram } from './program';

// `npx tsx cli/main.ts …`, `npm run demo|dev` and the bin/ entry point all land here.
async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
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

void main(process.argv).then(() => {
  // Commands close their connections; a socket left behind must not keep a finished command alive.
  setTimeout(() => process.exit(), 500).unref();
});
