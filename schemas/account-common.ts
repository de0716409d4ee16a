import { z } from 'zod';
import * as E from './enums';
import { optionalString, requiredString, utcDateTimeString } from './fields';
import { type CountryCode, DEFAULT_PHONE_REGION } from './formats';
import { withContractFields } from './contract-zod';

/**
 * The pieces every part of the account schema uses: the optional/nullable/list wrappers, the strict
 * object completed from the contract, the coded refinement message, and the metadata and consent
 * objects that customers and the account both carry.
 */

export const opt = <T extends z.ZodType>(schema: T) => schema.optional();
export const optNull = <T extends z.ZodType>(schema: T) => schema.nullable().optional();
export const list = <T extends z.ZodType>(schema: T) => z.array(schema).optional();

/**
 * A strict object: the fields written out here, completed from the contract with every other
 * property the named components declare (contract-zod.ts: checked by type and format, passed on
 * unchanged), so nothing documented is refused or dropped.
 */
export const strictWithContract = <S extends Record<string, z.ZodType>>(
  shape: S,
  components: readonly string[],
  region: CountryCode = DEFAULT_PHONE_REGION,
  reuse?: Record<string, z.ZodType>,
) => z.strictObject(withContractFields(shape, components, { region, reuse }));

/** A refinement message carrying the platform code an issue maps to (errors.ts). */
export const coded = (code: string, message: string) => ({ message, params: { code } });

export const metadataSchema = z.strictObject({
  key: requiredString(1024),
  value: z.unknown().refine((v) => v !== undefined, { message: 'This field is required.', params: { code: 'required' } }),
});

export const consentSchema = z.strictObject({
  type: requiredString(), // tenant-configured consent types: free string
  value: z.enum(E.CONSENT_VALUES),
  signed_at: opt(utcDateTimeString),
  description: optionalString(255),
});
