import { z } from 'zod';
import * as E from './enums';
import { dateString, decimalString, integer, nullableString, optionalString, requiredString, utcDateTimeString } from './fields';
import { opt, optNull, list } from './account-common';

/**
 * The account's own lists and small objects: references, notes, statements, campaigns, debts,
 * deposit agreements, dunning path, Warm Home Discount.
 */

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
