import fs from 'node:fs';
import type { SourceAdapter } from './adapter-contract';
import { checkCsvHeader, csvFieldsToRecord, csvRecordKey, parseCsvRecord } from './csv';
import { sortedKeyPage } from './payload-file';
import { readAt, readRecords } from './record-reader';
import { fileFormat } from '../domain/source-spec';
import { type SourceAccount, type SourceRecord, sourceRecordSchema } from './types';

/**
 * Legacy export files: JSONL (one SourceRecord per line) or CSV (see csv.ts). Records are read by
 * byte offset from a lazily built index (account number → record positions), never by loading the
 * file. A number held by several records is yielded once, from its first record, with the others
 * listed as conflicting (the Postgres adapter does the same, by lowest account_id).
 */

interface Position {
  accountId: number;
  offset: number;
  length: number;
}

export class FileSourceAdapter implements SourceAdapter {
  private readonly format: 'jsonl' | 'csv';
  private index?: Promise<Map<string, Position[]>>;
  private sorted?: string[];
  private handle?: Promise<fs.promises.FileHandle>;

  constructor(private readonly file: string) {
    this.format = fileFormat(file)?.read === 'csv' ? 'csv' : 'jsonl';
  }

  private async *raw(): AsyncGenerator<{ offset: number; length: number; text: string }> {
    let first = true;
    for await (const r of readRecords(this.file, { quoted: this.format === 'csv' })) {
      if (first && this.format === 'csv') {
        checkCsvHeader(r.text);
        first = false;
        continue;
      }
      first = false;
      yield r;
    }
  }

  private parse(text: string): SourceRecord {
    return this.format === 'csv' ? csvFieldsToRecord(parseCsvRecord(text)) : sourceRecordSchema.parse(JSON.parse(text));
  }

  private key(text: string): { accountId: number; accountNumber: string } {
    if (this.format === 'csv') return csvRecordKey(parseCsvRecord(text));
    const account = (JSON.parse(text) as { account?: { account_id?: unknown; account_number?: unknown } }).account;
    if (typeof account?.account_id !== 'number' || typeof account.account_number !== 'string') {
      throw new Error(`${this.file}: a record without account.account_id/account_number`);
    }
    return { accountId: account.account_id, accountNumber: account.account_number };
  }

  private getIndex(): Promise<Map<string, Position[]>> {
    this.index ??= (async () => {
      const index = new Map<string, Position[]>();
      for await (const r of this.raw()) {
        const k = this.key(r.text);
        const list = index.get(k.accountNumber);
        const pos = { accountId: k.accountId, offset: r.offset, length: r.length };
        if (list) list.push(pos);
        else index.set(k.accountNumber, [pos]);
      }
      return index;
    })();
    return this.index;
  }

  private toAccount(record: SourceRecord, positions: Position[]): SourceAccount {
    const others = positions.filter((p) => p.accountId !== record.account.account_id).map((p) => p.accountId);
    return { ...record, conflicting_account_ids: others };
  }

  async listAccountNumbers(opts: { after?: string; limit: number }): Promise<string[]> {
    const index = await this.getIndex();
    this.sorted ??= [...index.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return sortedKeyPage(this.sorted, opts.after, opts.limit);
  }

  async getAccount(externalAccountNumber: string): Promise<SourceAccount | undefined> {
    const positions = (await this.getIndex()).get(externalAccountNumber);
    if (!positions) return undefined;
    this.handle ??= fs.promises.open(this.file, 'r');
    const text = await readAt(await this.handle, positions[0].offset, positions[0].length);
    return this.toAccount(this.parse(text), positions);
  }

  /** File order. Conflicts need the whole file seen first, so the index is built before streaming. */
  async *stream(_opts?: { batchSize?: number }): AsyncIterable<SourceAccount> {
    const index = await this.getIndex();
    for await (const r of this.raw()) {
      const record = this.parse(r.text);
      const positions = index.get(record.account.account_number);
      if (!positions || positions[0].offset !== r.offset) continue; // a later record of a conflicting number
      yield this.toAccount(record, positions);
    }
  }

  async close(): Promise<void> {
    const h = this.handle;
    this.handle = undefined;
    if (h) await (await h).close();
  }
}
