import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pool, createPool } from '../../../clients/db';
import { COMPONENTS, migrate } from '../../../db/migrate';
import { freePort } from '../../../harness/stack/child-process';
import { type RunningPostgres, startPostgres } from '../../../harness/stack/postgres';
import { type SourceAdapter, createSourceAdapter, sourceSpecSchema } from '../../../source/adapter';
import { writeDatasetToFiles } from '../../../harness/synthetic/dataset-files';
import { writeDatasetToPostgres } from '../../../harness/synthetic/dataset-postgres';
import { type DatasetItem, generateDataset } from '../../../harness/synthetic/generator';
import { defaultMapping } from '../../../source/mapping';
import { transformAccount } from '../../../source/transform';
import type { SourceAccount } from '../../../source/types';

/** The same generated data through the Postgres, JSONL and CSV adapters must give the same accounts and payloads. */

const base = path.resolve('.data/test-source-adapters');
const dataset = () => generateDataset({ accounts: 120, seed: 77, defectRate: 0.3 });

let pg: RunningPostgres;
let pool: Pool;
let items: DatasetItem[];
let adapters: Record<'postgres' | 'jsonl' | 'csv', SourceAdapter>;

async function collect(a: SourceAdapter, batchSize: number): Promise<Map<string, SourceAccount>> {
  const out = new Map<string, SourceAccount>();
  for await (const s of a.stream({ batchSize })) {
    expect(out.has(s.account.account_number), s.account.account_number).toBe(false);
    out.set(s.account.account_number, s);
  }
  return out;
}

async function allNumbers(a: SourceAdapter, limit: number): Promise<string[]> {
  const out: string[] = [];
  for (let page = await a.listAccountNumbers({ limit }); page.length > 0; page = await a.listAccountNumbers({ after: page[page.length - 1], limit })) {
    expect(page.length).toBeLessThanOrEqual(limit);
    out.push(...page);
  }
  return out;
}

beforeAll(async () => {
  pg = await startPostgres({ dataDir: path.join(base, 'pg'), port: await freePort() });
  await migrate(pg.url, COMPONENTS.legacy);
  pool = createPool(pg.url, 4);
  await pool.query(`TRUNCATE legacy.accounts, legacy.tariffs, legacy.expected_outcomes CASCADE`);
  fs.rmSync(path.join(base, 'files'), { recursive: true, force: true });
  fs.rmSync(path.join(base, 'documents'), { recursive: true, force: true });
  items = [...dataset()];
  const loaded = await writeDatasetToPostgres(pool, dataset(), { documentsDir: path.join(base, 'documents'), batchSize: 25 });
  expect(loaded.accounts).toBe(120);
  const files = await writeDatasetToFiles(path.join(base, 'files'), dataset());
  adapters = {
    postgres: createSourceAdapter({ kind: 'postgres' }, { pool }),
    jsonl: createSourceAdapter({ kind: 'file', path: files.files.jsonl }, {}),
    csv: createSourceAdapter({ kind: 'file', path: files.files.csv }, {}),
  };
}, 180_000);

afterAll(async () => {
  for (const a of Object.values(adapters ?? {})) await a.close();
  await pool?.end();
  await pg?.stop();
});

describe('source adapters', () => {
  it('yield the generator’s accounts, identically, from Postgres, JSONL and CSV', async () => {
    const expected = new Map(items.map((i) => [i.source.account.account_number, i.source]));
    for (const [name, a] of Object.entries(adapters)) {
      const got = await collect(a, 17);
      expect(got.size, name).toBe(120);
      for (const [n, src] of expected) expect(got.get(n), `${name} ${n}`).toEqual(src);
    }
  });

  it('produce byte-identical transform results', async () => {
    const ctx = { importSupplierCode: 'DEMO-SUPPLIER', mapping: defaultMapping() };
    const results: Record<string, Map<string, string>> = {};
    for (const [name, a] of Object.entries(adapters)) {
      results[name] = new Map([...(await collect(a, 50))].map(([n, s]) => [n, JSON.stringify(transformAccount(s, ctx))]));
    }
    expect(results.jsonl).toEqual(results.postgres);
    expect(results.csv).toEqual(results.postgres);
    const ok = [...results.postgres.values()].filter((r) => JSON.parse(r).ok).length;
    expect(ok).toBeGreaterThan(80);
  });

  it('page account numbers by keyset, in order, each once', async () => {
    const sorted = [...new Set(items.map((i) => i.source.account.account_number))].sort();
    for (const [name, a] of Object.entries(adapters)) {
      expect(await allNumbers(a, 13), name).toEqual(sorted);
      expect(await a.listAccountNumbers({ after: sorted[9], limit: 3 }), name).toEqual(sorted.slice(10, 13));
    }
  });

  it('get one account by number, reporting records that share its number', async () => {
    const conflict = items.find((i) => i.expected.defect === 'supplier_conflict');
    expect(conflict).toBeDefined();
    const number = conflict!.source.account.account_number;
    for (const [name, a] of Object.entries(adapters)) {
      const got = await a.getAccount(number);
      expect(got, name).toEqual(conflict!.source);
      expect(got!.conflicting_account_ids, name).toEqual([conflict!.records[1].account.account_id]);
      expect(await a.getAccount('NO-SUCH-ACCOUNT'), name).toBeUndefined();
    }
  });

  it('stores the ground truth and the documents', async () => {
    const r = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM legacy.expected_outcomes WHERE expected->>'outcome' = 'failed'`);
    expect(r.rows[0].n).toBe(items.filter((i) => i.expected.expected.outcome === 'failed').length);
    const doc = items[0].documents[0];
    expect(fs.readFileSync(path.join(base, 'documents', doc.relativePath)).equals(doc.bytes)).toBe(true);
  });

  it('accept only small serialisable specs', () => {
    expect(sourceSpecSchema.safeParse({ kind: 'file', path: 'x.jsonl' }).success).toBe(true);
    expect(sourceSpecSchema.safeParse({ kind: 'file', path: 'x.xlsx' }).success).toBe(false);
    expect(() => createSourceAdapter({ kind: 'postgres' }, {})).toThrow(/pool/);
  });
});
