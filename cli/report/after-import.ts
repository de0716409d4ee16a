import type { AfterImport } from '../../ledger/after-import-report';

/**
 * The report's after-import section: reconciliation (checked; matched, differing, unverified, by field) and
 * the changes carried over. Paths and counts only: expected and found values stay in the CSV and
 * the ledger.
 */
export function afterImportHtml(
  a: AfterImport | undefined,
  esc: (v: unknown) => string,
  fmt: (n: number) => string,
  link: (workflowId: string) => string = () => '#',
): string {
  if (!a) return '';
  const r = a.reconciliation;
  // Per field, accounts in three words; a field the record does not contain is unverified, not differing.
  const byField = r.fields.length
    ? `<table id="reconciliation-by-field"><thead><tr><th>Field</th><th>Accounts matched</th><th>differing</th><th>unverified (not in the platform's record)</th></tr></thead><tbody>${r.fields
        .map((f) => `<tr><td><code>${esc(f.field)}</code></td><td>${fmt(f.matched)}</td><td>${fmt(f.differing)}</td><td>${fmt(f.unverified)}</td></tr>`)
        .join('')}</tbody></table>`
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
            .map(
              (f) =>
                `<tr><td>${esc(f.externalAccountNumber)}</td><td>${esc(`${f.kind} ${f.key}`)}</td><td><code>${esc(f.code ?? '')}</code></td><td><code>${esc(f.attr ?? '')}</code></td></tr>`,
            )
            .join('')}</tbody></table>`
        : '')
    : '';
  const b = r.balances;
  const balances =
    b && b.accounts > 0
      ? `<p id="reconciliation-balances" class="meta">Opening balances in pence over ${fmt(b.accounts)} accounts read back: source <b>${esc(b.sourcePence)}</b>, platform <b>${esc(b.platformPence)}</b>, difference <b>${esc(b.differencePence)}</b>.</p>`
      : '';
  const sample = r.reviewSample.length
    ? `<h3>Sample for review</h3><table id="review-sample"><thead><tr><th>Account</th><th>Platform account</th><th>Outcome</th></tr></thead><tbody>${r.reviewSample
        .map(
          (s) =>
            `<tr><td><a class="wf" href="${esc(link(s.workflowId))}">${esc(s.externalAccountNumber)}</a></td><td>${esc(s.accountNumber)}</td><td>${esc(s.outcome)}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '';
  return `<h2>Reconciliation</h2>
<p id="reconciliation" class="meta">Accounts read back: checked <b>${fmt(r.checked)}</b>, matched <b>${fmt(r.matched)}</b>, differing <b>${fmt(r.differing + r.missing)}</b>${r.missing ? ` (of which not found: ${fmt(r.missing)})` : ''}, unverified <b>${fmt(r.unverified)}</b> (accounts with a field the platform's record does not contain: not checked, never a difference).</p>
${balances}
${byField}
${differing}
${sample}
${post}`;
}
