import type { Pool } from 'pg';
import { FileSourceAdapter } from './file-adapter';
import { PostgresSourceAdapter } from './postgres-adapter';
import {
  SourceAdapterError,
  sourceSpecSchema,
  type LegacySourceSpec,
  type PayloadSource,
  type PayloadSourceSpec,
  type SourceAdapter,
} from './adapter-contract';
import { PayloadFileSource } from './payload-file';
import { PayloadTableSource } from './payload-table';

// The contract lives apart from the factory, so the adapters never import the module that imports them.
export * from './adapter-contract';

export function createSourceAdapter(spec: LegacySourceSpec, deps: { pool?: Pool }): SourceAdapter {
  const s = sourceSpecSchema.parse(spec);
  if (s.kind === 'postgres') {
    if (!deps.pool) throw new SourceAdapterError('source_pool_missing', 'a postgres source needs a database pool');
    return new PostgresSourceAdapter(deps.pool);
  }
  if (s.kind !== 'file') throw new SourceAdapterError('source_kind_mismatch', `a ${s.kind} source holds payloads, not legacy records`);
  return new FileSourceAdapter(s.path);
}

export function createPayloadSource(spec: PayloadSourceSpec, deps: { pool?: Pool }): PayloadSource {
  const s = sourceSpecSchema.parse(spec);
  if (s.kind === 'payloads') return new PayloadFileSource(s.path);
  if (s.kind !== 'payloads-table') throw new SourceAdapterError('source_kind_mismatch', `a ${s.kind} source holds legacy records, not payloads`);
  if (!deps.pool) throw new SourceAdapterError('source_pool_missing', 'a payload table needs a database pool');
  return new PayloadTableSource(deps.pool, s.table);
}
