import type { Pool, PoolClient } from 'pg';
import { writeDocuments } from './dataset-files';
import type { DatasetItem } from './generator';
import { type CodeMapping, defaultMapping } from '../../source/mapping';
import type { SourceRecord } from '../../source/types';

/**
 * Loads a generated dataset into the `legacy` schema: per batch of accounts, one
 * `INSERT … SELECT * FROM unnest($1::bigint[], $2::text[], …)` per table (a handful of round
 * trips for thousands of rows), in one transaction per batch. Documents go to `documentsDir`,
 * ground truth to legacy.expected_outcomes.
 */

type PgType = 'bigint' | 'int' | 'text' | 'bool' | 'jsonb';
type Columns = ReadonlyArray<readonly [string, PgType]>;

const TABLES: Record<string, Columns> = {
  accounts: [
    ['account_id', 'bigint'],
    ['account_number', 'text'],
    ['brand', 'text'],
    ['account_type', 'text'],
    ['opened_on', 'text'],
    ['billing_name', 'text'],
    ['billing_line1', 'text'],
    ['billing_line2', 'text'],
    ['billing_town', 'text'],
    ['billing_county', 'text'],
    ['billing_postcode', 'text'],
    ['billing_email', 'text'],
    ['payment_method', 'text'],
    ['comms_pref', 'text'],
    ['last_billed_to', 'text'],
  ],
  contacts: [
    ['contact_id', 'bigint'],
    ['account_id', 'bigint'],
    ['is_primary', 'bool'],
    ['title', 'text'],
    ['first_name', 'text'],
    ['surname', 'text'],
    ['date_of_birth', 'text'],
    ['email', 'text'],
    ['mobile_phone', 'text'],
    ['home_phone', 'text'],
  ],
  balances: [
    ['account_id', 'bigint'],
    ['balance', 'text'],
    ['as_of', 'text'],
  ],
  supply_addresses: [
    ['supply_address_id', 'bigint'],
    ['account_id', 'bigint'],
    ['line1', 'text'],
    ['line2', 'text'],
    ['town', 'text'],
    ['county', 'text'],
    ['postcode', 'text'],
    ['occupied_from', 'text'],
    ['occupied_to', 'text'],
  ],
  meter_points: [
    ['meter_point_id', 'bigint'],
    ['supply_address_id', 'bigint'],
    ['fuel', 'text'],
    ['mpxn', 'text'],
    ['gsp_group', 'text'],
    ['supplier_mpid', 'text'],
    ['shipper_mpid', 'text'],
    ['profile_class', 'int'],
    ['ssc', 'text'],
    ['annual_consumption', 'text'],
    ['supply_start', 'text'],
    ['supply_end', 'text'],
  ],
  agreements: [
    ['agreement_id', 'bigint'],
    ['meter_point_id', 'bigint'],
    ['tariff_code', 'text'],
    ['start_date', 'text'],
    ['end_date', 'text'],
  ],
  meters: [
    ['meter_id', 'bigint'],
    ['meter_point_id', 'bigint'],
    ['serial_number', 'text'],
    ['meter_type', 'text'],
    ['installed_on', 'text'],
    ['removed_on', 'text'],
    ['dial_digits', 'int'],
  ],
  registers: [
    ['register_row_id', 'bigint'],
    ['meter_id', 'bigint'],
    ['register_code', 'text'],
    ['tpr', 'text'],
    ['digits', 'int'],
  ],
  readings: [
    ['reading_id', 'bigint'],
    ['meter_id', 'bigint'],
    ['register_code', 'text'],
    ['read_date', 'text'],
    ['read_value', 'text'],
    ['read_type', 'text'],
    ['is_transfer', 'bool'],
    ['billed', 'bool'],
  ],
  transactions: [
    ['transaction_id', 'bigint'],
    ['account_id', 'bigint'],
    ['posted_on', 'text'],
    ['amount', 'text'],
    ['txn_type', 'text'],
    ['method', 'text'],
    ['description', 'text'],
  ],
  payment_schedules: [
    ['schedule_id', 'bigint'],
    ['account_id', 'bigint'],
    ['method', 'text'],
    ['amount', 'text'],
    ['frequency', 'text'],
    ['day_of_month', 'int'],
    ['start_date', 'text'],
    ['end_date', 'text'],
  ],
  documents: [
    ['document_id', 'bigint'],
    ['account_id', 'bigint'],
    ['kind', 'text'],
    ['file_name', 'text'],
    ['storage_path', 'text'],
    ['mime_type', 'text'],
  ],
  notes: [
    ['note_id', 'bigint'],
    ['account_id', 'bigint'],
    ['created_at', 'text'],
    ['body', 'text'],
    ['document_id', 'bigint'],
  ],
  bills: [
    ['bill_id', 'bigint'],
    ['account_id', 'bigint'],
    ['period_from', 'text'],
    ['period_to', 'text'],
    ['issued_on', 'text'],
    ['amount', 'text'],
    ['document_id', 'bigint'],
  ],
  expected_outcomes: [
    ['account_number', 'text'],
    ['defect', 'text'],
    ['expected', 'jsonb'],
  ],
};

