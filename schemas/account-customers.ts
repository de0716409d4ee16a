import { z } from 'zod';
import * as E from './enums';
import { dateString, emailString, integer, nullableString, optionalString, utcDateTimeOrDateString, utcDateTimeString } from './fields';
import { type CountryCode } from './formats';
import { opt, optNull, list, strictWithContract, metadataSchema, consentSchema } from './account-common';

/**
 * The customer side of the account payload: customers with their PSR records, preferences and user
 * details, and the property administrators of a supply address (both carry phone numbers, so both
 * are built per region by account.ts).
 */

export const psrSchema = z.strictObject({
  additional_information: nullableString(),
  description: nullableString(),
  effective_from: opt(utcDateTimeOrDateString),
  effective_to: optNull(utcDateTimeOrDateString),
  elec_industry_code: nullableString(),
  gas_industry_code: nullableString(),
});

export const customerPreferencesSchema = z.strictObject({
  is_user_psr_consent_obtained: optNull(z.boolean()),
  opted_into_associated_companies: opt(z.boolean()),
  opted_into_offers: opt(z.boolean()),
  opted_into_recommended: opt(z.boolean()),
  opted_into_sms: opt(z.boolean()),
  opted_into_third_parties: opt(z.boolean()),
  opted_into_updates: opt(z.boolean()),
  opted_into_whatsapp: opt(z.boolean()),
  partner_password: optionalString(10),
});

export const customerUserDetailSchema = z.strictObject({
  namespace: z.enum(E.CUSTOMER_DETAIL_NAMESPACES),
  value: z.union([z.string(), z.number(), z.boolean()]),
});

/** The customer object for one phone region (`mobile`, `landline`, alternative numbers). */
export function buildCustomerSchema<P extends z.ZodType, A extends z.ZodType>(
  region: CountryCode,
  phone: P,
  alternativeNumberSchema: A,
  reuse: Record<string, z.ZodType>,
) {
  return strictWithContract(
    {
      given_name: optionalString(255),
      family_name: optionalString(255),
      title: nullableString(20),
      salutation: nullableString(128),
      email: optNull(emailString),
      mobile: phone,
      landline: phone,
      date_of_birth: optNull(dateString),
      label: nullableString(),
      deceased: opt(z.enum(E.DECEASED_STATUSES)),
      pronouns: optNull(z.enum(E.PRONOUNS)),
      role: optNull(z.enum(E.CUSTOMER_ROLES)),
      account_roles: list(z.enum(E.CUSTOMER_ROLES)),
      portfolio_roles: list(z.enum(E.CUSTOMER_ROLES)),
      alternative_phone_numbers: list(alternativeNumberSchema),
      contact_emails: list(emailString),
      customer_preferences: opt(customerPreferencesSchema),
      consents: list(consentSchema),
      psr: list(psrSchema),
      metadata: list(metadataSchema),
      user_details: list(customerUserDetailSchema),
      user_identifier: optionalString(),
      unable_to_read_meters: opt(z.boolean()),
      credit_score: optNull(integer.min(0).max(9999)),
      credit_risk_bracket: optNull(z.enum(E.CREDIT_RISK_BRACKETS)),
      credit_result: nullableString(),
      credit_assessment_id: nullableString(),
    },
    ['EnergyCustomer'],
    region,
    reuse,
  );
}

/** A supply address's property administrator for one phone region. */
export function buildPropertyAdministratorSchema<P extends z.ZodType>(region: CountryCode, phone: P, reuse: Record<string, z.ZodType>) {
  return strictWithContract(
    {
      given_name: nullableString(255),
      family_name: optionalString(255),
      title: nullableString(20),
      salutation: nullableString(128),
      billing_name: optionalString(255),
      email: optNull(emailString),
      mobile: phone,
      landline: phone,
      date_of_birth: optNull(dateString),
      deceased: opt(z.enum(E.DECEASED_STATUSES)),
      effective_from: optNull(utcDateTimeString),
      effective_to: optNull(utcDateTimeString),
      role: opt(z.enum(E.PROPERTY_ADMINISTRATOR_ROLES)),
    },
    ['PropertyAdministrator'],
    region,
    reuse,
  );
}
