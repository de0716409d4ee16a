import type pg from 'pg';
import { z } from 'zod';
import { supplierStatusSchema, type SupplierSeed, type SupplierStatus } from './options';

export interface Supplier {
  code: string;
  document_root: string;
  status: SupplierStatus;
}

/** `PUT /admin/suppliers/:code`; statuses are accepted in any case (`Paused` as the brief writes them). */
export const supplierPatchSchema = z
  .object({
    status: z.preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), supplierStatusSchema).optional(),
    document_root: z.string().optional(),
  })
  .strict();
export type SupplierPatch = z.infer<typeof supplierPatchSchema>;

/**
 * Import suppliers live in Postgres; a copy is kept in memory because every schedule request reads
 * one. The sandbox is one process, so writes through this store keep the copy exact.
 */
export class SupplierStore {
  private cache = new Map<string, Supplier>();

  constructor(private readonly pool: pg.Pool) {}

  async load(): Promise<void> {
    const r = await this.pool.query<Supplier>('SELECT code, document_root, status FROM sandbox.import_suppliers');
    this.cache = new Map(r.rows.map((s) => [s.code, s]));
  }

  /** Adds seeded suppliers that are missing; an operator's later changes are kept across restarts. */
  async seed(seeds: SupplierSeed[], overwrite = false): Promise<void> {
    for (const s of seeds) {
      await this.pool.query(
        `INSERT INTO sandbox.import_suppliers (code, document_root, status) VALUES ($1, $2, $3)
         ON CONFLICT (code) DO ${overwrite ? 'UPDATE SET document_root = EXCLUDED.document_root, status = EXCLUDED.status, modified_at = now()' : 'NOTHING'}`,
        [s.code, s.documentRoot, s.status],
      );
    }
    await this.load();
  }

  get(code: string): Supplier | undefined {
    return this.cache.get(code);
  }

  list(): Supplier[] {
    return [...this.cache.values()].sort((a, b) => a.code.localeCompare(b.code));
  }

  async upsert(code: string, patch: SupplierPatch): Promise<Supplier> {
    const r = await this.pool.query<Supplier>(
      `INSERT INTO sandbox.import_suppliers (code, document_root, status) VALUES ($1, COALESCE($2, ''), COALESCE($3, 'ONGOING'))
       ON CONFLICT (code) DO UPDATE SET
         document_root = COALESCE($2, sandbox.import_suppliers.document_root),
         status = COALESCE($3, sandbox.import_suppliers.status),
         modified_at = now()
       RETURNING code, document_root, status`,
      [code, patch.document_root ?? null, patch.status ?? null],
    );
    this.cache.set(code, r.rows[0]);
    return r.rows[0];
  }
}

/** `<document_root>/<path without leading slash>`: the platform's document-path rule. */
export function documentKey(documentRoot: string, payloadPath: string): string {
  const root = documentRoot.replace(/^\/+|\/+$/g, '');
  const rel = payloadPath.replace(/^\/+/, '');
  return root ? `${root}/${rel}` : rel;
}
