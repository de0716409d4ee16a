import fs from 'node:fs';
import { Command } from 'commander';
import { formatValidationLine, validateFile } from '../../schemas/validate-file';
import { EXIT, usageError } from '../errors';
import { printJson, println } from '../output';

export function validateCommand(): Command {
  return new Command('validate')
    .description('validate a file of account payloads offline (JSON or JSONL), one line per error')
    .argument('<file>')
    .option('--json', 'print {records, failed, errors:[…]} as JSON')
    .option('--region <cc>', 'default phone region for numbers without +', 'GB')
    .addHelpText(
      'after',
      `
Exit code 0 when every record is valid, 1 when any record fails or the file holds no records.
Values echoed back are capped (64 characters for an account number); values of personal fields
(names, contact details, birth dates, addresses) are never printed.

Examples:
  $ kraken-migrate validate accounts.jsonl
  $ kraken-migrate validate request.json --json | jq '.errors[] | .code'`,
    )
    .action(async (file: string, opts) => {
      if (!fs.existsSync(file)) throw usageError('file_not_found', `${file}: no such file`);
      if (!/^[A-Za-z]{2}$/.test(opts.region)) throw usageError('invalid_region', `--region ${JSON.stringify(opts.region)}: expected a two-letter country code`);
      let records = 0;
      let failed = 0;
      const errors: Array<{ index: number; externalAccountNumber?: string; code: string; attr: string; detail: string }> = [];
      for await (const r of validateFile(file, { defaultRegion: opts.region.toUpperCase() })) {
        records += 1;
        if (r.errors.length > 0) failed += 1;
        for (const e of r.errors) {
          if (opts.json) errors.push({ index: r.index, ...(r.externalAccountNumber ? { externalAccountNumber: r.externalAccountNumber } : {}), ...e });
          else println(formatValidationLine(r, e));
        }
      }
      if (opts.json) printJson({ file, records, failed, errors, ...(records === 0 ? { problem: 'no_records' } : {}) });
      else if (records === 0) process.stderr.write(`${file}: no records (an empty file, or an empty JSON array): nothing was validated\n`);
      else process.stderr.write(`${records} record(s), ${failed} invalid\n`);
      process.exitCode = failed > 0 || records === 0 ? EXIT.failures : EXIT.ok;
    });
}
