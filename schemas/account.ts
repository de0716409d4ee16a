import { z } from 'zod';
import * as E from './enums';
import {
  dateString,
  decimalString,
  deliveryPointIdentifier,
  emailString,
  integer,
  nullableString,
  optionalString,
  phoneString,
  postcodeString,
  requiredString,
  utcDateTimeOrDateString,
  utcDateTimeString,
} from './fields';
import { type CountryCode, DEFAULT_PHONE_REGION, isMpanCore, isMprn } from './formats';
import { withContractFields } from './contract-zod';

/**
 * The v2 account import request (`ScheduleAccountCreation` = `{payload: EnergyAccount, task_params}`)
 * as the OpenAPI document describes it, limited to what a UK domestic or business migration uses
 * (see COVERAGE.md). Objects are strict: a field the spec does not declare fails validation with
 * `undocumented_field` at its dot path, never dropped silently. No spec defaults are applied.
 */

const opt = <T extends z.ZodType>(schema: T) => schema.optional();
const optNull = <T extends z.ZodType>(schema: T) => schema.nullable().optional();
const list = <T extends z.ZodType>(schema: T) => z.array(schema).optional();

/**
 * A strict object: the fields written out here, completed from the contract with every other
 * property the named components declare (contract-zod.ts: checked by type and format, passed on
 * unchanged), so nothing documented is refused or dropped.
 */
const strictWithContract = <S extends Record<string, z.ZodType>>(
  shape: S,
  components: readonly string[],
  region: CountryCode = DEFAULT_PHONE_REGION,
  reuse?: Record<string, z.ZodType>,
) => z.strictObject(withContractFields(shape, components, { region, reuse }));

// ---------------------------------------------------------------------------------------------
// Shared pieces

export const metadataSchema = z.strictObject({
  key: requiredString(1024),
  value: z.unknown().refine((v) => v !== undefined, { message: 'This field is required.', params: { code: 'required' } }),
});

const consentSchema = z.strictObject({
  type: requiredString(), // tenant-configured consent types: free string
  value: z.enum(E.CONSENT_VALUES),
  signed_at: opt(utcDateTimeString),
  description: optionalString(255),
});

// ---------------------------------------------------------------------------------------------
// Customers

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

const customerUserDetailSchema = z.strictObject({
  namespace: z.enum(E.CUSTOMER_DETAIL_NAMESPACES),
  value: z.union([z.string(), z.number(), z.boolean()]),
});

// ---------------------------------------------------------------------------------------------
// Addresses

/** The new-style billing address (`billing_address`), exclusive with billing_address1..5. */
export const addressSchema = strictWithContract(
  {
    country: requiredString(2),
    administrative_area: optionalString(512),
    dependent_locality: optionalString(512),
    locality: optionalString(512),
    postal_code: optionalString(512),
    sorting_code: optionalString(512),
    street_address: optionalString(),
    delivery_point_identifier: opt(deliveryPointIdentifier),
  },
  ['Address'],
);

// ---------------------------------------------------------------------------------------------
// Meter points

export const readingSchema = z.strictObject({
  register_id: optionalString(32),
  reading_date: dateString,
  reading_value: decimalString(),
  reading_type: z.enum(E.READING_TYPES),
});

export const historicalReadingSchema = readingSchema.extend({
  billed: z.boolean(),
  validation_status: opt(z.enum(E.READING_VALIDATION_STATUSES)),
});

export const electricityRegisterSchema = z.strictObject({
  register_id: requiredString(32),
  number_of_digits: integer.min(1).max(15),
  tpr: optionalString(),
  is_settlement: opt(z.boolean()),
  last_billed_to_date: opt(dateString),
});

export const prepaymentDetailsSchema = z.strictObject({
  credit_balance: decimalString(),
  debt_balance: decimalString(),
  transfer_vend_read_date: dateString,
});

export const gasPrepaymentDetailsSchema = prepaymentDetailsSchema.extend({
  gas_debt_repayment_options: opt(
    z.strictObject({
      weekly_min: opt(decimalString()),
      weekly_max: opt(decimalString()),
    }),
  ),
});

