import { z } from 'zod';
import type { Pool } from '../clients/db';
import { createPostImportLedger } from './post-import-items';
import { accountWorkflowId } from '../domain/workflow-ids';
import { createReconciliationLedger } from './reconciliation';
import { maskedDifference, reportDetail } from './report-masking';

/**
 * The report's after-import part: reconciliation (checked; matched, differing, unverified, by field) and the
 * changes carried over. The HTML shows paths and counts; the CSV, the operator's fix list, also
 * has expected and found values (it already carries the platform's error details).
 */
export const afterImportSchema = z.object({
  reconciliation: z.object({
    checked: z.number(),
    matched: z.number(),
    differing: z.number(),
    missing: z.number(),
    /** Accounts with a field the platform's record does not contain. Absent in reports saved before it existed. */
    unverified: z.number().default(0),
    byField: z.array(z.object({ label: z.string(), count: z.number() })),
    /** Every field checked: accounts matched, differing, unverified. */
    fields: z.array(z.object({ field: z.string(), matched: z.number(), differing: z.number(), unverified: z.number() })).default([]),
    differences: z.array(z.object({ externalAccountNumber: z.string(), path: z.string(), field: z.string(), expected: z.unknown(), found: z.unknown() })),
    /** Per account, the fields its record did not contain (names and leaf counts). */
    unverifiedFields: z.array(z.object({ externalAccountNumber: z.string(), differing: z.boolean(), field: z.string(), leaves: z.number() })).default([]),
    /** Opening balances in pence (exact decimal strings), as sent and as read back. Absent in older reports. */
    balances: z.object({ accounts: z.number(), sourcePence: z.string(), platformPence: z.string(), differencePence: z.string() }).optional(),
    /** Completed accounts to review by hand, with the workflow to open. Absent in older reports. */
    reviewSample: z.array(z.object({ externalAccountNumber: z.string(), accountNumber: z.string(), outcome: z.string(), workflowId: z.string() })).default([]),
  }),
  postImport: z.object({
    byStatus: z.record(z.string(), z.number()),
    failed: z.array(
      z.object({
        externalAccountNumber: z.string(),
        kind: z.string(),
        key: z.string(),
        code: z.string().nullable(),
        attr: z.string().nullable(),
        detail: z.string().nullable(),
      }),
    ),
  }),
});
export type AfterImport = z.infer<typeof afterImportSchema>;

/** Completed accounts the report lists for review by hand. */
export const REVIEW_SAMPLE = 20;

/** Differing accounts and failed items the HTML lists; the CSV has every one. */
export const AFTER_IMPORT_EXAMPLES = 50;

/** Counts, and a page of examples: differences of the first differing accounts, the first failed items. */
export async function loadAfterImport(pool: Pool, runId: string): Promise<AfterImport> {
  const recon = createReconciliationLedger(pool);
  const items = createPostImportLedger(pool);
  const [summary, differences, post, failed, sample] = await Promise.all([
    recon.summary(runId),
    recon.differenceExamples(runId, AFTER_IMPORT_EXAMPLES),
    items.summary(runId),
    items.failedItems(runId, { limit: AFTER_IMPORT_EXAMPLES }),
    recon.reviewSample(runId, REVIEW_SAMPLE),
  ]);
  return {
    reconciliation: {
      checked: summary.checked,
      matched: summary.matched,
      differing: summary.differing,
      missing: summary.missing,
      unverified: summary.unverified,
      byField: Object.entries(summary.byField).map(([label, count]) => ({ label, count })),
      fields: summary.fields,
      differences: differences.map(maskedDifference),
      unverifiedFields: [],
      balances: summary.balances,
      reviewSample: sample.map((a) => ({
        externalAccountNumber: a.externalAccountNumber,
        accountNumber: a.accountNumber,
        outcome: a.outcome,
        workflowId: accountWorkflowId(a.supplierCode, a.externalAccountNumber, false, runId),
      })),
    },
    postImport: { byStatus: post.byStatus, failed: failed.map((f) => ({ ...f, detail: f.detail && reportDetail(f.detail, { attr: f.attr }) })) },
  };
}

const show = (v: unknown) => (v === undefined || v === null ? '(absent)' : typeof v === 'string' ? v : JSON.stringify(v));

type Reconciliation = AfterImport['reconciliation'];

/** The fix list's row of one difference. */
export const differenceCsvRow = (d: Reconciliation['differences'][number]): string[] => [
  d.externalAccountNumber,
  'completed_with_differences',
  'reconcile',
  'reconciliation_difference',
  d.path,
  `expected ${show(d.expected)}, found ${show(d.found)}`,
  '',
];

/** Not a difference: the record does not contain the field, so nothing was checked (the account's outcome stands). */
export const unverifiedCsvRow = (u: Reconciliation['unverifiedFields'][number]): string[] => [
  u.externalAccountNumber,
  u.differing ? 'completed_with_differences' : 'completed',
  'reconcile',
  'reconciliation_unverified',
  u.field,
  `not in the platform's record (${u.leaves} ${u.leaves === 1 ? 'value' : 'values'} unchecked)`,
  '',
];

export const postImportFailedCsvRow = (f: AfterImport['postImport']['failed'][number]): string[] => [
  f.externalAccountNumber,
  'post_import_failed',
  'post-import',
  f.code ?? 'post_import_failed',
  f.attr ?? '',
  f.detail ?? '',
  `${f.kind}:${f.key}`,
];

/** CSV rows in the fix list's columns: a difference per row, an unverified field per row, a failed post-import item per row. */
export function afterImportCsvRows(a: AfterImport | undefined): string[][] {
  if (!a) return [];
  return [
    ...a.reconciliation.differences.map(differenceCsvRow),
    ...a.reconciliation.unverifiedFields.map(unverifiedCsvRow),
    ...a.postImport.failed.map(postImportFailedCsvRow),
  ];
}
