import type pg from 'pg';

export const POST_IMPORT_RESOURCE_TYPES = ['NOTE', 'TRANSACTION', 'STATEMENT', 'PAYMENT_INSTRUCTION'] as const;
export type PostImportResourceType = (typeof POST_IMPORT_RESOURCE_TYPES)[number];

export interface ImportedAccount {
  number: string;
  import_supplier: string;
  external_identifier: string;
  import_process_id: number;
  payload: unknown;
}

/** The account created from an import, with the payload it was created from. */
export async function accountByNumber(pool: pg.Pool, number: string): Promise<ImportedAccount | undefined> {
  const r = await pool.query<ImportedAccount>(
    `SELECT a.number, a.import_supplier, a.external_identifier, a.import_process_id, p.payload
     FROM sandbox.accounts a JOIN sandbox.import_processes p ON p.id = a.import_process_id WHERE a.number = $1`,
    [number],
  );
  return r.rows[0] && { ...r.rows[0], import_process_id: Number(r.rows[0].import_process_id) };
}

export async function accountByExternal(pool: pg.Pool, supplier: string, externalIdentifier: string): Promise<ImportedAccount | undefined> {
  const r = await pool.query<{ number: string }>('SELECT number FROM sandbox.accounts WHERE import_supplier = $1 AND external_identifier = $2', [
    supplier,
    externalIdentifier,
  ]);
  return r.rows[0] ? accountByNumber(pool, r.rows[0].number) : undefined;
}

export interface NewItem {
  resourceType: PostImportResourceType;
  sourceKey: string;
  dedupeKey: string;
  data: unknown;
}

export type InsertResult = { kind: 'created'; id: number } | { kind: 'exists'; id: number };

/**
 * Inside the caller's transaction, which holds the account row lock (`lockAccount`): counts the
 * request, then creates the item unless one with the same dedupe key exists (when `dedupe`).
 */
export async function insertItem(client: pg.PoolClient, account: string, item: NewItem, dedupe: boolean): Promise<InsertResult> {
  await client.query(
    `INSERT INTO sandbox.post_import_requests (account_number, resource_type, source_key, request_count) VALUES ($1, $2, $3, 1)
     ON CONFLICT (account_number, resource_type, source_key) DO UPDATE SET request_count = sandbox.post_import_requests.request_count + 1`,
    [account, item.resourceType, item.sourceKey],
  );
  if (dedupe) {
    const prior = await client.query<{ id: string }>(
      'SELECT id FROM sandbox.post_import_items WHERE account_number = $1 AND resource_type = $2 AND dedupe_key = $3 ORDER BY id LIMIT 1',
      [account, item.resourceType, item.dedupeKey],
    );
    if (prior.rowCount) return { kind: 'exists', id: Number(prior.rows[0].id) };
  }
  const r = await client.query<{ id: string }>(
    `INSERT INTO sandbox.post_import_items (account_number, resource_type, source_key, dedupe_key, data) VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING id`,
    [account, item.resourceType, item.sourceKey, item.dedupeKey, JSON.stringify(item.data)],
  );
  return { kind: 'created', id: Number(r.rows[0].id) };
}

/** Serialises post-import requests of one account, so the dedupe check and the insert are one step. */
export async function lockAccount(client: pg.PoolClient, number: string): Promise<void> {
  await client.query('SELECT 1 FROM sandbox.accounts WHERE number = $1 FOR UPDATE', [number]);
}

/** The active payment instruction's reference (the latest one), if any. */
export async function activePaymentInstruction(client: pg.PoolClient, account: string): Promise<string | undefined> {
  const r = await client.query<{ source_key: string }>(
    `SELECT source_key FROM sandbox.post_import_items WHERE account_number = $1 AND resource_type = 'PAYMENT_INSTRUCTION' ORDER BY id DESC LIMIT 1`,
    [account],
  );
  return r.rows[0]?.source_key;
}

export interface PostImportTruthRow {
  import_supplier: string;
  external_identifier: string;
  account_number: string;
  resource_type: PostImportResourceType;
  source_key: string;
  created_count: number;
  request_count: number;
}

/** One row per item a client asked for: how often it was created (more than once = a duplicate) and requested. */
export async function postImportGroundTruth(pool: pg.Pool, supplier?: string): Promise<PostImportTruthRow[]> {
  const r = await pool.query<PostImportTruthRow>(
    `SELECT a.import_supplier, a.external_identifier, a.number AS account_number, q.resource_type, q.source_key,
       (SELECT count(*) FROM sandbox.post_import_items i
         WHERE i.account_number = q.account_number AND i.resource_type = q.resource_type AND i.source_key = q.source_key)::int AS created_count,
       q.request_count
     FROM sandbox.post_import_requests q JOIN sandbox.accounts a ON a.number = q.account_number
     WHERE $1::text IS NULL OR a.import_supplier = $1
     ORDER BY a.import_supplier, a.external_identifier, q.resource_type, q.source_key`,
    [supplier ?? null],
  );
  return r.rows;
}
