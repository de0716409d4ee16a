import { z } from 'zod';
import * as E from './enums';
import {
  dateString,
  decimalString,
  deliveryPointIdentifier,
  emailString,
  integer,
  optionalString,
  phoneString,
  postcodeString,
  requiredString,
  utcDateTimeString,
} from './fields';
import { type CountryCode, DEFAULT_PHONE_REGION } from './formats';
import { opt, optNull, list, strictWithContract, coded, metadataSchema, consentSchema } from './account-common';
import { buildCustomerSchema, buildPropertyAdministratorSchema, customerUserDetailSchema } from './account-customers';
import { meterPointSchema, electricityMeterPointSchema, gasMeterPointSchema } from './account-meter-points';
import {
  addressSchema,
  accountBillingOptionsSchema,
  ledgerSchema,
  transactionSchema,
  paymentScheduleSchema,
  paymentPreferenceSchema,
  paymentInstructionSchema,
} from './account-billing';
import {
  accountReferenceSchema,
  noteSchema,
  statementSchema,
  accountCampaignSchema,
  debtSchema,
  depositAgreementSchema,
  dunningPathSchema,
  warmHomeDiscountSchema,
} from './account-lists';

/**
 * The v2 account import request (`ScheduleAccountCreation` = `{payload: EnergyAccount, task_params}`)
 * as the OpenAPI document describes it, limited to what a UK domestic or business migration uses
 * (see COVERAGE.md). Objects are strict: a field the spec does not declare fails validation with
 * `undocumented_field` at its dot path, never dropped silently. No spec defaults are applied.
 * This file assembles the account from its parts (account-customers.ts, account-meter-points.ts,
 * account-billing.ts, account-lists.ts, account-common.ts) and builds the phone-dependent schemas
 * once per region.
 */

/** The fields both options of `Business` share; each option is completed from the contract (buildSchemas). */
const businessShape = {
  business_type: opt(z.enum(E.BUSINESS_TYPES)),
  company_name: optionalString(255),
  company_number: optionalString(100),
  details: list(
    z.strictObject({
      key: z.enum(E.BUSINESS_DETAIL_KEYS),
      value: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]),
    }),
  ),
};

export const taskParamsSchema = z.strictObject({
  is_dry_run: opt(z.boolean()),
  schedule_window_start: optNull(utcDateTimeString),
  schedule_window_end: optNull(utcDateTimeString),
});

// ---------------------------------------------------------------------------------------------
// Region-dependent schemas (phone numbers), built once per region and cached

