import fs from 'node:fs';
import { z } from 'zod';
import * as E from '../schemas/enums';
import defaultMappingJson from './default-mapping.json';

/**
 * How legacy codes become platform values. A JSON table the migration team edits (default:
 * source/default-mapping.json); validated on load so a typo fails at start-up, not mid-run.
 * A legacy code missing from the table is a transform error (`unmapped_code`), never a default.
 */

const nonEmptyRecord = <T extends z.ZodType>(value: T) => z.record(z.string().min(1), value).refine((r) => Object.keys(r).length > 0, 'at least one entry');

export const codeMappingSchema = z.object({
  version: z.literal(1),
  /**
   * Legacy tariff code → platform product. The tariff code sent is
   * `<E|G>-1R-<product_code>-<region>`, the region being the meter point's GSP group letter.
   */
  tariffs: nonEmptyRecord(z.object({ fuel: z.enum(['ELECTRICITY', 'GAS']), product_code: z.string().regex(/^[A-Z0-9-]+$/) })),
  /** Legacy payment method → schedule means and the payment_type of payments made that way. */
  paymentMethods: nonEmptyRecord(
    z.object({ means: z.enum(E.PAYMENT_MEANS), payment_type: z.enum(E.PAYMENT_TYPES), repayment_type: z.enum(E.REPAYMENT_PAYMENT_TYPES) }),
  ),
  readingTypes: nonEmptyRecord(z.enum(E.READING_TYPES)),
  accountTypes: nonEmptyRecord(z.enum(E.ACCOUNT_TYPES)),
  communicationPreferences: nonEmptyRecord(z.enum(E.COMMUNICATION_PREFERENCES)),
  paymentFrequencies: nonEmptyRecord(z.enum(E.PAYMENT_FREQUENCIES)),
});

export type CodeMapping = z.infer<typeof codeMappingSchema>;

export class MappingError extends Error {
  readonly code = 'mapping_invalid';
  constructor(readonly problems: string[]) {
    super(`Invalid code mapping:\n  ${problems.join('\n  ')}`);
    this.name = 'MappingError';
  }
}

export function parseMapping(value: unknown): CodeMapping {
  const r = codeMappingSchema.safeParse(value);
  if (!r.success) throw new MappingError(r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return r.data;
}

export function loadMapping(file: string): CodeMapping {
  return parseMapping(JSON.parse(fs.readFileSync(file, 'utf8')));
}

let cachedDefault: CodeMapping | undefined;
export function defaultMapping(): CodeMapping {
  cachedDefault ??= parseMapping(defaultMappingJson);
  return cachedDefault;
}

/** The platform tariff code a legacy tariff maps to in a region. */
export function platformTariffCode(entry: CodeMapping['tariffs'][string], region: string): string {
  return `${entry.fuel === 'ELECTRICITY' ? 'E' : 'G'}-1R-${entry.product_code}-${region}`;
}
