import { z } from 'zod';
import * as E from './enums';
import { dateString, decimalString, integer, nullableString, optionalString, requiredString, utcDateTimeString } from './fields';
import { isMpanCore, isMprn } from './formats';
import { opt, optNull, list, strictWithContract, coded } from './account-common';

/**
 * Meter points (electricity and gas, discriminated by `supply_type`) with their meters, registers,
 * readings, agreements, consumption histories, smart refusal interest and tax exemptions.
 */

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
