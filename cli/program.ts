import { Command, CommanderError } from 'commander';
import { codecCommand, configCommand, eventsCommand, workerCommand } from './commands/services';
import { dbCommand } from './commands/db';
import { reportCommand } from './commands/report';
import { runCommand } from './commands/run';
import { supplierCommand } from './commands/supplier';
import { validateCommand } from './commands/validate';
import { workersCommand } from './commands/workers';
import { platformCommand } from './commands/platform';
import { CliError, EXIT } from './errors';

/**
 * The whole command tree, options and help included. Declaring it loads only commander and a few
 * constants: each command's action loads its implementation (cli/actions/, cli/report/build.ts)
 * with `require` when it runs, so `--help`, and the start of every command, do not pay for the
 * Temporal client, the AWS SDK, pg and zod (about 1,200 modules) that most commands never need all of.
 * `require`, not `import()`: bin/kraken-migrate.js registers tsx's CommonJS hook only.
 */
export function buildProgram(extend?: (program: Command) => void): Command {
  const program = new Command('kraken-migrate')
    .description('Migrate legacy energy-supplier accounts into Kraken through its data-import API (Temporal-driven).')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `
Examples:
  $ npm run demo                                   the whole story on an embedded stack
  $ kraken-migrate dev                             run the stack; then, in another terminal:
  $ kraken-migrate run start --limit 100 --watch
  $ kraken-migrate report <runId>
  $ kraken-migrate run rerun-failed <runId> --code invalid_phone_number

Exit codes: 0 ok · 1 accounts failed / validation errors · 2 usage or configuration error ·
3 a service (Temporal, Postgres, sandbox) cannot be reached. See cli/README.md.`,
    );
  for (const cmd of [
    runCommand(),
    reportCommand(),
    validateCommand(),
    supplierCommand(),
    platformCommand(),
    workerCommand(),
    workersCommand(),
    eventsCommand(),
    codecCommand(),
    dbCommand(),
    configCommand(),
  ]) {
    program.addCommand(cmd);
  }
  // The development harness (harness/cli/program.ts) adds its commands here, so they share the exit codes.
  extend?.(program);
  // Usage errors exit 2 (commander's default is 1, which the CLI keeps for failed accounts).
  const applyToAll = (c: Command) => {
    c.exitOverride((err: CommanderError) => {
      if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version') throw err;
      throw new CliError(
        err.code.replace(/^commander\./, 'usage_').replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`),
        'invalid usage (see the message above)',
        EXIT.usage,
      );
    });
    c.commands.forEach(applyToAll);
  };
  applyToAll(program);
  return program;
}
