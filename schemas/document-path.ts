import type { EnergyAccount } from './account';
import { LOCAL_CODES } from './errors';

/**
 * Payload document paths are relative to the import supplier's document root: root `r/s` and
 * payload path `/a/b.pdf` name the object key `r/s/a/b.pdf`. Anything that could name a key outside
 * the root, or that two systems might read differently, is refused here with one local code.
 */

export type DocumentPathResult = { ok: true; key: string } | { ok: false; code: string; detail: string };

// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Encoded dot, slash, backslash or NUL: a legitimate file name never needs them, traversal does. */
const ENCODED_SEPARATOR = /%(2e|2f|5c|00)/i;
const MAX_KEY_BYTES = 1024; // S3's limit

const reject = (detail: string): DocumentPathResult => ({ ok: false, code: LOCAL_CODES.invalidDocumentPath, detail });

function unsafeCharacters(value: string, what: string): string | undefined {
  if (CONTROL.test(value)) return `${what} contains a control character.`;
  if (value.includes('\\')) return `${what} contains a backslash.`;
  if (ENCODED_SEPARATOR.test(value)) return `${what} contains a percent-encoded dot, slash, backslash or NUL.`;
  return undefined;
}

/** Normalises `payloadPath` (collapses `//` and `.`, resolves `..` inside the root) and joins it to `root`. */
export function resolveDocumentPath(root: string, payloadPath: string): DocumentPathResult {
  if (typeof payloadPath !== 'string' || payloadPath.length === 0) return reject('The document path is empty.');
  if (typeof root !== 'string') return reject('The document root is not a string.');
  const bad = unsafeCharacters(payloadPath, 'The document path') ?? unsafeCharacters(root, 'The document root');
  if (bad) return reject(bad);
  if (!payloadPath.startsWith('/')) return reject('A document path starts with "/" (relative to the supplier document root).');
  if (payloadPath.endsWith('/')) return reject('A document path names a file, not a folder.');

  const segments: string[] = [];
  for (const segment of payloadPath.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return reject('The document path escapes the supplier document root.');
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  if (segments.length === 0) return reject('The document path names no file.');

  const rootSegments = root.split('/').filter((s) => s !== '' && s !== '.');
  if (rootSegments.includes('..')) return reject('The document root may not contain "..".');

  const key = [...rootSegments, ...segments].join('/');
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) return reject(`The object key is longer than ${MAX_KEY_BYTES} bytes.`);
  return { ok: true, key };
}

export interface DocumentPathRef {
  attr: string;
  path: string;
}

type Loose = Record<string, unknown>;
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const objectOf = (v: unknown): Loose | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Loose) : undefined);

function noteDocuments(notes: unknown, at: string, refs: DocumentPathRef[]) {
  listOf(notes).forEach((note, i) => {
    listOf(objectOf(note)?.document_paths).forEach((doc, j) => {
      const p = objectOf(doc)?.document_path;
      if (typeof p === 'string') refs.push({ attr: `${at}.${i}.document_paths.${j}.document_path`, path: p });
    });
  });
}

/**
 * Every document path in a payload with its attr: statements' `statement_path` and the
 * `document_paths` of every list of `Note`s the contract nests in EnergyAccount: the account's
 * `notes`, its `portfolio.notes` (AccountPortfolio) and `business.portfolios[].notes` (BusinessPortfolio).
 */
export function collectDocumentPaths(account: EnergyAccount): DocumentPathRef[] {
  const refs: DocumentPathRef[] = [];
  const a = objectOf(account);
  if (!a) return refs;
  noteDocuments(a.notes, 'notes', refs);
  noteDocuments(objectOf(a.portfolio)?.notes, 'portfolio.notes', refs);
  listOf(objectOf(a.business)?.portfolios).forEach((p, k) => noteDocuments(objectOf(p)?.notes, `business.portfolios.${k}.notes`, refs));
  listOf(a.statements).forEach((statement, i) => {
    const p = objectOf(statement)?.statement_path;
    if (typeof p === 'string') refs.push({ attr: `statements.${i}.statement_path`, path: p });
  });
  return refs;
}
