import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { csvHeaderLine, recordToCsvLine } from '../../source/csv';
import type { DatasetItem } from './generator';

/**
 * Writes a generated dataset as export files: `accounts.jsonl` (one legacy record per line),
 * `accounts.csv` (same records, csv.ts layout), `expected.jsonl` (ground truth, one per account
 * number) and `documents/<storage_path>` (the source documents folder). Streams with backpressure.
 */

export interface WrittenDataset {
  accounts: number;
  records: number;
  documents: number;
  files: { jsonl: string; csv: string; expected: string; documentsDir: string };
}

async function write(stream: fs.WriteStream, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

async function end(stream: fs.WriteStream): Promise<void> {
  stream.end();
  await once(stream, 'finish');
}

/** Writes documents under `documentsDir`, a few at a time (tens of thousands of small files). */
export async function writeDocuments(documentsDir: string, docs: DatasetItem['documents'], made = new Set<string>()): Promise<number> {
  const CONCURRENCY = 16;
  for (let i = 0; i < docs.length; i += CONCURRENCY) {
    await Promise.all(
      docs.slice(i, i + CONCURRENCY).map(async (d) => {
        const file = path.join(documentsDir, d.relativePath);
        const parent = path.dirname(file);
        if (!made.has(parent)) {
          await fs.promises.mkdir(parent, { recursive: true });
          made.add(parent);
        }
        await fs.promises.writeFile(file, d.bytes);
      }),
    );
  }
  return docs.length;
}

export async function writeDatasetToFiles(dir: string, dataset: Iterable<DatasetItem>): Promise<WrittenDataset> {
  await fs.promises.mkdir(dir, { recursive: true });
  const files = {
    jsonl: path.join(dir, 'accounts.jsonl'),
    csv: path.join(dir, 'accounts.csv'),
    expected: path.join(dir, 'expected.jsonl'),
    documentsDir: path.join(dir, 'documents'),
  };
  const jsonl = fs.createWriteStream(files.jsonl);
  const csv = fs.createWriteStream(files.csv);
  const expected = fs.createWriteStream(files.expected);
  let accounts = 0;
  let records = 0;
  let documents = 0;
  const made = new Set<string>();
  try {
    await write(csv, csvHeaderLine());
    for (const item of dataset) {
      accounts++;
      for (const r of item.records) {
        records++;
        await write(jsonl, `${JSON.stringify(r)}\n`);
        await write(csv, recordToCsvLine(r));
      }
      await write(expected, `${JSON.stringify(item.expected)}\n`);
      documents += await writeDocuments(files.documentsDir, item.documents, made);
    }
  } finally {
    await Promise.all([end(jsonl), end(csv), end(expected)]);
  }
  return { accounts, records, documents, files };
}
