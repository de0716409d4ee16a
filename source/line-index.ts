import { DatabaseSync, type StatementSync } from 'node:sqlite';

/**
 * A payload file's index (account number → the lines holding it), kept on disk in a private SQLite
 * file rather than in a Map: 2 million `{}` lines took 1.7 GB as JS objects, and the memory of a
 * run or a `validate` must not grow with the team's file. SQLite (built into Node, no native
 * addon to build) gives what the readers need from one B-tree: pages of numbers in order from a
 * cursor, and the lines of one number; its page cache is bounded (`cache_size`) and its sort for
 * the index spills to temporary files. The file is a scratch copy: no journal, no fsync; it is
 * removed with the folder it lives in. The legacy export reader (file-adapter.ts) keeps its records
 * here too: `line` is then the record's place in the file and `accountId` its account_id.
 */

export interface IndexedLine {
  line: number;
  offset: number;
  length: number;
  problem?: { code: string; detail: string; attr?: string };
  /** A legacy record's account_id (the payload reader keeps none). */
  accountId?: number;
}

interface Row {
  line: number;
  offset: number;
  length: number;
  code: string | null;
  attr: string | null;
  detail: string | null;
  account_id: number | null;
}

/** Rows written per transaction while the file is read: one commit per batch, not per line. */
const BATCH = 10_000;

export class DiskLineIndex {
  private readonly db: DatabaseSync;
  private readonly insert: StatementSync;
  private pending = 0;
  private ready = false;
  private firstPage?: StatementSync;
  private nextPage?: StatementSync;
  private byKey?: StatementSync;

  constructor(file: string) {
    this.db = new DatabaseSync(file);
    // A scratch index, rebuilt from the file when lost: no rollback journal, no fsync; a bounded cache (8 MiB).
    this.db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -8192; PRAGMA temp_store = FILE;');
    this.db.exec(
      'CREATE TABLE lines (key TEXT NOT NULL, line INTEGER NOT NULL, offset INTEGER NOT NULL, length INTEGER NOT NULL, code TEXT, attr TEXT, detail TEXT, account_id INTEGER)',
    );
    this.insert = this.db.prepare('INSERT INTO lines VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.db.exec('BEGIN');
  }

  add(key: string, e: IndexedLine): void {
    this.insert.run(key, e.line, e.offset, e.length, e.problem?.code ?? null, e.problem?.attr ?? null, e.problem?.detail ?? null, e.accountId ?? null);
    if (++this.pending >= BATCH) {
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
    }
  }

  /** Ends the writing: the B-tree on (key, line) is built once, after the rows, which is faster than keeping it up to date. */
  finish(): void {
    this.db.exec('COMMIT');
    this.db.exec('CREATE INDEX lines_by_key ON lines (key, line)');
    // Byte order of UTF-8 (SQLite's BINARY collation): the order the cursor comes back in, nothing else has to agree with it.
    this.firstPage = this.db.prepare('SELECT DISTINCT key FROM lines ORDER BY key LIMIT ?');
    this.nextPage = this.db.prepare('SELECT DISTINCT key FROM lines WHERE key > ? ORDER BY key LIMIT ?');
    this.byKey = this.db.prepare('SELECT line, offset, length, code, attr, detail, account_id FROM lines WHERE key = ? ORDER BY line');
    this.ready = true;
  }

  page(after: string | undefined, limit: number): string[] {
    this.assertReady();
    const rows = (after === undefined ? this.firstPage!.all(limit) : this.nextPage!.all(after, limit)) as Array<{ key: string }>;
    return rows.map((r) => r.key);
  }

  get(key: string): IndexedLine[] {
    this.assertReady();
    return (this.byKey!.all(key) as unknown as Row[]).map((r) => ({
      line: r.line,
      offset: r.offset,
      length: r.length,
      ...(r.code === null ? {} : { problem: { code: r.code, detail: r.detail ?? '', ...(r.attr === null ? {} : { attr: r.attr }) } }),
      ...(r.account_id === null ? {} : { accountId: r.account_id }),
    }));
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  private assertReady() {
    if (!this.ready) throw new Error('the line index is still being written');
  }
}
