import { Command } from 'commander';
import { declareOptions } from '../option-table';
import { jsonOnly } from '../options/commands';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const workersActions = (): typeof import('../actions/workers') => require('../actions/workers');

export function workersCommand(): Command {
  return declareOptions(new Command('workers'), jsonOnly())
    .description("the worker deployment's versions: which is current, how many accounts are still pinned to each")
    .addHelpText(
      'after',
      `
A version whose "retire" column says yes gets no new workflow and has none left: stop its workers,
then delete it (temporal worker deployment delete-version). See README, "Upgrading during a migration".

Example:
  $ kraken-migrate workers`,
    )
    .action(async (opts: unknown) => workersActions().workersAction(opts));
}
