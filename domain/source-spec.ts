import { z } from 'zod';

/**
 * Where an import reads its accounts from: small and serialisable, it travels in Temporal workflow
 * inputs (never a payload: personal data stays in the source and the ledger). A legacy file's
 * format is its extension (.jsonl, .csv); a payload file is JSONL, optionally gzipped; a payload
 * table has `external_account_number` and `payload jsonb`. The adapters that read each kind are in
 * source/adapter.ts.
 */

/**
 * The files the tool reads, known here alone: by extension, how each is read (`lines`: one JSON
 * document a line; `csv`: a header, then a record a row; `json`: one document, an account or an
 * array of them; `gzip`: decompressed as it is read) and what it can hold: a legacy export
 * (`run start --source`), a team's own payloads (`run start --payloads`). `validate` reads every
 * `lines` file as `run start --payloads` does, account by account. Each `read` has its readers in
 * source/file-readers.ts: a new format is a row here and its readers there.
 */
const FILE_FORMATS = {
  '.jsonl': { read: 'lines', gzip: false, legacy: true, payloads: true },
  '.jsonl.gz': { read: 'lines', gzip: true, legacy: false, payloads: true },
  '.ndjson': { read: 'lines', gzip: false, legacy: false, payloads: false },
  '.ndjson.gz': { read: 'lines', gzip: true, legacy: false, payloads: false },
  '.csv': { read: 'csv', gzip: false, legacy: true, payloads: false },
  '.json': { read: 'json', gzip: false, legacy: false, payloads: false },
} as const;
type Extension = keyof typeof FILE_FORMATS;
export type FileFormat = (typeof FILE_FORMATS)[Extension];

/** A file's format from its extension (any case), the longest that matches; undefined for any other. */
export function fileFormat(file: string): FileFormat | undefined {
  const lower = file.toLowerCase();
  const ext = (Object.keys(FILE_FORMATS) as Extension[]).filter((e) => lower.endsWith(e)).sort((a, b) => b.length - a.length)[0];
  return ext && FILE_FORMATS[ext];
}

const extensions = (holds: 'legacy' | 'payloads') => (Object.keys(FILE_FORMATS) as Extension[]).filter((e) => FILE_FORMATS[e][holds]);
const patternOf = (exts: readonly string[]) => new RegExp(`(${exts.map((e) => e.replace(/\./g, '\\.')).join('|')})$`, 'i');
const named = (exts: readonly string[]) => `a ${exts.join(' or ')} file`;

/** A legacy export file: its extension is its format. */
export const LEGACY_FILE_PATTERN = patternOf(extensions('legacy'));
/** A team's own payload file: one EnergyAccount a line, optionally gzipped. */
export const PAYLOAD_FILE_PATTERN = patternOf(extensions('payloads'));
/** Any source file, with its extension (a change feed sits beside it: source/changes.ts). */
export const SOURCE_FILE_PATTERN = patternOf([...new Set([...extensions('payloads'), ...extensions('legacy')])].sort((a, b) => b.length - a.length));
/** `a .jsonl or .csv file`, `a .jsonl or .jsonl.gz file`: what each option takes, for its usage error. */
export const LEGACY_FILE_NAMED = named(extensions('legacy'));
export const PAYLOAD_FILE_NAMED = named(extensions('payloads'));

/** A folder, or `s3://bucket/prefix`, holding the files a payload's document paths name. */
const documentsSchema = z.string().min(1).optional();

export const sourceSpecSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('postgres') }),
  z.object({ kind: z.literal('file'), path: z.string().regex(LEGACY_FILE_PATTERN, LEGACY_FILE_NAMED) }),
  z.object({ kind: z.literal('payloads'), path: z.string().regex(PAYLOAD_FILE_PATTERN, PAYLOAD_FILE_NAMED), documents: documentsSchema }),
  z.object({
    kind: z.literal('payloads-table'),
    table: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$/, 'schema.table (letters, digits and _)'),
    documents: documentsSchema,
  }),
]);
export type SourceSpec = z.infer<typeof sourceSpecSchema>;
export type LegacySourceSpec = Extract<SourceSpec, { kind: 'postgres' | 'file' }>;
export type PayloadSourceSpec = Extract<SourceSpec, { kind: 'payloads' | 'payloads-table' }>;

export const isPayloadSpec = (spec: SourceSpec): spec is PayloadSourceSpec => spec.kind === 'payloads' || spec.kind === 'payloads-table';
