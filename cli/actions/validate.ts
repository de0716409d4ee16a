// What `kraken-migrate validate` does. cli/commands/validate.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import fs from 'node:fs';
import { formatValidationLine, validateFile } from '../../schemas/validate-file';
import { validatePayloadFile } from '../../source/payload-validate';
import { assertRegularFile } from '../../schemas/input-file';
import type { CountryCode } from '../../schemas/formats';
import { fileFormat } from '../../domain/source-spec';
import { EXIT, usageError } from '../errors';
import { printJson, println } from '../output';

export async function validateAction(file: string, opts: { json?: boolean; region: string; supplier?: string }): Promise<void> {
  if (!fs.existsSync(file)) throw usageError('file_not_found', `${file}: no such file`);
  // Before anything opens it: a FIFO or a device is refused (exit 4), never waited on.
  await assertRegularFile(file);
  if (!/^[A-Za-z]{2}$/.test(opts.region)) throw usageError('invalid_region', `--region ${JSON.stringify(opts.region)}: expected a two-letter country code`);
  let records = 0;
  let failed = 0;
  const errors: Array<{ index: number; externalAccountNumber?: string; code: string; attr: string; detail: string }> = [];
  const accounts: Array<{ externalAccountNumber?: string; errors: Array<{ code: string; attr: string }> }> = [];
  // Checked above to be two letters and passed on as given (commander does not type options).
  const vopts = { defaultRegion: opts.region.toUpperCase() as CountryCode, importSupplier: opts.supplier };
  const results = fileFormat(file)?.read === 'lines' ? validatePayloadFile(file, vopts) : validateFile(file, vopts);
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
}
