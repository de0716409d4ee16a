import type { PostImportKindName } from '../domain/post-import-kinds';
import { z } from 'zod';
import { isCalendarDate, isDecimalString, isUtcDateTime } from './formats';

/**
 * What the pipeline sends to the platform's v1 post-import endpoints (`notes/create`,
 * `transactions/create`, `historical-statements/create`, `payment-instruction/create`): the
 * documented fields it uses, each item with the identifier the spec offers for it, which is also
 * what makes a resend harmless (see README "Changes after import").
 */

const date = z.string().refine(isCalendarDate, { message: 'must be a date YYYY-MM-DD', params: { code: 'invalid' } });
const dateTime = z.string().refine(isUtcDateTime, { message: 'must be a UTC datetime YYYY-MM-DDTHH:MM:SSZ', params: { code: 'invalid' } });
const decimal = z.string().refine((v) => isDecimalString(v), { message: 'must be a decimal string', params: { code: 'invalid' } });

/** A note. The platform creates a note unless one with the same body and `created_at` exists, so `created_at` is always sent. */
export const postImportNoteSchema = z.object({
  external_id: z.string().min(1),
  body: z.string().min(1),
  created_at: dateTime,
  is_pinned: z.boolean().optional(),
});

/** A transaction; `check_previously_added` (default true, always sent) makes the id the dedupe key. */
export const postImportTransactionSchema = z.object({
  transaction_id: z.string().min(1),
  transaction_date: date,
  amount: decimal,
  type: z.enum(['CREDIT', 'CHARGE', 'PAYMENT', 'REPAYMENT']),
  reason: z.string().min(1).optional(),
  payment_type: z.string().min(1).optional(),
  reference: z.string().min(1).optional(),
  display_note: z.string().optional(),
  note: z.string().optional(),
});

/** A historical statement; its PDF is staged to `statement_path` first. */
export const postImportStatementSchema = z.object({
  statement_id: z.string().min(1),
  bill_period_from_date: date,
  bill_period_to_date: date,
  issued_date: date.optional(),
  number: z.string().optional(),
  gross_amount: z.number().int().optional(),
  statement_path: z.string().min(1),
});

export const postImportPaymentInstructionSchema = z.object({
  vendor: z.enum(['STRIPE', 'BOTTOMLINE_GLOBAL_PAYMENTS_HUB', 'BOTTOMLINE_PTX', 'BOTTOMLINE_PTX_BATCHED']),
  type: z.enum(['BPAY', 'CARD', 'CUSTOM', 'DIRECT_DEBIT', 'GMO_REFUND', 'PAYMENT_SLIP']),
  reference: z.string().min(1).max(512),
  valid_from: date.optional(),
});

export { POST_IMPORT_KINDS, RESOURCE_TYPE_OF } from '../domain/post-import-kinds';
export type PostImportKind = PostImportKindName;

/** One change to carry over; `key` is the item's identifier (external_id, transaction_id, statement_id, reference). */
export const postImportItemSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('note'), item: postImportNoteSchema }),
  z.object({ kind: z.literal('transaction'), item: postImportTransactionSchema }),
  z.object({ kind: z.literal('statement'), item: postImportStatementSchema }),
  z.object({ kind: z.literal('payment_instruction'), item: postImportPaymentInstructionSchema }),
]);
export type PostImportItem = z.infer<typeof postImportItemSchema>;

/** The identifier the spec offers for an item, which the ledger keys it by. */
export function itemKey(i: PostImportItem): string {
  switch (i.kind) {
    case 'note':
      return i.item.external_id;
    case 'transaction':
      return i.item.transaction_id;
    case 'statement':
      return i.item.statement_id;
    case 'payment_instruction':
      return i.item.reference;
  }
}