/** Parent tables first (foreign keys). */
const ORDER = Object.keys(TABLES);

type Row = Record<string, unknown>;

async function insertRows(client: PoolClient, table: string, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const cols = TABLES[table];
  const arrays = cols.map(([name, type]) => rows.map((r) => (type === 'jsonb' ? JSON.stringify(r[name]) : (r[name] ?? null))));
  const casts = cols.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  await client.query(`INSERT INTO legacy.${table} (${cols.map(([n]) => n).join(', ')}) SELECT * FROM unnest(${casts})`, arrays);
}

function collect(record: SourceRecord, into: Record<string, Row[]>): void {
  into.accounts.push(record.account);
  into.contacts.push(...record.contacts);
  if (record.balance) into.balances.push(record.balance);
  for (const sa of record.supply_addresses) {
    into.supply_addresses.push(sa);
    for (const mp of sa.meter_points) {
      into.meter_points.push(mp);
      into.agreements.push(...mp.agreements);
      for (const m of mp.meters) {
        into.meters.push(m);
        into.registers.push(...m.registers);
        into.readings.push(...m.readings);
      }
    }
  }
  into.transactions.push(...record.transactions);
  into.payment_schedules.push(...record.payment_schedules);
  into.documents.push(...record.documents);
  into.notes.push(...record.notes);
  into.bills.push(...record.bills);
}

export interface LoadedDataset {
  accounts: number;
  records: number;
  rows: number;
  documents: number;
  ms: number;
}

export async function writeDatasetToPostgres(
  pool: Pool,
  dataset: Iterable<DatasetItem>,
  opts: { documentsDir: string; batchSize?: number; mapping?: CodeMapping; onProgress?: (accounts: number) => void },
): Promise<LoadedDataset> {
  const started = Date.now();
  const batchSize = opts.batchSize ?? 1000;
  const mapping = opts.mapping ?? defaultMapping();
  const tariffs = Object.entries(mapping.tariffs);
  await pool.query(
    `INSERT INTO legacy.tariffs (tariff_code, fuel, description) SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) ON CONFLICT DO NOTHING`,
    [tariffs.map(([c]) => c), tariffs.map(([, t]) => t.fuel), tariffs.map(([c, t]) => `${c} (${t.product_code})`)],
  );
  let accounts = 0;
  let records = 0;
  let rows = 0;
  let documents = 0;
  const made = new Set<string>();
  const emptyBatch = (): Record<string, Row[]> => Object.fromEntries(ORDER.map((t) => [t, []]));

  const insertBatch = async (batch: Record<string, Row[]>, docs: DatasetItem['documents'], upTo: number) => {
    // The batch's files are written while its rows are inserted.
    const writing = writeDocuments(opts.documentsDir, docs, made);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      for (const table of ORDER) {
        await insertRows(client, table, batch[table]);
        rows += batch[table].length;
      }
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      await writing.catch(() => {});
      throw e;
    } finally {
      client.release();
    }
    documents += await writing;
    opts.onProgress?.(upTo);
  };

  // Generating the next batch (CPU, here) overlaps inserting the previous one (in Postgres).
  let inflight: Promise<void> = Promise.resolve();
  let batch = emptyBatch();
  let docs: DatasetItem['documents'] = [];
  let pending = 0;
  const flush = async () => {
    if (pending === 0) return;
    await inflight;
    inflight = insertBatch(batch, docs, accounts);
    inflight.catch(() => {}); // observed by the next await
    batch = emptyBatch();
    docs = [];
    pending = 0;
  };

  for (const item of dataset) {
    accounts++;
    pending++;
    for (const r of item.records) {
      records++;
      collect(r, batch);
    }
    batch.expected_outcomes.push({ account_number: item.expected.external_account_number, defect: item.expected.defect, expected: item.expected.expected });
    docs.push(...item.documents);
    if (pending >= batchSize) await flush();
    // Let the in-flight insert's replies be read (the dataset is a synchronous generator).
    else if (pending % 50 === 0) await new Promise((r) => setImmediate(r));
  }
  await flush();
  await inflight;
  return { accounts, records, rows, documents, ms: Date.now() - started };
}
