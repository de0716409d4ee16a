import { describe, expect, it } from 'vitest';
import { firstError, flattenFieldErrors } from '../../../clients/platform/post-import';
import { postImportRequestBody } from '../../../clients/platform/post-import';
import { loadContract } from '../../../contract';
import { createSpecValidator } from '../../../harness/sandbox/openapi/validator';
import { generateChanges } from '../../../harness/synthetic/generate-changes';

describe('post-import error bodies', () => {
  it('reads the spec documented 400 shapes as code + attr', () => {
    // BadTransactionPayload (DRF field dict) and the NonFieldErrors example of the spec.
    expect(flattenFieldErrors({ transactions: { '0': { reason: ['Not a valid string.'] } } })).toEqual([
      { attr: 'transactions.0.reason', detail: 'Not a valid string.' },
    ]);
    expect(firstError({ non_field_errors: ['Either account_number or external_account_number must be provided.'] })).toEqual({
      code: 'invalid',
      attr: 'non_field_errors',
      detail: 'Either account_number or external_account_number must be provided.',
    });
    expect(firstError({ status: 'TRANSACTION_IMPORT_ERROR', error_detail: 'not within the statement period', transaction_data: {} })).toEqual({
      code: 'transaction_import_error',
      attr: 'non_field_errors',
      detail: 'not within the statement period',
    });
    expect(
      firstError({
        detail: 'x',
        code: 'historical_statement_already_exists',
        errors: [{ attr: 'statements.0.statement_id', code: 'historical_statement_already_exists', detail: 'y' }],
      }),
    ).toEqual({
      code: 'historical_statement_already_exists',
      attr: 'statements.0.statement_id',
      detail: 'y',
    });
  });

  it('every generated change becomes a request body the contract accepts, for each endpoint', () => {
    const validator = createSpecValidator(loadContract());
    const schema = {
      note: 'AccountNote',
      transaction: 'Transactions',
      statement: 'HistoricalStatements',
      payment_instruction: 'LegacyPaymentInstruction',
    } as const;
    const g = generateChanges({ accounts: Array.from({ length: 40 }, (_, i) => `ACC-${i}`), share: 1, seed: 5, recordedAt: new Date('2026-01-10T12:00:00Z') });
    expect(new Set(g.changes.map((c) => c.change.kind)).size).toBe(4);
    for (const c of g.changes) {
      const body = postImportRequestBody('DEMO-SUPPLIER', c.external_account_number, c.change);
      expect({ kind: c.change.kind, errors: validator.validate(schema[c.change.kind], body) }).toEqual({ kind: c.change.kind, errors: [] });
    }
  });
});
