import { Command } from 'commander';
import { declareOptions } from '../option-table';
import { VALIDATE_OPTIONS } from '../options/commands';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const validateActions = (): typeof import('../actions/validate') => require('../actions/validate');

export function validateCommand(): Command {
  return declareOptions(new Command('validate'), VALIDATE_OPTIONS)
    .description('validate a file of account payloads offline (JSON or JSONL), one line per error')
    .argument('<file>')
    .addHelpText(
      'after',
      `
A .jsonl or .jsonl.gz file is read as \`run start --payloads\` reads it: account by account (ascending
external account number), a line that is not JSON, not an object or over 16 MiB failing alone
(named #line-<n>), a number held by two lines failing as duplicate_external_account_number, so the
two agree on every account. Documents are not read here.

Exit code 0 when every record is valid, 1 when any record fails or the file holds no records.
Values echoed back are capped (64 characters for an account number); values of personal fields
(names, contact details, birth dates, addresses) are never printed.

Examples:
  $ kraken-migrate validate accounts.jsonl
  $ kraken-migrate validate payloads.jsonl.gz --supplier DEMO-SUPPLIER
  $ kraken-migrate validate request.json --json | jq '.errors[] | .code'`,
    )
    .action(async (file: string, opts) => validateActions().validateAction(file, opts));
}
