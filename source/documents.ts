import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { LOCAL_CODES } from '../schemas/errors';
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

/** Resolves `sourcePath` under `sourceDir` as text, refusing paths that would leave it (`..`). */
export function sourceFile(sourceDir: string, sourcePath: string): string | undefined {
  const root = path.resolve(sourceDir);
  const file = path.resolve(root, sourcePath);
  return file.startsWith(root + path.sep) ? file : undefined;
}

export const SOURCE_OUTSIDE_FOLDER = LOCAL_CODES.documentSourceOutsideFolder;
export const SOURCE_NOT_REGULAR_FILE = LOCAL_CODES.documentSourceNotRegularFile;

export type OpenedSourceFile = { ok: true; file: string; handle: fs.promises.FileHandle; size: number } | { ok: false; code: string; detail: string };

/**
 * Opens a source document for reading, checked on what the disk says rather than the path text:
 * the real path (every link followed) must stay inside the real source folder, and what is opened
 * must be a regular file. The checks are made on the open descriptor (opened without following a
 * final link, and non-blocking so a FIFO cannot hang the worker), so a link swapped in after the
 * check is refused rather than read. The caller closes the handle.
 */
export async function openSourceFile(sourceDir: string, sourcePath: string): Promise<OpenedSourceFile> {
  const lexical = sourceFile(sourceDir, sourcePath);
  if (!lexical) return { ok: false, code: LOCAL_CODES.invalidDocumentPath, detail: `source document path ${sourcePath} escapes the source folder` };
  const root = await fs.promises.realpath(path.resolve(sourceDir)).catch(() => undefined);
  const real = await fs.promises.realpath(lexical).catch(() => undefined);
  if (!root || !real) return { ok: false, code: PATH_DOES_NOT_EXIST, detail: `source document ${sourcePath} is missing` };
  if (!real.startsWith(root + path.sep)) {
    return {
      ok: false,
      code: SOURCE_OUTSIDE_FOLDER,
      detail: `source document ${sourcePath} resolves outside the source folder (links are followed to where they point)`,
    };
  }
  const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(real, flags);
  } catch (e) {
    return openFailure((e as NodeJS.ErrnoException).code, sourcePath);
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    return { ok: false, code: SOURCE_NOT_REGULAR_FILE, detail: `source document ${sourcePath} is not a regular file` };
  }
  return { ok: true, file: real, handle, size: stat.size };
}

/**
 * Why the checked real path did not open: ELOOP means its last component became a link after the
 * check (a race to swap one in), refused as pointing out; anything else (gone, unreadable) is missing.
 * A FIFO opens (read-only, non-blocking) and is refused on the descriptor's type.
 */
export function openFailure(errno: string | undefined, sourcePath: string): { ok: false; code: string; detail: string } {
  if (errno === 'ELOOP') return { ok: false, code: SOURCE_OUTSIDE_FOLDER, detail: `source document ${sourcePath} became a link after it was checked` };
  return { ok: false, code: PATH_DOES_NOT_EXIST, detail: `source document ${sourcePath} is missing (${errno ?? 'unreadable'})` };
}

/** The streamed sha256 of an open file, from its start (the handle stays open). */
export async function sha256Handle(handle: fs.promises.FileHandle): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(handle.createReadStream({ start: 0, autoClose: false }), hash);
  return hash.digest('hex');
}

export async function describeDocuments(docs: DocumentRef[], sourceDir: string): Promise<DescribedDocuments> {
  const documents: SourceDocument[] = [];
  const missing: DocumentProblem[] = [];
  for (const doc of docs) {
    const opened = await openSourceFile(sourceDir, doc.sourcePath);
    if (!opened.ok) {
      missing.push({
        code: opened.code === 'invalid_document_path' ? PATH_DOES_NOT_EXIST : opened.code,
        attr: doc.attr,
        sourceField: 'documents.storage_path',
        detail:
          opened.code === PATH_DOES_NOT_EXIST || opened.code === 'invalid_document_path'
            ? `Source file ${doc.sourcePath} for ${doc.payloadPath} does not exist in the source documents folder.`
            : `Source file ${doc.sourcePath} for ${doc.payloadPath}: ${opened.detail}.`,
      });
      continue;
    }
    try {
      documents.push({ ...doc, size: opened.size, sha256: await sha256Handle(opened.handle) });
    } finally {
      await opened.handle.close();
    }
  }
  return { documents, missing };
}