const meterCommon = {
  meter_serial_number: requiredString(32),
  installed_on: optNull(dateString),
  removed_on: optNull(dateString),
  is_prepay: opt(z.boolean()),
  prepay_customer_reference_number: optionalString(20),
  transfer_readings: list(readingSchema),
  reading_history: list(historicalReadingSchema),
  smart_type: opt(z.enum(E.SMART_TYPES)),
  smart_device_id: nullableString(),
  smart_commissioned_on: optNull(dateString),
};

export const electricityMeterSchema = z.strictObject({
  ...meterCommon,
  registers: list(electricityRegisterSchema),
  prepay_details: opt(prepaymentDetailsSchema),
});

export const gasMeterSchema = z.strictObject({
  ...meterCommon,
  gas_number_of_digits: integer.min(1).max(15),
  last_billed_to_date: opt(dateString),
  units_of_measure: opt(z.enum(E.GAS_UNITS_OF_MEASURE)),
  prepay_details: opt(gasPrepaymentDetailsSchema),
});

const agreementCommon = {
  tariff_code: requiredString(),
  effective_from: dateString,
  effective_to: optNull(dateString),
  agreed_at: optNull(utcDateTimeString),
  rates_agreed_at: optNull(utcDateTimeString),
  business_contract_identifier: nullableString(),
};
export const electricityAgreementSchema = strictWithContract(agreementCommon, ['ElectricityAgreement']);
export const gasAgreementSchema = strictWithContract(agreementCommon, ['GasAgreement']);

export const eacSchema = z.strictObject({
  effective_from: dateString,
  tpr: requiredString(16),
  consumption: decimalString(8, 2),
  source: optionalString(255),
});

export const aqSchema = z.strictObject({
  effective_from: dateString,
  effective_to: optNull(dateString),
  consumption: decimalString(8, 2),
  source: optionalString(255),
});

export const smartRefusalInterestSchema = z.strictObject({
  type: z.enum(E.SMART_REFUSAL_TYPES),
  date: dateString,
  refusal_reason: opt(z.enum(E.SMART_REFUSAL_REASONS)),
  source: opt(z.enum(E.SMART_REFUSAL_SOURCES)),
});

/** A meter point's VAT or CCL exemption (`EnergyTaxExemption`): rate is a proportion, 1.0 for all of it. */
export const taxExemptionSchema = z.strictObject({
  effective_from: dateString,
  effective_to: opt(dateString),
  rate: decimalString(1, 2),
});

const meterPointCommon = {
  mpid: requiredString(4),
  supply_start_date: dateString,
  supply_end_date: optNull(dateString),
  last_billed_to_date: opt(dateString),
  et_in_progress: optNull(z.boolean()),
  dr_in_progress: optNull(z.boolean()),
  smart_refusal_interest: opt(smartRefusalInterestSchema),
  ccl_exemptions: list(taxExemptionSchema),
  vat_exemptions: list(taxExemptionSchema),
};

const coded = (code: string, message: string) => ({ message, params: { code } });

export const electricityMeterPointSchema = strictWithContract(
  {
    supply_type: z.literal('ELECTRICITY'),
    identifier: requiredString().refine(
      (v) => v.trim() === '' || isMpanCore(v),
      coded('invalid_supply_point_identifier', 'An MPAN core is 13 digits ending in a valid check digit.'),
    ),
    ...meterPointCommon,
    profile_class: opt(integer),
    ssc: optionalString(),
    measurement_class: opt(z.enum(E.ELECTRICITY_MEASUREMENT_CLASSES)),
    export_type: opt(z.enum(E.ELECTRICITY_EXPORT_TYPES)),
    regular_reading_cycle: opt(z.enum(E.ELECTRICITY_READING_CYCLES)),
    is_deenergised: opt(z.boolean()),
    agreements: list(electricityAgreementSchema),
    meters: list(electricityMeterSchema),
    eac_history: list(eacSchema),
  },
  ['ElectricityMeterPoint'],
);

export const gasMeterPointSchema = strictWithContract(
  {
    supply_type: z.literal('GAS'),
    identifier: requiredString().refine((v) => v.trim() === '' || isMprn(v), coded('invalid_supply_point_identifier', 'An MPRN is 6 to 10 digits.')),
    ...meterPointCommon,
    shipper_mpid: requiredString(3),
    mam_to_appoint: nullableString(3),
    ldz: opt(z.enum(E.GAS_LDZS)),
    regular_reading_cycle: opt(z.enum(E.GAS_READING_CYCLES)),
    agreements: list(gasAgreementSchema),
    meters: list(gasMeterSchema),
    aq_history: list(aqSchema),
  },
  ['GasMeterPoint'],
);

