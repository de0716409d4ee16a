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

// The source spec is a shared contract (it travels in workflow inputs): defined in domain/source-spec.ts.
export { isPayloadSpec, sourceSpecSchema, type LegacySourceSpec, type PayloadSourceSpec, type SourceSpec } from '../domain/source-spec';

/** One account's payload as the team wrote it, or why it cannot be read (the account fails at `source`). */
export type PayloadRead = { ok: true; payload: unknown; where: string } | { ok: false; code: string; attr?: string; detail: string };

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

// Apart (source/adapter-error.ts) so the CLI's error mapping loads no zod when a command is declared.
export { SourceAdapterError } from './adapter-error';
