import path from 'node:path';
import type { EnergyAccount } from '../schemas/account';
import { collectDocumentPaths, resolveDocumentPath } from '../schemas/document-path';
import type { DocumentRef } from './types';

const CONTENT_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.html': 'text/html',
  '.txt': 'text/plain',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
};

/**
 * The documents a team's payload names (notes' document paths, statements' paths), each read from
 * `documents` (a folder, or `s3://bucket/prefix`) at the payload path itself: `/bills/a.pdf` is
 * `<documents>/bills/a.pdf`, staged at `<supplier root>/bills/a.pdf`. Pure; paths already validated.
 */
export function payloadDocuments(payload: EnergyAccount, documents: string): DocumentRef[] {
  return collectDocumentPaths(payload).flatMap((ref) => {
    const resolved = resolveDocumentPath('', ref.path);
    if (!resolved.ok) return [];
    const contentType = CONTENT_TYPES[path.extname(resolved.key).toLowerCase()] ?? 'application/octet-stream';
    return [{ payloadPath: ref.path, sourcePath: resolved.key, contentType, attr: ref.attr, sourceRoot: documents }];
  });
}
