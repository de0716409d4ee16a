import { describe, expect, it } from 'vitest';
import { realisticAccount } from '../../../schemas/fixtures';
import { validateAccount } from '../../../schemas/validate';
import { payloadDocuments } from '../../../source/payload-documents';

describe("the documents a team's payload names", () => {
  it("are read from every Note the contract nests (the account's, its portfolio's, its business portfolios') and from statements", () => {
    const account: any = realisticAccount();
    account.account_type = 'PORTFOLIO_LEAD';
    account.portfolio = { notes: [{ body: 'Lead note', document_paths: [{ document_path: '/portfolio/lead-letter.pdf' }] }] };
    account.business = {
      portfolios: [
        { portfolio_references: [{ namespace: 'portfolio-label', value: 'North' }], notes: [{ document_paths: [{ document_path: '/portfolio/north.html' }] }] },
      ],
    };
    const docs = payloadDocuments(account, '/team/documents').map((d) => [d.attr, d.sourcePath, d.contentType]);
    expect(docs).toEqual([
      ['notes.0.document_paths.0.document_path', 'notes/EXT-1001/email-2024-05-02.pdf', 'application/pdf'],
      ['portfolio.notes.0.document_paths.0.document_path', 'portfolio/lead-letter.pdf', 'application/pdf'],
      ['business.portfolios.0.notes.0.document_paths.0.document_path', 'portfolio/north.html', 'text/html'],
      ['statements.0.statement_path', 'statements/EXT-1001/2024-05.pdf', 'application/pdf'],
    ]);
  });

  it('a portfolio note whose path escapes the documents folder fails validate at its attr', () => {
    const account: any = realisticAccount({ account_type: 'PORTFOLIO_LEAD' } as any);
    account.portfolio = { notes: [{ body: 'x', document_paths: [{ document_path: '/../../etc/passwd' }] }] };
    const result = validateAccount(account);
    expect(result.ok ? [] : result.errors.filter((e) => e.code === 'invalid_document_path').map((e) => e.attr)).toEqual([
      'portfolio.notes.0.document_paths.0.document_path',
    ]);
  });
});
