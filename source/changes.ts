import { SOURCE_FILE_PATTERN } from '../domain/source-spec';
import fs from 'node:fs';
import readline from 'node:readline';
import type { Pool } from 'pg';
import { z } from 'zod';
import { POST_IMPORT_KINDS, postImportItemSchema, type PostImportItem } from '../schemas/post-import';
import type { SourceSpec } from './adapter';

/**
 * What the legacy system recorded for an account after a point in time (its extraction): notes,
 * transactions, statements, payment instructions. The legacy database keeps them in
 * `legacy.account_changes`; a file export keeps them beside the accounts file, in
 * `<name>.changes.jsonl` (one change a line). Items are checked against the post-import schemas
 * when read, so a malformed change is refused with the field and the rule.
 */

export const changeRecordSchema = z.object({
  change_id: z.string().min(1),
  external_account_number: z.string().min(1),
  recorded_at: z.iso.datetime({ offset: true }),
  change: postImportItemSchema,
  /** Statements: the PDF's path under the source documents folder. */
  document_path: z.string().min(1).optional(),
});
export type ChangeRecord = z.infer<typeof changeRecordSchema>;

export class ChangeFeedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChangeFeedError';
  }
}

export interface ChangeFeed {
  /** Changes recorded for the account strictly after `since`, oldest first. */
  changesSince(externalAccountNumber: string, since: Date): Promise<ChangeRecord[]>;
}

function parseChange(raw: unknown, where: string): ChangeRecord {
  const r = changeRecordSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new ChangeFeedError('invalid_change_record', `${where}: ${i.path.join('.') || '(record)'}: ${i.message}`);
  }
  return r.data;
}

/** `<dir>/<name>.jsonl` → `<dir>/<name>.changes.jsonl` (CSV exports and gzipped payload files likewise). */
export function changesFileFor(sourceFile: string): string {
  return sourceFile.replace(SOURCE_FILE_PATTERN, '.changes.jsonl');
}

export function createChangeFeed(spec: SourceSpec, deps: { pool?: Pool }): ChangeFeed {
  if (spec.kind === 'postgres') {
    const pool = deps.pool;
    if (!pool) throw new ChangeFeedError('source_pool_missing', 'a postgres source needs a database pool');
    return {
      async changesSince(ext, since) {
        const r = await pool.query<{ change_id: string; account_number: string; kind: string; recorded_at: Date; item: unknown; document_path: string | null }>(
          `SELECT change_id, account_number, kind, recorded_at, item, document_path FROM legacy.account_changes
           WHERE account_number = $1 AND recorded_at > $2 ORDER BY recorded_at, change_id`,
          [ext, since],
        );
        return r.rows.map((row) =>
          parseChange(
            {
              change_id: row.change_id,
              external_account_number: row.account_number,
              recorded_at: row.recorded_at.toISOString(),
              change: { kind: row.kind, item: row.item },
              ...(row.document_path ? { document_path: row.document_path } : {}),
            },
            `legacy.account_changes ${row.change_id}`,
          ),
        );
      },
    };
  }
  // A payload table has no change feed of its own: nothing is carried over after its import.
  if (spec.kind === 'payloads-table') return { changesSince: async () => [] };
  const file = changesFileFor(spec.path);
  return {
    async changesSince(ext, since) {
      if (!fs.existsSync(file)) return [];
      const out: ChangeRecord[] = [];
      const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
      let n = 0;
      for await (const line of lines) {
        n++;
        if (!line.trim()) continue;
        let raw: unknown;
        try {
          raw = JSON.parse(line);
        } catch {
          throw new ChangeFeedError('invalid_change_record', `${file}:${n}: not JSON`);
        }
        if ((raw as { external_account_number?: unknown }).external_account_number !== ext) continue;
        const c = parseChange(raw, `${file}:${n}`);
        if (Date.parse(c.recorded_at) > since.getTime()) out.push(c);
      }
      return out.sort((a, b) => a.recorded_at.localeCompare(b.recorded_at) || a.change_id.localeCompare(b.change_id));
    },
  };
}

/** Writes changes where a source of this kind keeps them (the generator's and tests' way in). */
export async function writeChanges(spec: SourceSpec, changes: ChangeRecord[], deps: { pool?: Pool }): Promise<void> {
  if (spec.kind === 'payloads-table') throw new ChangeFeedError('source_has_no_changes', 'a payload table has no change feed');
  if (spec.kind === 'file' || spec.kind === 'payloads') {
    const text = changes.map((c) => JSON.stringify(c)).join('\n');
    if (text) fs.appendFileSync(changesFileFor(spec.path), `${text}\n`);
    return;
  }
  if (!deps.pool) throw new ChangeFeedError('source_pool_missing', 'a postgres source needs a database pool');
  for (let i = 0; i < changes.length; i += 500) {
    const batch = changes.slice(i, i + 500);
    await deps.pool.query(
      `INSERT INTO legacy.account_changes (change_id, account_number, kind, recorded_at, item, document_path)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::jsonb[], $6::text[]) ON CONFLICT (change_id) DO NOTHING`,
      [
        batch.map((c) => c.change_id),
        batch.map((c) => c.external_account_number),
        batch.map((c) => c.change.kind),
        batch.map((c) => c.recorded_at),
        batch.map((c) => JSON.stringify(c.change.item)),
        batch.map((c) => c.document_path ?? null),
      ],
    );
  }
}

export { POST_IMPORT_KINDS, type PostImportItem };
