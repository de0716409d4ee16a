import { z } from 'zod';
import type { Pool } from '../../clients/db';
import { createPostImportLedger } from '../../ledger/post-import-items';
import { createReconciliationLedger } from '../../ledger/reconciliation';

/**
 * The report's after-import part: reconciliation (checked, matched, differing, by field) and the
 * changes carried over. The HTML shows paths and counts; the CSV, the operator's fix list, also
 * has expected and found values (it already carries the platform's error details).
 */
export const afterImportSchema = z.object({
  reconciliation: z.object({
    checked: z.number(),
    matched: z.number(),
    differing: z.number(),
    missing: z.number(),
    byField: z.array(z.object({ label: z.string(), count: z.number() })),
    differences: z.array(z.object({ externalAccountNumber: z.string(), path: z.string(), field: z.string(), expected: z.unknown(), found: z.unknown() })),
  }),
  postImport: z.object({
    byStatus: z.record(z.string(), z.number()),
    failed: z.array(z.object({ externalAccountNumber: z.string(), kind: z.string(), key: z.string(), code: z.string().nullable(), attr: z.string().nullable(), detail: z.string().nullable() })),
  }),
});
export type AfterImport = z.infer<typeof afterImportSchema>;

export async function loadAfterImport(pool: Pool, runId: string): Promise<AfterImport> {
  const recon = createReconciliationLedger(pool);
  const items = createPostImportLedger(pool);
  const [summary, differences, post, failed] = await Promise.all([recon.summary(runId), recon.differences(runId), items.summary(runId), items.failedItems(runId)]);
  return {
    reconciliation: {
      checked: summary.checked,
      matched: summary.matched,
      differing: summary.differing,
      missing: summary.missing,
      byField: Object.entries(summary.byField).map(([label, count]) => ({ label, count })),
      differences,
    },
    postImport: { byStatus: post.byStatus, failed },
  };
}

const show = (v: unknown) => (v === undefined || v === null ? '(absent)' : typeof v === 'string' ? v : JSON.stringify(v));

/** CSV rows in the fix list's columns: a difference per row, a failed post-import item per row. */
export function afterImportCsvRows(a: AfterImport | undefined): string[][] {
  if (!a) return [];
  return [
    ...a.reconciliation.differences.map((d) => [d.externalAccountNumber, 'completed_with_differences', 'reconcile', 'reconciliation_difference', d.path, `expected ${show(d.expected)}, found ${show(d.found)}`, '']),
    ...a.postImport.failed.map((f) => [f.externalAccountNumber, 'post_import_failed', 'post-import', f.code ?? 'post_import_failed', f.attr ?? '', f.detail ?? '', `${f.kind}:${f.key}`]),
  ];
}

export function afterImportHtml(a: AfterImport | undefined, esc: (v: unknown) => string, fmt: (n: number) => string): string {
  if (!a) return '';
  const r = a.reconciliation;
  const byField = r.byField.length
    ? `<table id="reconciliation-by-field"><thead><tr><th>Field</th><th>Accounts differing</th></tr></thead><tbody>${r.byField.map((f) => `<tr><td><code>${esc(f.label)}</code></td><td>${fmt(f.count)}</td></tr>`).join('')}</tbody></table>`
    : '';
  const accounts = new Map<string, string[]>();
  for (const d of r.differences) accounts.set(d.externalAccountNumber, [...(accounts.get(d.externalAccountNumber) ?? []), d.path]);
  const differing = accounts.size
    ? `<table id="reconciliation-accounts"><thead><tr><th>Account</th><th>Differing paths</th></tr></thead><tbody>${[...accounts]
        .slice(0, 2000)
        .map(([ext, paths]) => `<tr><td>${esc(ext)}</td><td>${paths.map((p) => `<code>${esc(p)}</code>`).join(' ')}</td></tr>`)
        .join('')}</tbody></table>`
    : '';
  const p = a.postImport.byStatus;
  const items = Object.values(p).reduce((x, y) => x + y, 0);
  const post = items
    ? `<h2>Changes after import</h2><p id="post-import" class="meta">Items ${fmt(items)}: completed ${fmt(p.completed ?? 0)}, post_import_failed ${fmt(p.post_import_failed ?? 0)}, in flight ${fmt((p.pending ?? 0) + (p.sending ?? 0) + (p.sent ?? 0))}.</p>` +
      (a.postImport.failed.length
        ? `<table id="post-import-failed"><thead><tr><th>Account</th><th>Item</th><th>Code</th><th>Attr</th></tr></thead><tbody>${a.postImport.failed
            .map((f) => `<tr><td>${esc(f.externalAccountNumber)}</td><td>${esc(`${f.kind} ${f.key}`)}</td><td><code>${esc(f.code ?? '')}</code></td><td><code>${esc(f.attr ?? '')}</code></td></tr>`)
            .join('')}</tbody></table>`
        : '')
    : '';
  return `<h2>Reconciliation</h2>
<p id="reconciliation" class="meta">Accounts read back: checked <b>${fmt(r.checked)}</b>, matched <b>${fmt(r.matched)}</b>, differing <b>${fmt(r.differing + r.missing)}</b>${r.missing ? ` (of which not found: ${fmt(r.missing)})` : ''}.</p>
${byField}
${differing}
${post}`;
}