export const meterPointSchema = z.discriminatedUnion('supply_type', [electricityMeterPointSchema, gasMeterPointSchema]);

// ---------------------------------------------------------------------------------------------
// Ledgers and transactions

const transactionCommon = {
  transaction_id: requiredString(),
  transaction_date: dateString,
  amount: decimalString(),
  note: optionalString(),
  display_note: optionalString(),
  billing_document_identifier: optionalString(),
  to_prepay_meter_serial_number: optionalString(),
};

const taxItemSchema = strictWithContract(
  {
    amount: decimalString(),
    rate: decimalString(15, 5),
    tax_type: requiredString(),
    unit_type: z.enum(['PROPORTION', 'CURRENCY_PER_KWH']),
    value_taxed: decimalString(15, 5),
  },
  ['TaxItem'],
);

const lineItemSchema = strictWithContract(
  {
    start_date: dateString,
    end_date: dateString,
    net_amount: decimalString(),
    number_of_units: decimalString(12, 4),
    price_per_unit: opt(decimalString(8, 7)),
    rate_band: optionalString(),
    rate_specification_code: optionalString(),
    time_series_specification_code: optionalString(),
    external_rate_identifier: optionalString(),
    units: list(decimalString(12, 4)),
  },
  ['LineItem'],
);

export const transactionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('CREDIT'), ...transactionCommon, reason: z.enum(E.CREDIT_REASONS) }),
  z.strictObject({
    type: z.literal('CHARGE'),
    ...transactionCommon,
    reason: z.enum(E.CHARGE_REASONS),
    tax_items: list(taxItemSchema),
  }),
  z.strictObject({
    type: z.literal('PAYMENT'),
    ...transactionCommon,
    reason: opt(z.enum(E.PAYMENT_REASONS)),
    payment_type: opt(z.enum(E.PAYMENT_TYPES)),
    reference: optionalString(),
  }),
  z.strictObject({
    type: z.literal('REPAYMENT'),
    ...transactionCommon,
    reason: opt(z.enum(E.REPAYMENT_REASONS)),
    payment_type: opt(z.enum(E.REPAYMENT_PAYMENT_TYPES)),
    reference: optionalString(),
  }),
  z.strictObject({
    type: z.literal('SUPPLY_CHARGE'),
    ...transactionCommon,
    product_code: requiredString(),
    supply_point_identifier: optionalString(),
    line_items: z.array(lineItemSchema),
    tax_items: list(taxItemSchema),
  }),
]);

/**
 * `ledgers` is not a property of EnergyAccount in the spec, yet the spec's validators and the
 * deprecated account-level fields (`x-use-instead: ledgers.*`) and its own example use it. Built
 * from `Ledger` plus those fields; ledger_code is optional because the example omits it.
 */
export const ledgerSchema = z.strictObject({
  ledger_code: optionalString(),
  ledger_identifier: optionalString(),
  ledger_balance: opt(decimalString()),
  last_statement_balance: opt(decimalString()),
  last_statement_closing_date: opt(dateString),
  last_statement_issue_date: opt(dateString),
  current_statement_transactions: list(transactionSchema),
  historical_statement_transactions: list(transactionSchema),
});

// ---------------------------------------------------------------------------------------------
// Payments

export const paymentScheduleSchema = z.strictObject({
  means: z.enum(E.PAYMENT_MEANS),
  start_date: dateString,
  end_date: optNull(dateString),
  amount: opt(decimalString(8, 2)),
  balance_threshold: opt(decimalString(8, 2)),
  day_of_month: optNull(integer),
  frequency: opt(z.enum(E.PAYMENT_FREQUENCIES)),
  trigger: opt(z.enum(E.PAYMENT_TRIGGERS)),
  is_debt_repayment_plan: opt(z.boolean()),
  debt_repayment_element: opt(decimalString(8, 2)),
  debt_repayment_end_date: opt(dateString),
  delay_days: opt(integer),
  delay_strategy: opt(z.enum(E.PAYMENT_SCHEDULE_DELAY_STRATEGIES)),
  exempt_from_payment_adequacy: opt(z.boolean()),
  ledger_code: optionalString(),
  paid_by: opt(z.enum(E.PAYMENT_PAID_BY)),
  instalments: list(strictWithContract({ amount: decimalString(8, 2), payment_date: dateString }, ['Payments'])),
});

