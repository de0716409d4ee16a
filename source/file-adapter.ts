import fs from 'node:fs';
import path from 'node:path';
import type { SourceAdapter } from './adapter-contract';
import { DiskLineIndex, type IndexedLine } from './line-index';
import { removeCopy, workFolder } from './payload-file';
import { readAt, readRecords } from './record-reader';
import { readersOf, type LegacyRecords } from './file-readers';
import type { SourceAccount, SourceRecord } from './types';

/**
 * Legacy export files: JSONL (one SourceRecord per line) or CSV (see csv.ts). Records are read by
 * byte offset from an index built on first use (account number → record positions, on disk in a
 * private folder like the payload reader's: source/line-index.ts), never by loading the file. A
 * number held by several records is yielded once, from its first record in file order, with the
 * others listed as conflicting (the Postgres adapter does the same, by lowest account_id).
 */

export class FileSourceAdapter implements SourceAdapter {
  private readonly records: LegacyRecords;
  private index?: Promise<DiskLineIndex>;
  /** This source's private temporary folder (0700): the index lives there, removed on close. */
  private workDir?: string;
  private handle?: Promise<fs.promises.FileHandle>;

  constructor(private readonly file: string) {
    this.records = readersOf(file).legacy;
  }

  private async *raw(): AsyncGenerator<{ offset: number; length: number; text: string }> {
    let first = true;
    for await (const r of readRecords(this.file, { quoted: this.records.quoted })) {
      if (first && this.records.header) {
        this.records.header(r.text);
        first = false;
        continue;
      }
      first = false;
      yield r;
    }
  }

  private parse(text: string): SourceRecord {
    return this.records.parse(text);
  }

  private key(text: string): { accountId: number; accountNumber: string } {
    return this.records.key(text, this.file);
  }

  private getIndex(): Promise<DiskLineIndex> {
    this.index ??= (async () => {
      const dir = await workFolder();
      this.workDir = dir;
      // On disk, not in a Map: memory does not grow with the export's records (docs/measurements.md).
      const index = new DiskLineIndex(path.join(dir, 'index.sqlite'));
      try {
        // `line` is the record's place in the file: the index gives a number's records back in file order.
        let line = 0;
        for await (const r of this.raw()) {
          const k = this.key(r.text);
          index.add(k.accountNumber, { line: ++line, offset: r.offset, length: r.length, accountId: k.accountId });
        }
        index.finish();
      } catch (e) {
        index.close();
        throw e;
      }
      return index;
    })();
    return this.index;
  }

  private toAccount(record: SourceRecord, positions: IndexedLine[]): SourceAccount {
    const others = positions.filter((p) => p.accountId !== record.account.account_id).map((p) => p.accountId!);
    return { ...record, conflicting_account_ids: others };
  }

  /** In the index's order (bytes of UTF-8), by keyset: each number once. */
  async listAccountNumbers(opts: { after?: string; limit: number }): Promise<string[]> {
    return (await this.getIndex()).page(opts.after, opts.limit);
  }

  async getAccount(externalAccountNumber: string): Promise<SourceAccount | undefined> {
    const positions = (await this.getIndex()).get(externalAccountNumber);
    if (positions.length === 0) return undefined;
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
      if (positions[0]?.offset !== r.offset) continue; // a later record of a conflicting number
      yield this.toAccount(record, positions);
    }
  }

  /** Closes the file and the index and removes the private folder; the source may be used again after. */
  async close(): Promise<void> {
    const h = this.handle;
    this.handle = undefined;
    if (h) await (await h).close();
    const index = this.index;
    this.index = undefined;
    (await index?.catch(() => undefined))?.close();
    const dir = this.workDir;
    this.workDir = undefined;
    if (dir) await removeCopy(dir);
  }
}
