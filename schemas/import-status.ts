import { z } from 'zod';

/**
 * `GET /v2/data-import/accounts/{import_supplier_code}/{external_identifier}/` (ImportStatusResponse).
 * The spec types `status` as a free string: the values below are the ones its examples show. Any
 * other string is read (never a parse failure); `isKnownImportStatus` tells the caller, which keeps
 * polling on a status it does not know.
 * Timestamps carry a zone offset in the spec's examples (`+02:00`), so any ISO offset is accepted.
 */

export const IMPORT_STATUSES = ['PENDING', 'IN_PROGRESS', 'PROCESSED', 'ERRORED', 'CANCELLED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED'] as const;
export const importStatusSchema = z.enum(IMPORT_STATUSES);
export type ImportStatus = z.infer<typeof importStatusSchema>;

export function isKnownImportStatus(status: string): status is ImportStatus {
  return (IMPORT_STATUSES as readonly string[]).includes(status);
}

/** No further change will happen to an import in these states. */
export const TERMINAL_IMPORT_STATUSES: ReadonlySet<ImportStatus> = new Set(['PROCESSED', 'ERRORED', 'CANCELLED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED']);

const timestamp = z.iso.datetime({ offset: true });

export const importErrorSchema = z.object({
  code: z.string().nullable().optional(),
  detail: z.string().nullable().optional(),
  domain: z.string().nullable().optional(),
});

export const importEventSchema = z.object({
  event: z.string(),
  occurred_at: timestamp,
  data: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const importStatusResponseSchema = z.object({
  status: z.string().min(1),
  kraken_identifier: z.string().nullable().optional(),
  created_at: timestamp,
  modified_at: timestamp,
  latest_event: importEventSchema,
  // Not nullable in the spec's schema, but its examples send null.
  latest_error: importErrorSchema.nullable().optional(),
});
export type ImportStatusResponse = z.infer<typeof importStatusResponseSchema>;
