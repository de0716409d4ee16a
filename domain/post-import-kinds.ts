/**
 * The kinds of item carried over after import, and what the platform calls them. Plain constants
 * (no zod) so the post-import workflow can use them; schemas/post-import.ts validates the items.
 */
export const POST_IMPORT_KINDS = ['note', 'transaction', 'statement', 'payment_instruction'] as const;
export type PostImportKindName = (typeof POST_IMPORT_KINDS)[number];

/** The `resource_type` of `post_import.*` events for each kind (the catalogue names none; ours, see sandbox/README.md). */
export const RESOURCE_TYPE_OF: Record<PostImportKindName, string> = {
  note: 'NOTE',
  transaction: 'TRANSACTION',
  statement: 'STATEMENT',
  payment_instruction: 'PAYMENT_INSTRUCTION',
};

/** Where a post-import item's error points, in the request body the client sent (one item each). */
export const ERROR_ATTR_OF: Record<PostImportKindName, string> = {
  note: 'notes.0',
  transaction: 'transactions.0',
  statement: 'statements.0',
  payment_instruction: 'non_field_errors',
};
