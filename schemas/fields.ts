import { z } from 'zod';
import { type CountryCode, decimalPattern, isCalendarDate, isUkPostcode, isUtcDateTime, isValidPhone } from './formats';

/**
 * Field builders shared by the account schemas. Each failing check carries the platform's code in
 * `params.code`; errors.ts turns that into the `code` of a ValidationError.
 */

const coded = (code: string, message: string) => ({ message, params: { code } });

/** A required string: missing → `required` (zod), empty or whitespace → `blank`. */
export function requiredString(maxLength?: number) {
  const base = maxLength === undefined ? z.string() : z.string().max(maxLength);
  return base.refine((v) => v.trim().length > 0, coded('blank', 'This field may not be blank.'));
}

export function optionalString(maxLength?: number) {
  return (maxLength === undefined ? z.string() : z.string().max(maxLength)).optional();
}

export function nullableString(maxLength?: number) {
  return (maxLength === undefined ? z.string() : z.string().max(maxLength)).nullable().optional();
}

export const dateString = z.string().refine(isCalendarDate, coded('invalid_date', 'Date must be a real calendar date in the form YYYY-MM-DD.'));

export const utcDateTimeString = z.string().refine(isUtcDateTime, coded('invalid_datetime', 'Datetime must be UTC in the form YYYY-MM-DDTHH:MM:SSZ.'));

/**
 * A datetime field the spec's own example fills with a bare date (PSR `effective_from`); the
 * platform's parser accepts both, so we do too, for these fields only.
 */
export const utcDateTimeOrDateString = z
  .string()
  .refine(
    (v) => isUtcDateTime(v) || isCalendarDate(v),
    coded('invalid_datetime', 'Datetime must be UTC in the form YYYY-MM-DDTHH:MM:SSZ (or a date YYYY-MM-DD).'),
  );

/** Money, readings and consumption: decimal strings, never JSON numbers. */
export function decimalString(integerDigits = 10, fractionDigits = 10) {
  const re = decimalPattern(integerDigits, fractionDigits);
  return z
    .string()
    .refine(
      (v) => re.test(v),
      coded('invalid', `A decimal string is required, with at most ${integerDigits} digits before and ${fractionDigits} after the point.`),
    );
}

const EMAIL = z.regexes.email;
/** Empty strings are tolerated: legacy systems often hold '' for "no email". */
export const emailString = z
  .string()
  .max(254)
  .refine((v) => v === '' || EMAIL.test(v), coded('invalid', 'Enter a valid email address.'));

export function phoneString(region: CountryCode) {
  return z
    .string()
    .max(32)
    .refine((v) => v === '' || isValidPhone(v, region), coded('invalid_phone_number', `Not a valid phone number for region ${region}.`));
}

/** UK postcode check; blank is left to the field's own required/blank rules. */
export function postcodeString(maxLength: number, required: boolean) {
  const base = required ? requiredString(maxLength) : z.string().max(maxLength);
  return base.refine((v) => v.trim() === '' || isUkPostcode(v), coded('invalid_postcode', 'Enter a valid UK postcode.'));
}

export const deliveryPointIdentifier = z
  .string()
  .max(11)
  .refine((v) => /^[A-Z0-9]*$/.test(v), coded('invalid_delivery_point_identifier', 'Only capital letters and digits are allowed.'));

export const integer = z.number().int();
