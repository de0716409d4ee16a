// What `kraken-migrate validate` does. cli/commands/validate.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import fs from 'node:fs';
import { z } from 'zod';
import { flagOption, parseOptions } from '../option-schema';
import { formatValidationLine, validateFile } from '../../schemas/validate-file';
import { validatePayloadFile } from '../../source/payload-validate';
import { assertRegularFile } from '../../schemas/input-file';
import type { CountryCode } from '../../schemas/formats';
import { fileFormat } from '../../domain/source-spec';
import { EXIT, usageError } from '../errors';
import { printJson, println } from '../output';

/** `validate`'s options (cli/commands/validate.ts). */
const validateOptionsSchema = z.object({
  json: flagOption,
  region: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'expected a two-letter country code')
    .transform((r) => r.toUpperCase() as CountryCode),
  supplier: z.string().optional(),
  sendRegistrationFlows: flagOption,
});

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
