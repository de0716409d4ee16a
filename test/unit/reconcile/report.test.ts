import { describe, expect, it } from 'vitest';
import { balanceLine, reconciliationLine } from '../../../cli/post-import';
import { afterImportHtml } from '../../../cli/report/after-import';
import { escapeHtml } from '../../../cli/report/html';
import { afterImportCsvRows, afterImportSchema } from '../../../ledger/after-import-report';
import type { ReconciliationSummary } from '../../../ledger/reconciliation';

const TARIFF = 'properties.*.electricity_meter_points.*.agreements.*.tariff_code';

// 40 accounts against the documented record: 8 with a changed tariff code, the names never shown.
const summary: ReconciliationSummary = {
  checked: 40,
  matched: 32,
  differing: 8,
  missing: 0,
  unverified: 40,
  byField: { [TARIFF]: 8 },
  unverifiedByField: { 'customers.*.family_name': 40, 'customers.*.given_name': 40 },
  fields: [
    { field: 'customers.*.family_name', matched: 0, differing: 0, unverified: 40 },
    { field: TARIFF, matched: 26, differing: 8, unverified: 0 },
  ],
  balances: { accounts: 40, sourcePence: '123456', platformPence: '123000', differencePence: '-456' },
};

describe('the reconciliation in three words: matched, differing, unverified', () => {
  it('run status, run reconcile and the demo print the three counts and the fields behind them', () => {
    expect(reconciliationLine(summary)).toBe(
      `Reconciliation: checked 40, matched 32, differing 8, unverified 40 (differing by field: ${TARIFF} 8) (not in the platform's record: customers.*.family_name 40, customers.*.given_name 40)`,
    );
    expect(reconciliationLine({ ...summary, matched: 40, differing: 0, byField: {}, unverified: 0, unverifiedByField: {} })).toBe(
      'Reconciliation: checked 40, matched 40, differing 0, unverified 0',
    );
    expect(balanceLine(summary)).toBe('Balances (pence, 40 accounts read back): source 123456, platform 123000, difference -456');
    expect(balanceLine({ ...summary, balances: { accounts: 0, sourcePence: '0', platformPence: '0', differencePence: '0' } })).toBeUndefined();
  });

  const report = afterImportSchema.parse({
    reconciliation: {
      checked: 2,
      matched: 1,
      differing: 1,
      missing: 0,
      unverified: 2,
      byField: [{ label: TARIFF, count: 1 }],
      fields: [
        { field: 'customers.*.family_name', matched: 0, differing: 0, unverified: 2 },
        { field: TARIFF, matched: 0, differing: 1, unverified: 0 },
      ],
      differences: [
        {
          externalAccountNumber: 'ACC-2',
          path: 'properties.0.electricity_meter_points.0.agreements.0.tariff_code',
          field: TARIFF,
          expected: 'E-1R-A',
          found: 'E-1R-A-ALTERED',
        },
      ],
      unverifiedFields: [
        { externalAccountNumber: 'ACC-1', differing: false, field: 'customers.*.family_name', leaves: 1 },
        { externalAccountNumber: 'ACC-2', differing: true, field: 'customers.*.family_name', leaves: 2 },
      ],
    },
    postImport: { byStatus: {}, failed: [] },
  });

  it('the CSV has a row per difference and per account and unverified field, the latter not counted as a difference', () => {
    expect(afterImportCsvRows(report)).toEqual([
      [
        'ACC-2',
        'completed_with_differences',
        'reconcile',
        'reconciliation_difference',
        'properties.0.electricity_meter_points.0.agreements.0.tariff_code',
        'expected E-1R-A, found E-1R-A-ALTERED',
        '',
      ],
      ['ACC-1', 'completed', 'reconcile', 'reconciliation_unverified', 'customers.*.family_name', "not in the platform's record (1 value unchecked)", ''],
      [
        'ACC-2',
        'completed_with_differences',
        'reconcile',
        'reconciliation_unverified',
        'customers.*.family_name',
        "not in the platform's record (2 values unchecked)",
        '',
      ],
    ]);
  });

  it('the HTML report shows the three counts and, per field, accounts matched, differing, unverified; paths only', () => {
    const html = afterImportHtml(report, escapeHtml, (n) => String(n));
    expect(html).toContain('checked <b>2</b>, matched <b>1</b>, differing <b>1</b>, unverified <b>2</b>');
    expect(html).toContain('<tr><td><code>customers.*.family_name</code></td><td>0</td><td>0</td><td>2</td></tr>');
    expect(html).toContain(`<tr><td><code>${TARIFF}</code></td><td>0</td><td>1</td><td>0</td></tr>`);
    expect(html).not.toContain('E-1R-A');
  });

  it('a report saved before unverified existed still loads', () => {
    const old = afterImportSchema.parse({
      reconciliation: { checked: 1, matched: 1, differing: 0, missing: 0, byField: [], differences: [] },
      postImport: { byStatus: {}, failed: [] },
    });
    expect(old.reconciliation).toMatchObject({ unverified: 0, fields: [], unverifiedFields: [] });
  });
});
