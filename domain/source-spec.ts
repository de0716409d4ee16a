import { z } from 'zod';

/**
 * Where an import reads its accounts from: small and serialisable, it travels in Temporal workflow
 * inputs (never a payload: personal data stays in the source and the ledger). A legacy file's
 * format is its extension (.jsonl, .csv); a payload file is JSONL, optionally gzipped; a payload
 * table has `external_account_number` and `payload jsonb`. The adapters that read each kind are in
 * source/adapter.ts.
 */

/** A legacy export file: its extension is its format. */
export const LEGACY_FILE_PATTERN = /\.(jsonl|csv)$/i;
/** A team's own payload file: one EnergyAccount a line, optionally gzipped. */
export const PAYLOAD_FILE_PATTERN = /\.jsonl(\.gz)?$/i;
/** Any source file, with its extension (a change feed sits beside it: source/changes.ts). */
export const SOURCE_FILE_PATTERN = /\.(jsonl|csv|jsonl\.gz)$/i;

/** A folder, or `s3://bucket/prefix`, holding the files a payload's document paths name. */
const documentsSchema = z.string().min(1).optional();

export const sourceSpecSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('postgres') }),
  z.object({ kind: z.literal('file'), path: z.string().regex(LEGACY_FILE_PATTERN, 'a .jsonl or .csv file') }),
  z.object({ kind: z.literal('payloads'), path: z.string().regex(PAYLOAD_FILE_PATTERN, 'a .jsonl or .jsonl.gz file'), documents: documentsSchema }),
  z.object({
    kind: z.literal('payloads-table'),
    table: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$/, 'schema.table (letters, digits and _)'),
    documents: documentsSchema,
  }),
]);
export type SourceSpec = z.infer<typeof sourceSpecSchema>;
export type LegacySourceSpec = Extract<SourceSpec, { kind: 'postgres' | 'file' }>;
export type PayloadSourceSpec = Extract<SourceSpec, { kind: 'payloads' | 'payloads-table' }>;

export const isPayloadSpec = (spec: SourceSpec): spec is PayloadSourceSpec => spec.kind === 'payloads' || spec.kind === 'payloads-table';
