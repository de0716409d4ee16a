import fs from 'node:fs';
import { Command } from 'commander';
import { formatValidationLine, validateFile } from '../../schemas/validate-file';
import { validatePayloadFile } from '../../source/payload-validate';
import { EXIT, usageError } from '../errors';
import { printJson, println } from '../output';

export function validateCommand(): Command {
  return new Command('validate')
    .description('validate a file of account payloads offline (JSON or JSONL), one line per error')
    .argument('<file>')
    .option('--json', 'print {records, failed, errors:[…]} as JSON')
    .option('--region <cc>', 'default phone region for numbers without +', 'GB')
    .option('--supplier <code>', 'the import supplier the payloads must name (as run start --supplier)')
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
    .action(async (file: string, opts) => {
      if (!fs.existsSync(file)) throw usageError('file_not_found', `${file}: no such file`);
      if (!/^[A-Za-z]{2}$/.test(opts.region)) throw usageError('invalid_region', `--region ${JSON.stringify(opts.region)}: expected a two-letter country code`);
      let records = 0;
      let failed = 0;
      const errors: Array<{ index: number; externalAccountNumber?: string; code: string; attr: string; detail: string }> = [];
      const accounts: Array<{ externalAccountNumber?: string; errors: Array<{ code: string; attr: string }> }> = [];
      const vopts = { defaultRegion: opts.region.toUpperCase(), importSupplier: opts.supplier };
      const results = /\.(jsonl|ndjson)(\.gz)?$/i.test(file) ? validatePayloadFile(file, vopts) : validateFile(file, vopts);
      for await (const r of results) {
        records += 1;
        if (r.errors.length > 0) failed += 1;
        if (opts.json) accounts.push({ externalAccountNumber: r.externalAccountNumber, errors: r.errors.map((e) => ({ code: e.code, attr: e.attr })) });
        for (const e of r.errors) {
          if (opts.json) errors.push({ index: r.index, ...(r.externalAccountNumber ? { externalAccountNumber: r.externalAccountNumber } : {}), ...e });
          else println(formatValidationLine(r, e));
        }
      }
      if (opts.json) printJson({ file, records, failed, errors, accounts, ...(records === 0 ? { problem: 'no_records' } : {}) });
      else if (records === 0) process.stderr.write(`${file}: no records (an empty file, or an empty JSON array): nothing was validated\n`);
      else process.stderr.write(`${records} record(s), ${failed} invalid\n`);
      process.exitCode = failed > 0 || records === 0 ? EXIT.failures : EXIT.ok;
    });
}
