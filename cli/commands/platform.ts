import { Command } from 'commander';
import { declareOptions } from '../option-table';
import { jsonOnly } from '../options/commands';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const platformActions = (): typeof import('../actions/platform') => require('../actions/platform');

export function platformCommand(): Command {
  const platform = new Command('platform').description('the platform (a tenant or the sandbox) as PLATFORM_* configures it');
  declareOptions(platform.command('check'), jsonOnly('print {ok, steps:[{step, ok, status, reason}]} as JSON'))
    .description('before the first run: obtain a token, read the catalogue, validate a generated payload, read an import status')
    .addHelpText(
      'after',
      `
Nothing is created on the platform: the payload goes to the validate endpoint only, and the import
status is read for an identifier no import uses (404 is a pass). Exit 0 only when every step passes.

Examples:
  $ kraken-migrate platform check
  $ PLATFORM_BASE_URL=https://<tenant>/v1/ … kraken-migrate platform check --json`,
    )
    .action(async (opts: unknown) => platformActions().platformCheckAction(opts));
  return platform;
}
