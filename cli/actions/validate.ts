// What `kraken-migrate validate` does. cli/commands/validate.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import fs from 'node:fs';
import { optionsSchema, parseOptions } from '../option-schema';
import { VALIDATE_OPTIONS } from '../options/commands';
import { formatValidationLine } from '../../schemas/validate-file';
import { readersOf } from '../../source/file-readers';
import { assertRegularFile } from '../../schemas/input-file';
import { EXIT, usageError } from '../errors';
import { printJson, println } from '../output';

const validateOptionsSchema = optionsSchema(VALIDATE_OPTIONS);

export async function validateAction(file: string, options: unknown): Promise<void> {
  const opts = parseOptions(validateOptionsSchema, options);
  if (!fs.existsSync(file)) throw usageError('file_not_found', `${file}: no such file`);
  // Before anything opens it: a FIFO or a device is refused (exit 4), never waited on.
  await assertRegularFile(file);
  let records = 0;
  let failed = 0;
  const errors: Array<{ index: number; externalAccountNumber?: string; code: string; attr: string; detail: string }> = [];
  const accounts: Array<{ externalAccountNumber?: string; errors: Array<{ code: string; attr: string }> }> = [];
  // As `run start` does: without --send-registration-flows agents to appoint are refused.
  const vopts = { defaultRegion: opts.region, importSupplier: opts.supplier, sendRegistrationFlows: Boolean(opts.sendRegistrationFlows) };
  const results = readersOf(file).validate(file, vopts);
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
