import type { Pool } from 'pg';
import { FileSourceAdapter } from './file-adapter';
import { PostgresSourceAdapter } from './postgres-adapter';
import { SourceAdapterError, sourceSpecSchema, type SourceAdapter, type SourceSpec } from './adapter-contract';

// The contract lives apart from the factory, so the adapters never import the module that imports them.
export * from './adapter-contract';

export function createSourceAdapter(spec: SourceSpec, deps: { pool?: Pool }): SourceAdapter {
  const s = sourceSpecSchema.parse(spec);
  if (s.kind === 'postgres') {
    if (!deps.pool) throw new SourceAdapterError('source_pool_missing', 'a postgres source needs a database pool');
    return new PostgresSourceAdapter(deps.pool);
  }
  return new FileSourceAdapter(s.path);
}
