import { z } from 'zod';

/**
 * `ImportProcess`, one element of the `query` tag's lists (`all-`, `imported-`,
 * `pending-account-import-processes/{import_supplier_code}/`): what the tenant holds for a supplier,
 * whoever imported it. The operations' descriptions say a pending account has
 * `kraken_account_number` and `account_created_at` null, though the schema types both as strings:
 * both are read as nullable. Only the external account number is required, as in the schema.
 */
export const importProcessSchema = z.object({
  external_account_number: z.string().min(1).max(128),
  kraken_account_number: z.string().max(128).nullish(),
  account_created_at: z.iso.datetime({ offset: true }).nullish(),
});
export type ImportProcess = z.infer<typeof importProcessSchema>;

export const IMPORT_PROCESS_LISTS = ['all', 'imported', 'pending'] as const;
export type ImportProcessList = (typeof IMPORT_PROCESS_LISTS)[number];

/** `AccountTransferStatus` (`account-transfer-status/{supplier}/{external}/`). */
export const accountTransferStatusSchema = z.object({
  status: z.enum(['UNKNOWN', 'COMPLETED', 'IN_PROGRESS']),
  kraken_account_number: z.string().optional(),
  account_number: z.string().optional(),
});
export type AccountTransferStatus = z.infer<typeof accountTransferStatusSchema>;
