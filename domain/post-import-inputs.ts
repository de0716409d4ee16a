import { z } from 'zod';
import { sourceSpecSchema } from './source-spec';
import { TIMING_DEFAULTS } from './timing-defaults';

/**
 * Inputs and results of the after-import work: reconciliation and changes carried over (docs/operator-guide.md, "After creation"). References and counts only: items and account values stay in the ledger.
 */

export const accountDeltaInputSchema = z.object({
  deltaId: z.string().min(1),
  runId: z.string().min(1),
  supplierCode: z.string().min(1),
  externalAccountNumber: z.string().min(1),
  accountNumber: z.string().min(1),
  source: sourceSpecSchema,
  /** Also resend items recorded `post_import_failed` (`run rerun-failed --stage post-import`). */
  retryFailed: z.boolean().default(false),
  /** How long to wait for an item's `post_import.*` event before asking again. */
  eventWaitSeconds: z.number().positive().default(TIMING_DEFAULTS.eventWaitSeconds),
  /** How often to ask again (re-send, which the platform deduplicates) before giving up on an item. */
  maxAsks: z.number().int().min(1).max(20).default(5),
});
export type AccountDeltaInput = z.input<typeof accountDeltaInputSchema>;
export type AccountDeltaArgs = z.infer<typeof accountDeltaInputSchema>;

export const deltaRunInputSchema = z.object({
  deltaId: z.string().min(1),
  runId: z.string().min(1),
  supplierCode: z.string().min(1),
  source: sourceSpecSchema,
  /** `completed`: every completed account of the run; `failed_items`: accounts with post_import_failed items. */
  accounts: z.enum(['completed', 'failed_items']).default('completed'),
  concurrency: z.number().int().min(1).max(200).default(20),
  eventWaitSeconds: z.number().positive().default(TIMING_DEFAULTS.eventWaitSeconds),
  /** Carried across continue-as-new: where the account listing stands, totals so far. */
  state: z
    .object({
      after: z.string().optional(),
      totals: z.object({ accounts: z.number(), items: z.number(), completed: z.number(), failed: z.number(), failedByCode: z.record(z.string(), z.number()) }),
    })
    .optional(),
});
export type DeltaRunInput = z.input<typeof deltaRunInputSchema>;
export type DeltaRunArgs = z.infer<typeof deltaRunInputSchema>;

export interface AccountDeltaResult {
  externalAccountNumber: string;
  items: number;
  completed: number;
  failed: number;
  failedByCode: Record<string, number>;
}

export interface DeltaRunResult {
  deltaId: string;
  accounts: number;
  items: number;
  completed: number;
  failed: number;
  failedByCode: Record<string, number>;
}

export interface ReconcileResult {
  status: 'matched' | 'differing' | 'account_missing';
  checked: number;
  differing: number;
  /** Leaves the payload determines that the platform's record does not contain (not checked). Absent from results recorded before it existed. */
  unverified?: number;
  /** Fields that differ, indexes as `*` (`customers.*.family_name`): paths only, never values. */
  fields: string[];
  /** Fields not in the platform's record, indexes as `*`: names only. */
  unverifiedFields?: string[];
}

export type { PostImportKindName } from './post-import-kinds';
import type { PostImportKindName } from './post-import-kinds';

export interface ItemRefInput {
  supplierCode: string;
  externalAccountNumber: string;
  kind: PostImportKindName;
  key: string;
}

export type SendItemResult = { kind: 'accepted'; sentAtMs: number } | { kind: 'already_exists' } | { kind: 'failed'; code: string; attr: string };
