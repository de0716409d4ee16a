import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeDocuments, openFailure, openSourceFile, PATH_DOES_NOT_EXIST, SOURCE_NOT_REGULAR_FILE, SOURCE_OUTSIDE_FOLDER } from '../../../source/documents';

/** Source documents are checked on what the disk says (real paths, file types), not on the path text. */

let base: string;
let source: string;

beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'open-source-file-'));
  source = path.join(base, 'docs');
  fs.mkdirSync(path.join(source, 'real'), { recursive: true });
  fs.writeFileSync(path.join(source, 'real', 'bill.pdf'), 'bill');
  fs.writeFileSync(path.join(base, 'secret.txt'), 'secret');
  fs.symlinkSync('/etc', path.join(source, 'etcdir'));
  fs.symlinkSync(path.join(base, 'secret.txt'), path.join(source, 'secret.pdf'));
  fs.symlinkSync('real', path.join(source, 'alias'));
  fs.symlinkSync(path.join(base, 'nowhere'), path.join(source, 'dangling.pdf'));
  execFileSync('mkfifo', [path.join(source, 'pipe.pdf')]);
});

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

async function outcome(p: string, dir = source): Promise<{ code: string; detail?: string } | { read: string }> {
  const r = await openSourceFile(dir, p);
  if (!r.ok) return { code: r.code, detail: r.detail };
  try {
    return { read: (await r.handle.readFile()).toString() };
  } finally {
    await r.handle.close();
  }
}

describe('openSourceFile', () => {
  it('reads a regular file, directly or through a link that stays inside the folder', async () => {
    expect(await outcome('real/bill.pdf')).toEqual({ read: 'bill' });
    expect(await outcome('alias/bill.pdf')).toEqual({ read: 'bill' });
  });

  it('refuses links that point out of the folder with a code naming the path', async () => {
    expect(await outcome('etcdir/passwd')).toEqual({ code: SOURCE_OUTSIDE_FOLDER, detail: expect.stringContaining('etcdir/passwd') as string });
    expect(await outcome('secret.pdf')).toMatchObject({ code: SOURCE_OUTSIDE_FOLDER });
  });

  it('refuses folders, FIFOs (without hanging) and devices as not regular files', async () => {
    expect(await outcome('real')).toMatchObject({ code: SOURCE_NOT_REGULAR_FILE });
    expect(await outcome('pipe.pdf')).toEqual({ code: SOURCE_NOT_REGULAR_FILE, detail: expect.stringContaining('pipe.pdf') as string });
    expect(await outcome('null', '/dev')).toMatchObject({ code: SOURCE_NOT_REGULAR_FILE });
  });

  it('keeps the text checks: `..` is refused, a missing or dangling file is the platform code', async () => {
    expect(await outcome('../secret.txt')).toEqual({ code: 'invalid_document_path', detail: expect.stringContaining('../secret.txt') as string });
    expect(await outcome('absent.pdf')).toEqual({ code: PATH_DOES_NOT_EXIST, detail: expect.stringContaining('absent.pdf') as string });
    expect(await outcome('dangling.pdf')).toMatchObject({ code: PATH_DOES_NOT_EXIST });
  });

  it('a link swapped in between the check and the open (ELOOP) is refused as pointing out; other open failures are missing', () => {
    expect(openFailure('ELOOP', 'docs/a.pdf')).toEqual({ ok: false, code: SOURCE_OUTSIDE_FOLDER, detail: expect.stringContaining('docs/a.pdf') as string });
    expect(openFailure('EACCES', 'docs/a.pdf')).toEqual({ ok: false, code: PATH_DOES_NOT_EXIST, detail: expect.stringContaining('EACCES') as string });
    expect(openFailure(undefined, 'docs/a.pdf')).toMatchObject({ code: PATH_DOES_NOT_EXIST, detail: expect.stringContaining('docs/a.pdf') as string });
  });

  it('describeDocuments reports a link out at the attr that names it, and hashes nothing behind it', async () => {
    const ref = (sourcePath: string) => ({
      sourcePath,
      payloadPath: '/letters/x.pdf',
      attr: 'notes.0.document_paths.0.document_path',
      contentType: 'application/pdf',
    });
    const d = await describeDocuments([ref('etcdir/passwd'), ref('alias/bill.pdf')], source);
    expect(d.missing).toEqual([expect.objectContaining({ code: SOURCE_OUTSIDE_FOLDER, attr: 'notes.0.document_paths.0.document_path' })]);
    expect(d.documents).toEqual([expect.objectContaining({ sourcePath: 'alias/bill.pdf', size: 4 })]);
  });
});
