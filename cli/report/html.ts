import { runWorkflowId } from '../../domain/workflow-ids';
import { EXAMPLES_PER_CODE, type ReportData } from './data';
import { afterImportHtml } from './after-import';

/**
 * The run report as one self-contained HTML file (inline CSS, inline SVG, no script): people open it
 * from an email or a share. Every value from the data goes through `escapeHtml`; source data may
 * hold markup.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** Temporal UI link of one execution; the id is URL-encoded, then the whole href is escaped. */
export function uiLink(data: Pick<ReportData, 'temporalUiUrl' | 'namespace'>, workflowId: string): string {
  return `${data.temporalUiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(data.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

const fmt = (n: number) => n.toLocaleString('en-GB');
const pct = (n: number, d: number) => (d > 0 ? `${((100 * n) / d).toFixed(1)}%` : '–');

/** Horizontal bar chart: one labelled bar per item, width proportional to its count. */
export function horizontalBarChart(id: string, title: string, items: Array<{ label: string; count: number }>, colour: string): string {
  if (items.length === 0) return `<figure class="chart"><figcaption>${escapeHtml(title)}</figcaption><p class="empty">None.</p></figure>`;
  const rowH = 24;
  const labelW = 260;
  const barW = 360;
  const max = Math.max(...items.map((i) => i.count), 1);
  const height = items.length * rowH + 8;
  const rows = items
    .map((item, i) => {
      const y = 4 + i * rowH;
      const w = Math.max(2, Math.round((item.count / max) * barW));
      const label = item.label.length > 38 ? `${item.label.slice(0, 37)}…` : item.label;
      return (
        `<g><title>${escapeHtml(item.label)}: ${item.count}</title>` +
        `<text x="${labelW - 8}" y="${y + 16}" text-anchor="end" class="lbl">${escapeHtml(label)}</text>` +
        `<rect class="bar" data-label="${escapeHtml(item.label)}" data-count="${item.count}" x="${labelW}" y="${y + 3}" width="${w}" height="${rowH - 8}" fill="${colour}" rx="2"></rect>` +
        `<text x="${labelW + w + 6}" y="${y + 16}" class="val">${fmt(item.count)}</text></g>`
      );
    })
    .join('');
  return (
    `<figure class="chart"><figcaption>${escapeHtml(title)}</figcaption>` +
    `<svg id="${escapeHtml(id)}" data-chart="${escapeHtml(id)}" xmlns="http://www.w3.org/2000/svg" width="${labelW + barW + 70}" height="${height}" role="img" aria-label="${escapeHtml(title)}">${rows}</svg></figure>`
  );
}

/** Vertical bars, one per minute with finished accounts (gaps shown as empty minutes). */
export function throughputChart(points: Array<{ minute: string; count: number }>): string {
  const title = 'Throughput: accounts finished per minute';
  if (points.length === 0) return `<figure class="chart"><figcaption>${title}</figcaption><p class="empty">No account has finished yet.</p></figure>`;
  const byMinute = new Map(points.map((p) => [Date.parse(p.minute), p.count]));
  const first = Math.min(...byMinute.keys());
  const last = Math.max(...byMinute.keys());
  const minutes: Array<{ t: number; count: number }> = [];
  // A long run is drawn at most 240 minutes wide; longer spans keep their busiest minutes in order.
  for (let t = first; t <= last && minutes.length < 240; t += 60_000) minutes.push({ t, count: byMinute.get(t) ?? 0 });
  const chartH = 160;
  const barW = Math.max(3, Math.min(40, Math.floor(640 / minutes.length) - 2));
  const max = Math.max(...minutes.map((m) => m.count), 1);
  const left = 40;
  // Wide enough for the start and end labels even when the run fits in one minute.
  const width = Math.max(260, left + minutes.length * (barW + 2) + 10);
  const bars = minutes
    .map((m, i) => {
      const h = Math.round((m.count / max) * chartH);
      const x = left + i * (barW + 2);
      const label = new Date(m.t).toISOString().slice(11, 16);
      return `<g><title>${escapeHtml(label)} UTC: ${m.count}</title><rect class="bar" data-minute="${escapeHtml(new Date(m.t).toISOString())}" data-count="${m.count}" x="${x}" y="${10 + chartH - h}" width="${barW}" height="${h}" fill="#3b82f6"></rect></g>`;
    })
    .join('');
  const axis =
    `<line x1="${left - 2}" y1="${10 + chartH}" x2="${width}" y2="${10 + chartH}" stroke="#999"></line>` +
    `<text x="${left - 6}" y="18" text-anchor="end" class="val">${max}</text><text x="${left - 6}" y="${10 + chartH}" text-anchor="end" class="val">0</text>` +
    `<text x="${left}" y="${chartH + 28}" class="val">${escapeHtml(new Date(first).toISOString().slice(11, 16))} UTC</text>` +
    (minutes.length > 1
      ? `<text x="${width - 10}" y="${chartH + 28}" text-anchor="end" class="val">${escapeHtml(new Date(minutes[minutes.length - 1].t).toISOString().slice(11, 16))} UTC</text>`
      : '');
  return `<figure class="chart"><figcaption>${title}</figcaption><svg id="throughput" data-chart="throughput" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${chartH + 36}" role="img" aria-label="${title}">${axis}${bars}</svg></figure>`;
}