function buildSchemas(region: CountryCode) {
  const phone = optNull(phoneString(region));
  const alternativeNumberSchema = z.strictObject({ phone_number: phone });
  // Components the contract-derived parts nest that are written out in this file: one definition each.
  const reuse: Record<string, z.ZodType> = {
    Note: noteSchema,
    Metadata: metadataSchema,
    CustomerAlternativeNumber: alternativeNumberSchema,
    CustomerUserDetail: customerUserDetailSchema,
  };
  // `Business` is a oneOf of BaseBusiness and BusinessWithExistingContracts, discriminated by
  // `enforce_business_contracts_exist` (mapping "" / "false" → BaseBusiness, "true" → the other), a
  // property neither option declares. The "" key reads as the platform's default: an absent tag is
  // BaseBusiness (the looser reading; sandbox/README.md lists it).
  const businessSchema = z.discriminatedUnion('enforce_business_contracts_exist', [
    strictWithContract({ ...businessShape, enforce_business_contracts_exist: z.literal([false, '']).optional() }, ['BaseBusiness'], region, reuse),
    strictWithContract({ ...businessShape, enforce_business_contracts_exist: z.literal(true) }, ['BusinessWithExistingContracts'], region, reuse),
  ]);

  const customerSchema = buildCustomerSchema(region, phone, alternativeNumberSchema, reuse);
  const propertyAdministratorSchema = buildPropertyAdministratorSchema(region, phone, reuse);

  const supplyAddressSchema = z.strictObject({
    supply_address1: requiredString(512),
    supply_address2: optionalString(512),
    supply_address3: optionalString(512),
    supply_address4: optionalString(512),
    supply_address5: optionalString(512),
    supply_postcode: postcodeString(10, true),
    supply_delivery_point_identifier: opt(deliveryPointIdentifier),
    customer_at_supply_address_from_date: dateString,
    customer_at_supply_address_to_date: optNull(dateString),
    primary_place_of_residence_since: opt(dateString),
    is_landlord: opt(z.boolean()),
    label: optionalString(255),
    property_external_identifier: optionalString(255),
    metadata: list(metadataSchema),
    property_administrators: list(propertyAdministratorSchema),
    meter_points: z.array(meterPointSchema),
  });

  const energyAccountSchema = strictWithContract(
    {
      // import_supplier's enum in the spec is one tenant's supplier codes: free string.
      import_supplier: requiredString(),
      external_account_number: optionalString(128),
      account_type: opt(z.enum(E.ACCOUNT_TYPES)),
      unknown_occupier: optNull(z.boolean()),
      customers: list(customerSchema),

      billing_name: optionalString(510),
      billing_sub_name: optionalString(256),
      billing_attention_of: optionalString(256),
      billing_customer_reference: optionalString(256),
      billing_email: optNull(emailString),
      billing_address: opt(addressSchema),
      billing_address1: optionalString(512),
      billing_address2: optionalString(512),
      billing_address3: optionalString(512),
      billing_address4: optionalString(512),
      billing_address5: optionalString(512),
      billing_postcode: opt(postcodeString(512, false)),
      billing_delivery_point_identifier: opt(deliveryPointIdentifier),

      business: opt(businessSchema),
      account_billing_options: opt(accountBillingOptionsSchema),
      sales_channel: opt(z.enum(E.SALES_CHANNELS)),
      sales_subchannel: optionalString(),
      date_of_sale: opt(dateString),
      communication_preference: opt(z.enum(E.COMMUNICATION_PREFERENCES)),
      document_accessibility: opt(z.enum(E.DOCUMENT_ACCESSIBILITY)),
      language_preference: opt(z.enum(E.LANGUAGE_PREFERENCES)),
      operations_team_name: optionalString(),
      smart_read_frequency: opt(z.enum(E.SMART_READ_FREQUENCIES)),
      smart_read_cycle_day: opt(integer.refine((d) => d >= 1 && d <= 28, coded('invalid_day_of_month', 'The day of the month must be between 1 and 28.'))),
      consents: list(consentSchema),

      supply_addresses: list(supplyAddressSchema),

      transfer_balance: opt(decimalString()),
      last_billed_to_date: opt(dateString),
      last_payment_review_date: optNull(dateString),
      next_bill_due_date: optNull(dateString),
      ledgers: list(ledgerSchema),
      current_statement_transactions: list(transactionSchema),
      historical_statement_transactions: list(transactionSchema),
      payment_schedules: list(paymentScheduleSchema),
      payment_preferences: list(paymentPreferenceSchema),
      payment_instructions: list(paymentInstructionSchema),

      references: list(accountReferenceSchema),
      notes: list(noteSchema),
      statements: list(statementSchema),
      account_campaigns: list(accountCampaignSchema),
      metadata: list(metadataSchema),
      debts: list(debtSchema),
      deposit_agreements: list(depositAgreementSchema),
      dunning_path: opt(dunningPathSchema),
      warm_home_discount: list(warmHomeDiscountSchema),
    },
    ['EnergyAccount'],
    region,
    reuse,
  );

  const scheduleAccountCreationSchema = z.strictObject({
    payload: energyAccountSchema,
    task_params: taskParamsSchema,
  });

  return { businessSchema, customerSchema, propertyAdministratorSchema, supplyAddressSchema, energyAccountSchema, scheduleAccountCreationSchema };
}

export type AccountSchemas = ReturnType<typeof buildSchemas>;

const cache = new Map<CountryCode, AccountSchemas>();
/** Schemas whose phone checks use `region`; built on first use, then reused. */
export function accountSchemasFor(region: CountryCode = DEFAULT_PHONE_REGION): AccountSchemas {
  let schemas = cache.get(region);
  if (!schemas) {
    schemas = buildSchemas(region);
    cache.set(region, schemas);
  }
  return schemas;
}

const gb = accountSchemasFor(DEFAULT_PHONE_REGION);
export const businessSchema = gb.businessSchema;
export const customerSchema = gb.customerSchema;
export const supplyAddressSchema = gb.supplyAddressSchema;
export const energyAccountSchema = gb.energyAccountSchema;
export const scheduleAccountCreationSchema = gb.scheduleAccountCreationSchema;

export type EnergyAccount = z.infer<typeof energyAccountSchema>;
export type TaskParams = z.infer<typeof taskParamsSchema>;
export type ScheduleAccountCreation = z.infer<typeof scheduleAccountCreationSchema>;
export type EnergyCustomer = z.infer<typeof customerSchema>;
export type SupplyAddress = z.infer<typeof supplyAddressSchema>;
export type MeterPoint = z.infer<typeof meterPointSchema>;
export type ElectricityMeterPoint = z.infer<typeof electricityMeterPointSchema>;
export type GasMeterPoint = z.infer<typeof gasMeterPointSchema>;
export type Transaction = z.infer<typeof transactionSchema>;
