import { z } from 'zod';
import type { SourceAccount } from './types';

/**
 * Where legacy accounts come from. One interface for the legacy database and for export files,
 * so the pipeline never knows which it reads.
 */
export interface SourceAdapter {
  /** Keyset page of distinct external account numbers, ascending, strictly after `after`. */
  listAccountNumbers(opts: { after?: string; limit: number }): Promise<string[]>;
  getAccount(externalAccountNumber: string): Promise<SourceAccount | undefined>;
  /** Every account once, in batches; never the whole source in memory. */
  stream(opts?: { batchSize?: number }): AsyncIterable<SourceAccount>;
  close(): Promise<void>;
}

/** A folder, or `s3://bucket/prefix`, holding the files a payload's document paths name. */
const documentsSchema = z.string().min(1).optional();

/**
 * Small and serialisable: travels in Temporal workflow inputs (never a payload: personal data stays
 * in the source and the ledger). A legacy file's format is its extension (.jsonl, .csv); a payload
 * file is JSONL, optionally gzipped; a payload table has `external_account_number` and `payload jsonb`.
 */
export const sourceSpecSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('postgres') }),
  z.object({ kind: z.literal('file'), path: z.string().regex(/\.(jsonl|csv)$/i, 'a .jsonl or .csv file') }),
  z.object({ kind: z.literal('payloads'), path: z.string().regex(/\.jsonl(\.gz)?$/i, 'a .jsonl or .jsonl.gz file'), documents: documentsSchema }),
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

/** One account's payload as the team wrote it, or why it cannot be read (the account fails at `source`). */
export type PayloadRead =
  | { ok: true; payload: unknown; where: string }
  | { ok: false; code: string; attr?: string; detail: string };

/**
 * Where a team's own EnergyAccount payloads come from (a file or a table). Accounts are named by the
 * payload's own `external_account_number`; a line that has none (not JSON, not an object, too
 * large, no number) is an account of its own named `#line-<n>`, so it fails alone.
 */
export interface PayloadSource {
  /** Keyset page of distinct external account numbers, ascending, strictly after `after`. */
  listAccountNumbers(opts: { after?: string; limit: number }): Promise<string[]>;
  getPayload(externalAccountNumber: string): Promise<PayloadRead | undefined>;
  close(): Promise<void>;
}

export const PAYLOAD_CODES = {
  invalidJson: 'invalid_json',
  notAnObject: 'payload_not_an_object',
  tooLarge: 'payload_too_large',
  duplicate: 'duplicate_external_account_number',
} as const;

export class SourceAdapterError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SourceAdapterError';
  }
}

