import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveDocumentPath } from '../../../schemas/document-path';

// Apart from properties.test.ts so the mutation run (stryker.config.mjs) loads only what document paths need.
const RUNS = { numRuns: 300 };

describe('document paths (property)', () => {
  const segment = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._ -]{0,15}$/).filter((s) => s !== '.' && s !== '..' && !s.includes('..'));
  const root = fc.array(fc.stringMatching(/^[a-z0-9-]{1,8}$/), { minLength: 1, maxLength: 3 }).map((r) => r.join('/'));

  it('any generated safe path resolves under the root, with or without a trailing slash on the root', () => {
    fc.assert(
      fc.property(root, fc.array(segment, { minLength: 1, maxLength: 5 }), fc.boolean(), (r, segs, slash) => {
        const result = resolveDocumentPath(slash ? `${r}/` : r, `/${segs.join('/')}`);
        expect(result).toEqual({ ok: true, key: `${r}/${segs.join('/')}` });
      }),
      RUNS,
    );
  });

  it('any path whose .. segments climb above its start is rejected, plain or percent-encoded', () => {
    fc.assert(
      fc.property(
        root,
        fc.array(segment, { maxLength: 3 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(segment, { minLength: 1, maxLength: 2 }),
        (r, down, extra, tail) => {
          const ups = Array(down.length + extra).fill('..');
          const path = `/${[...down, ...ups, ...tail].join('/')}`;
          const plain = resolveDocumentPath(r, path);
          expect(plain).toMatchObject({ ok: false, code: 'invalid_document_path' });
          const encoded = resolveDocumentPath(r, path.replaceAll('..', '%2e%2E'));
          expect(encoded).toMatchObject({ ok: false, code: 'invalid_document_path' });
        },
      ),
      RUNS,
    );
  });

  it('.. that stays inside the root is normalised away', () => {
    fc.assert(
      fc.property(root, segment, segment, (r, a, b) => {
        expect(resolveDocumentPath(r, `/${a}/../${b}`)).toEqual({ ok: true, key: `${r}/${b}` });
      }),
      RUNS,
    );
  });

  it('any control character or backslash anywhere is rejected', () => {
    const bad = fc.oneof(
      fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)),
      fc.constant('\u007f'),
      fc.constant('\\'),
    );
    fc.assert(
      fc.property(segment, bad, segment, (a, c, b) => {
        expect(resolveDocumentPath('r/s', `/${a}${c}${b}.pdf`)).toMatchObject({ ok: false, code: 'invalid_document_path' });
      }),
      RUNS,
    );
  });
});

describe('resolveDocumentPath examples', () => {
  it.each([
    ['r/s', '/a/b.pdf', 'r/s/a/b.pdf'],
    ['r/s/', '/a/b.pdf', 'r/s/a/b.pdf'],
    ['r/s', '//a/./b.pdf', 'r/s/a/b.pdf'],
  ])('%s + %s → %s', (r, p, key) => expect(resolveDocumentPath(r, p)).toEqual({ ok: true, key }));

  it.each([
    ['', 'empty'],
    ['a/b.pdf', 'no leading slash'],
    ['/a/', 'a folder'],
    ['/', 'no file'],
    ['/../b.pdf', 'escape'],
    ['/a%2fb.pdf', 'encoded slash'],
    ['/a\u0000.pdf', 'NUL'],
    ['/a\\b.pdf', 'backslash'],
  ])('rejects %j (%s)', (p) => expect(resolveDocumentPath('r/s', p)).toMatchObject({ ok: false, code: 'invalid_document_path' }));
});
