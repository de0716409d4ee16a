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

/** Small and serialisable: travels in Temporal workflow inputs. A file's format is its extension (.jsonl, .csv). */
export const sourceSpecSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('postgres') }),
  z.object({ kind: z.literal('file'), path: z.string().regex(/\.(jsonl|csv)$/i, 'a .jsonl or .csv file') }),
]);
export type SourceSpec = z.infer<typeof sourceSpecSchema>;

export class SourceAdapterError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SourceAdapterError';
  }
}