const PAYMENT_VENDORS = ['STRIPE', 'BOTTOMLINE_GLOBAL_PAYMENTS_HUB', 'BOTTOMLINE_PTX', 'BOTTOMLINE_PTX_BATCHED'] as const;

export const paymentPreferenceSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('ACTIVE_EXISTING'),
    ledger_identifier: requiredString(),
    instruction_reference_params: z.strictObject({
      vendor_name: z.enum(PAYMENT_VENDORS),
      vendor_reference: requiredString(512),
    }),
  }),
  z.strictObject({
    type: z.literal('ACTIVE_NEW'),
    ledger_identifier: requiredString(),
    instruction_reference_params: z.strictObject({ instruction_identifier: requiredString(512) }),
  }),
  z.strictObject({ type: z.literal('PASSIVE'), ledger_identifier: requiredString() }),
]);

export const paymentInstructionSchema = z.strictObject({
  type: z.enum(['BPAY', 'CARD', 'CUSTOM', 'DIRECT_DEBIT', 'GMO_REFUND', 'PAYMENT_SLIP']),
  vendor: z.enum(PAYMENT_VENDORS),
  reference: requiredString(512),
  customer_reference: optionalString(512),
  instruction_identifier: optionalString(),
  ledger_code: optionalString(),
  use_for_scheduled_payments: opt(z.boolean()),
  valid_from: optNull(dateString),
});

// ---------------------------------------------------------------------------------------------
// Account-level lists

export const accountReferenceSchema = z.strictObject({
  namespace: requiredString(50),
  value: requiredString(100),
});

export const noteSchema = z.strictObject({
  body: optionalString(),
  created_at: opt(utcDateTimeString),
  document_paths: list(z.strictObject({ document_path: requiredString() })),
  external_id: optionalString(),
  is_archived: opt(z.boolean()),
  is_pinned: opt(z.boolean()),
  unpin_at: opt(utcDateTimeString),
});

export const statementSchema = z.strictObject({
  statement_id: requiredString(),
  bill_period_from_date: dateString,
  bill_period_to_date: dateString,
  statement_path: optionalString(),
  issued_date: optNull(dateString),
  gross_amount: optNull(integer),
  number: optionalString(),
});

/** slug and campaign_name are the tenant's own lists in the spec: free strings here. */
export const accountCampaignSchema = z.strictObject({
  slug: optionalString(),
  campaign_name: optionalString(),
  campaign_note: nullableString(),
  start_date: optNull(dateString),
  expiry_date: optNull(dateString),
});

export const debtSchema = z.strictObject({
  agency_name: optionalString(256),
  start_date: opt(dateString),
  is_insolvent: opt(z.boolean()),
  cais_reference: optionalString(),
  campaign: optionalString(256),
  notes: optionalString(256),
  aged_debt: list(z.strictObject({ debt_amount: opt(decimalString(8, 2)), due_date: opt(dateString) })),
});

/** The spec allows one deposit agreement an account (`multiple_active_deposits_not_allowed`, rules-account.ts). */
export const depositAgreementSchema = z.strictObject({
  accepted_at: optNull(utcDateTimeString),
  deposit_amount: decimalString(),
  fulfilled_at: optNull(utcDateTimeString),
  last_interest_date: optNull(dateString),
  reason: requiredString(),
});

export const dunningPathSchema = z.strictObject({
  path_name: requiredString(256),
  start_date: opt(dateString),
});

export const warmHomeDiscountSchema = z.strictObject({
  tax_year: optionalString(),
  account_type: opt(z.enum(E.WHD_ACCOUNT_TYPES)),
  group: opt(z.enum(E.WHD_GROUPS)),
});

export const accountBillingOptionsSchema = z.strictObject({
  period_length: optNull(z.enum(E.BILLING_PERIOD_LENGTHS)),
  period_length_multiplier: opt(integer),
  period_start_day: optNull(integer.min(1).max(28)),
  period_start_month: optNull(integer.min(1).max(12)),
  use_industry_billing: opt(z.boolean()),
});

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

  const customerSchema = strictWithContract(
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

  const propertyAdministratorSchema = strictWithContract(
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
