import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DocumentRef, SourceDocument } from './types';

/**
 * Finds and measures the files behind an account's documents (stat + streamed sha256, so a large
 * bill never sits in memory). A file that is absent is reported with the platform's own code at
 * the payload attr that names it: uploading would fail, and the platform would refuse the path.
 */

export const PATH_DOES_NOT_EXIST = 'path_does_not_exist_in_file_store';

export interface DocumentProblem {
  code: string;
  attr: string;
  sourceField: string;
  detail: string;
}

export interface DescribedDocuments {
  documents: SourceDocument[];
  missing: DocumentProblem[];
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/** Resolves `sourcePath` under `sourceDir`, refusing paths that would leave it. */
export function sourceFile(sourceDir: string, sourcePath: string): string | undefined {
  const root = path.resolve(sourceDir);
  const file = path.resolve(root, sourcePath);
  return file.startsWith(root + path.sep) ? file : undefined;
}

export async function describeDocuments(docs: DocumentRef[], sourceDir: string): Promise<DescribedDocuments> {
  const documents: SourceDocument[] = [];
  const missing: DocumentProblem[] = [];
  for (const doc of docs) {
    const file = sourceFile(sourceDir, doc.sourcePath);
    const stat = file ? await fs.promises.stat(file).catch(() => undefined) : undefined;
    if (!file || !stat || !stat.isFile()) {
      missing.push({
        code: PATH_DOES_NOT_EXIST,
        attr: doc.attr,
        sourceField: 'documents.storage_path',
        detail: `Source file ${doc.sourcePath} for ${doc.payloadPath} does not exist in the source documents folder.`,
      });
      continue;
    }
    documents.push({ ...doc, size: stat.size, sha256: await sha256File(file) });
  }
  return { documents, missing };
}