export const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1f2937}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #e5e7eb;padding-bottom:.3rem}
.meta{color:#6b7280}.cards{display:flex;gap:1rem;flex-wrap:wrap;margin:1rem 0}
.card{border:1px solid #e5e7eb;border-radius:6px;padding:.6rem 1rem;min-width:120px}.card b{display:block;font-size:1.4rem}
.ok b{color:#15803d}.bad b{color:#b91c1c}.na b{color:#a16207}
.charts{display:flex;flex-wrap:wrap;gap:2rem}.chart{margin:0}.chart figcaption{font-weight:600;margin-bottom:.4rem}
svg .lbl,svg .val{font-size:12px;fill:#374151}.empty{color:#6b7280}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid #e5e7eb;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#f9fafb}code{font-size:12px;background:#f3f4f6;padding:0 .2rem;border-radius:3px}ul.errs{margin:0;padding-left:1rem}
`;

function inboxSection(inbox: ReportData['inbox']): string {
  if (!inbox) return '';
  const parts = Object.entries(inbox.byStatus)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${escapeHtml(k)} ${fmt(n)}`)
    .join(' · ');
  return `<p id="inbox" class="meta">Platform events received during the run: ${fmt(inbox.total)}${parts ? ` (${parts})` : ''}; deliveries rejected: ${fmt(inbox.rejected)}.</p>`;
}

/** One example account's row: its link, outcome, stage, and every error it recorded. */
function exampleRow(data: ReportData, ext: string, errs: ReportData['examples']): string {
  const first = errs[0];
  const items = errs
    .map(
      (e) =>
        `<li><code>${escapeHtml(e.code)}</code>${e.attr ? ` at <code>${escapeHtml(e.attr)}</code>` : ''}${e.detail ? `: ${escapeHtml(e.detail)}` : ''}` +
        `${e.sourceField ? ` <span class="meta">(source: ${escapeHtml(e.sourceField)})</span>` : ''}</li>`,
    )
    .join('');
  return (
    `<tr><td><a class="wf" href="${escapeHtml(uiLink(data, first.workflowId))}" data-workflow-id="${escapeHtml(first.workflowId)}">${escapeHtml(ext)}</a></td>` +
    `<td>${escapeHtml(first.outcome === 'not_attempted' ? 'not attempted' : first.outcome)}</td><td>${escapeHtml(first.stage)}</td><td><ul class="errs">${items}</ul></td></tr>`
  );
}

/**
 * Per error code (failuresByCode's order): how many accounts, a page of examples, and how many
 * more the CSV has. An account is listed under the code it recorded; its rows show all its errors.
 */
function failedSection(data: ReportData): string {
  if (data.failedAccounts === 0) return `<p id="failed-accounts" class="empty">None: every account completed.</p>`;
  const byCode = new Map<string, Map<string, ReportData['examples']>>();
  for (const e of data.examples) {
    const accounts = byCode.get(e.recordedCode) ?? byCode.set(e.recordedCode, new Map()).get(e.recordedCode)!;
    accounts.set(e.externalAccountNumber, [...(accounts.get(e.externalAccountNumber) ?? []), e]);
  }
  const groups = data.failuresByCode.map((c) => {
    const accounts = byCode.get(c.label) ?? new Map<string, ReportData['examples']>();
    const rest = c.count - accounts.size;
    return (
      `<h3 data-code="${escapeHtml(c.label)}"><code>${escapeHtml(c.label)}</code>: ${fmt(c.count)} ${c.count === 1 ? 'account' : 'accounts'}</h3>` +
      `<table class="failed-accounts" data-code="${escapeHtml(c.label)}"><thead><tr><th>Account</th><th>Outcome</th><th>Stage</th><th>Errors</th></tr></thead><tbody>\n` +
      [...accounts].map(([ext, errs]) => exampleRow(data, ext, errs)).join('\n') +
      `\n</tbody></table>` +
      (rest > 0 ? `<p class="meta more" data-code="${escapeHtml(c.label)}">${fmt(rest)} more with this code in failed-accounts.csv.</p>` : '')
    );
  });
  return `<div id="failed-accounts">${groups.join('\n')}</div>`;
}

export function renderReportHtml(data: ReportData): string {
  const t = data.totals;
  const card = (cls: string, label: string, n: number, extra = '') => `<div class="card ${cls}"><b>${fmt(n)}</b>${escapeHtml(label)}${extra}</div>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Migration run ${escapeHtml(data.runId)}</title><style>${CSS}</style></head>
<body>
<h1>Migration run ${escapeHtml(data.runId)}${data.dryRun ? ' (dry run)' : ''}</h1>
<p class="meta">Supplier <b>${escapeHtml(data.supplierCode)}</b> · status <b>${escapeHtml(data.status)}</b> · started ${escapeHtml(data.startedAt)}${data.finishedAt ? ` · finished ${escapeHtml(data.finishedAt)}` : ''} · report generated ${escapeHtml(data.generatedAt)} ·
<a href="${escapeHtml(uiLink(data, runWorkflowId(data.runId)))}">run in the Temporal UI</a></p>
<div class="cards" id="totals">
${card('', 'accounts', t.accounts)}${card('ok', 'completed', t.completed, ` <span class="meta">${pct(t.completed, t.accounts)}</span>`)}${card('bad', 'failed', t.failed)}${card('na', 'not attempted', t.notAttempted)}${t.inProgress > 0 ? card('', 'in progress', t.inProgress) : ''}${card('na', 'not pre-checked', data.notPreChecked, ' <span class="meta">tariffs the platform decided</span>')}
</div>
<h2>Failures</h2>
<div class="charts">
${horizontalBarChart('by-code', 'Failed and not-attempted accounts by error code', data.failuresByCode, '#dc2626')}
${horizontalBarChart('by-stage', 'By stage where they stopped', data.failuresByStage, '#f59e0b')}
</div>
<h2>Progress</h2>
<div class="charts">
${throughputChart(data.throughput)}
${horizontalBarChart('outcome-sources', 'How outcomes were learned (event, poll, …)', data.outcomeSources, '#10b981')}
</div>
${inboxSection(data.inbox)}
${retryingSection(data)}
${censusSection(data)}
${supplySection(data)}
${afterImportHtml(data.afterImport, escapeHtml, fmt, (id) => uiLink(data, id))}
<h2>Failed and not-attempted accounts (${fmt(data.failedAccounts)})</h2>
<p class="meta">By error code, at most ${EXAMPLES_PER_CODE} example accounts each; failed-accounts.csv has every one.</p>
<div id="failed-accounts">${failedSection(data)}</div>
</body></html>
`;
}

/** The latest `supplier census` of the run's supplier: what the tenant holds beside the ledger, across every run. */
function censusSection(data: ReportData): string {
  const c = data.census;
  if (!c) return `<p id="census" class="meta">No supplier census taken yet (<code>kraken-migrate supplier census ${escapeHtml(data.supplierCode)}</code>).</p>`;
  const n = c.counts;
  const row = (label: string, count: number, meaning: string) => `<tr><td>${escapeHtml(label)}</td><td>${fmt(count)}</td><td>${escapeHtml(meaning)}</td></tr>`;
  return `<h2>Supplier census</h2>
<p class="meta">Taken ${escapeHtml(c.takenAt)} (across every run of ${escapeHtml(c.supplierCode)}): the tenant lists ${fmt(n.tenantImported)} imported and ${fmt(n.tenantPending)} pending; the ledger completed ${fmt(n.ledgerCompleted)}.</p>
<table id="census"><thead><tr><th>Class</th><th>Accounts</th><th>Meaning</th></tr></thead><tbody>
${row('platform only', n.platformOnly, 'held by the tenant, created by no run (imported elsewhere: a double-import risk)')}
${row('ledger only', n.ledgerOnly, 'completed by a run, no longer held by the tenant')}
${row('stuck pending', n.stuckPending, `pending at the tenant over ${c.stuckAfterSeconds} s since a run scheduled it`)}
${row('matched', n.matched, 'completed and held')}
${row('in flight', n.inFlight, 'a run is creating it')}
</tbody></table>
<p class="meta"><code>kraken-migrate supplier census ${escapeHtml(c.supplierCode)} --json</code> lists the accounts.</p>`;
}

/**
 * On a switch (docs/supply.md): accounts on supply (every point), ended short of it, or waiting; the
 * points by status, the ones still followed by days waited, and the refused ones with their detail.
 */
function supplySection(data: ReportData): string {
  const f = data.supply;
  if (!f) return '';
  const rows = (id: string, head: [string, string], entries: Array<[string, number]>) =>
    `<table id="${id}"><thead><tr><th>${head[0]}</th><th>${head[1]}</th></tr></thead><tbody>\n` +
    entries.map(([k, n]) => `<tr><td>${escapeHtml(k)}</td><td>${fmt(n)}</td></tr>`).join('\n') +
    `\n</tbody></table>`;
  const waited = Object.entries(f.waitingByDays).map(([d, n]): [string, number] => [`${d} ${d === '1' ? 'day' : 'days'}`, n]);
  const refused = f.refused.points
    .map(
      (p) =>
        `<tr><td>${escapeHtml(p.account)}</td><td><code>${escapeHtml(p.mpxn)}</code></td><td>${escapeHtml(p.status)}</td><td>${escapeHtml(p.outcome)}</td><td>${escapeHtml(p.since)}</td><td>${escapeHtml(p.detail ?? '')}</td></tr>`,
    )
    .join('\n');
  const more = f.refused.total - f.refused.points.length;
  return `<h2>Switch: meter points followed to supply</h2>
<div class="cards" id="supply-accounts">
<div class="card ok"><b>${fmt(f.accounts.onSupply)}</b>accounts on supply</div><div class="card bad"><b>${fmt(f.accounts.ended)}</b>ended short of it</div><div class="card"><b>${fmt(f.accounts.waiting)}</b>waiting</div>
</div>
<div class="charts">
${rows('supply-by-status', ['Status', 'Points'], Object.entries(f.byStatus))}
${waited.length ? rows('supply-waiting', ['Waited (since first read)', 'Points still followed'], waited) : '<p id="supply-waiting" class="meta">No point is still followed.</p>'}
</div>
<h3>Refused (${fmt(f.refused.total)}): objected, rejected, unable to register, withdrawn, or the flow refused</h3>
${f.refused.total ? `<table id="supply-refused"><thead><tr><th>Account</th><th>MPxN</th><th>Status</th><th>Outcome</th><th>Since</th><th>Detail</th></tr></thead><tbody>\n${refused}\n</tbody></table>` : '<p id="supply-refused" class="meta">None.</p>'}
<p class="meta">${more > 0 ? `${fmt(more)} more refused. ` : ''}<code>kraken-migrate run supply ${escapeHtml(data.runId)} --json</code> lists every point; <code>run resend-registration</code> sends refused ones again once their cause is cleared.</p>`;
}

/** Accounts still retrying a platform call when the report was made: they show only "Running" in the UI. */
function retryingSection(data: ReportData): string {
  const list = data.retrying ?? [];
  if (list.length === 0) return '';
  const rows = list
    .map(
      (r) =>
        `<tr><td><a class="wf" href="${escapeHtml(uiLink(data, r.workflowId))}">${escapeHtml(r.account)}</a></td><td>${escapeHtml(r.activity)}</td>` +
        `<td>${fmt(r.attempt)}</td><td><code>${escapeHtml(r.lastFailureCode ?? '')}</code> ${escapeHtml(r.lastFailureMessage ?? '')}</td><td>${escapeHtml(r.nextRetryAt ?? '')}</td></tr>`,
    )
    .join('\n');
  return `<h2>Retrying (${fmt(list.length)})</h2>
<p class="meta">Accounts whose platform call keeps failing and is being retried, from Temporal's pending activities when the report was made.</p>
<table id="retrying"><thead><tr><th>Account</th><th>Activity</th><th>Attempt</th><th>Last failure</th><th>Next retry</th></tr></thead>
<tbody>
${rows}
</tbody></table>`;
}
