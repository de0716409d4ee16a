import { z } from 'zod';
import * as E from './enums';
import { dateString, decimalString, deliveryPointIdentifier, integer, optionalString, requiredString } from './fields';
import { opt, optNull, list, strictWithContract } from './account-common';

/**
 * What the account is billed and paid with: the new-style billing address, billing options, ledgers
 * and statement transactions, payment schedules, preferences and instructions.
 */

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

export const accountBillingOptionsSchema = z.strictObject({
  period_length: optNull(z.enum(E.BILLING_PERIOD_LENGTHS)),
  period_length_multiplier: opt(integer),
  period_start_day: optNull(integer.min(1).max(28)),
  period_start_month: optNull(integer.min(1).max(12)),
  use_industry_billing: opt(z.boolean()),
});

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
