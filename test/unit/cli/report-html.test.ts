import { describe, expect, it } from 'vitest';
import { escapeHtml, horizontalBarChart, renderReportHtml, throughputChart, uiLink } from '../../../cli/report/html';
import { HOSTILE, hostileReportData } from './fixtures/report-data';
import { censusLine, supplyLine } from '../../../cli/report/summary';

describe('escapeHtml', () => {
  it('escapes the five characters that matter in text and attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    expect(escapeHtml(undefined)).toBe('');
  });
});

describe('renderReportHtml with hostile source data', () => {
  const html = renderReportHtml(hostileReportData());

  /** Every real tag with its attribute names (quoted values removed: they may hold escaped text). */
  const tags = [...html.matchAll(/<([a-z][a-z0-9]*)\b([^>]*)>/gi)].map((m) => ({
    name: m[1].toLowerCase(),
    attrs: [...m[2].replace(/"[^"]*"/g, '""').matchAll(/\s([a-z][a-z0-9:-]*)=/gi)].map((a) => a[1].toLowerCase()),
  }));

  it('contains no markup from the data: no script element, no injected tag or event attribute', () => {
    expect(html).not.toMatch(/<script/i);
    expect(tags.filter((t) => ['script', 'img', 'iframe', 'object', 'link'].includes(t.name))).toEqual([]);
    expect(tags.flatMap((t) => t.attrs).filter((a) => a.startsWith('on'))).toEqual([]);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('SUP&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(html).toContain('phone&#39; onmouseover=&#39;alert(4)');
  });

  it('is self-contained: inline style, inline SVG, no external resource', () => {
    expect(html).toMatch(/<style>[^<]+<\/style>/);
    expect(tags.flatMap((t) => t.attrs).filter((a) => a === 'src')).toEqual([]);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html.match(/<svg /g)?.length).toBe(4);
  });

  it('links each failed account to its workflow, with the id URL-encoded', () => {
    const data = hostileReportData();
    const hrefs = [...html.matchAll(/<a class="wf" href="([^"]+)" data-workflow-id="([^"]+)">/g)];
    expect(hrefs).toHaveLength(3);
    const decoded = (s: string) =>
      s
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>');
    expect(hrefs.map((m) => decoded(m[1]))).toEqual(data.examples.map((e) => uiLink(data, e.workflowId)));
    expect(decodeURIComponent(decoded(hrefs[0][1]).split('/workflows/')[1])).toBe(data.examples[0].workflowId);
  });

  it('shows the totals', () => {
    expect(html).toMatch(/<b>7<\/b>completed/);
    expect(html).toMatch(/<b>2<\/b>failed/);
    expect(html).toMatch(/<b>1<\/b>not attempted/);
  });
});

describe('charts', () => {
  it('draws one bar per item, the largest full width, each labelled and escaped', () => {
    const svg = horizontalBarChart(
      'by-code',
      'Codes',
      [
        { label: 'a', count: 10 },
        { label: HOSTILE, count: 5 },
      ],
      '#f00',
    );
    const widths = [...svg.matchAll(/<rect class="bar"[^>]* width="(\d+)"/g)].map((m) => Number(m[1]));
    expect(widths).toEqual([360, 180]);
    expect(svg).not.toContain('<script');
  });

  it('draws throughput per minute, filling minutes with nothing finished as zero-height bars', () => {
    const svg = throughputChart([
      { minute: '2025-06-01T12:00:00.000Z', count: 4 },
      { minute: '2025-06-01T12:03:00.000Z', count: 8 },
    ]);
    const bars = [...svg.matchAll(/data-count="(\d+)"/g)].map((m) => Number(m[1]));
    expect(bars).toEqual([4, 0, 0, 8]);
  });

  it('says so when there is nothing to draw', () => {
    expect(throughputChart([])).toContain('No account has finished yet.');
    expect(horizontalBarChart('x', 'X', [], '#000')).toContain('None.');
  });
});

describe('the retrying section', () => {
  it('lists accounts still retrying (attempt, last failure, next retry, link), escaped; absent when none', () => {
    const data = hostileReportData();
    expect(renderReportHtml({ ...data, retrying: [] })).not.toContain('id="retrying"');
    const html = renderReportHtml({
      ...data,
      retrying: [
        {
          account: 'ACC-9',
          workflowId: 'account-import/SUP/ACC-9',
          activity: 'scheduleAccountCreation',
          attempt: 4,
          lastFailureCode: 'platform_unavailable',
          lastFailureMessage: `platform_unavailable: POST /v2/data-import/accounts/ -> 503 ${HOSTILE}`,
          nextRetryAt: '2030-01-01T00:00:08.000Z',
        },
      ],
    });
    const section = html.slice(html.indexOf('<h2>Retrying (1)</h2>'), html.indexOf('</table>', html.indexOf('id="retrying"')));
    expect(section).toContain('ACC-9');
    expect(section).toContain('<td>4</td>');
    expect(section).toContain('platform_unavailable');
    expect(section).toContain('2030-01-01T00:00:08.000Z');
    expect(section).toContain(encodeURIComponent('account-import/SUP/ACC-9'));
    expect(section).not.toContain('<script');
  });
});

describe('the supplier census in the report', () => {
  const counts = { tenantImported: 12, tenantPending: 3, ledgerCompleted: 10, matched: 9, inFlight: 1, platformOnly: 4, ledgerOnly: 1, stuckPending: 2 };
  const census = { supplierCode: 'SUP', takenAt: '2030-01-01T00:00:00.000Z', stuckAfterSeconds: 3600, counts };

  it('shows the latest census class by class, or how to take one', () => {
    const html = renderReportHtml({ ...hostileReportData(), census });
    const rows = [...html.matchAll(/<tr><td>([a-z ]+)<\/td><td>(\d+)<\/td>/g)].map((m) => [m[1], Number(m[2])]);
    expect(rows).toEqual([
      ['platform only', 4],
      ['ledger only', 1],
      ['stuck pending', 2],
      ['matched', 9],
      ['in flight', 1],
    ]);
    expect(html).toContain('the tenant lists 12 imported and 3 pending; the ledger completed 10');
    expect(html).toContain('over 3600 s');
    expect(renderReportHtml({ ...hostileReportData(), census: null })).toContain('No supplier census taken yet');
  });

  it('one summary line', () => {
    expect(censusLine(census)).toBe(
      'Supplier census 2030-01-01T00:00:00.000Z: platform only 4 (imported elsewhere), ledger only 1, stuck pending 2 (over 3600 s); the tenant lists 12 imported, 3 pending',
    );
  });
});

describe('the switch funnel in the report', () => {
  const supply = {
    byStatus: { ON_SUPPLY: 5, REGISTRATION_OBJECTED: 1, PRE_REGISTRATION: 1, REGISTRATION_REQUESTED: 2 },
    waitingByDays: { '0': 1, '3': 1 },
    accounts: { onSupply: 2, ended: 2, waiting: 2 },
    refused: {
      total: 3,
      points: [
        { account: 'ACC-1', mpxn: '1012345678901', status: 'REGISTRATION_OBJECTED', outcome: 'objected', since: '2030-01-02T00:00:00.000Z', detail: null },
        { account: 'ACC-2', mpxn: `9${HOSTILE}`, status: 'PRE_REGISTRATION', outcome: 'flow_refused', since: '2030-01-01T00:00:00.000Z', detail: HOSTILE },
      ],
    },
  };
  const cells = (html: string, id: string) =>
    [...html.slice(html.indexOf(`id="${id}"`), html.indexOf('</table>', html.indexOf(`id="${id}"`))).matchAll(/<tr>(.*?)<\/tr>/g)]
      .map((m) => [...m[1].matchAll(/<td>(.*?)<\/td>/g)].map((c) => c[1].replace(/<\/?code>/g, '')))
      .filter((row) => row.length > 0);

  it('shows accounts on supply, points by status and by days waited, and the refused points with their detail, escaped', () => {
    const html = renderReportHtml({ ...hostileReportData(), supply });
    expect(html).toContain('<h2>Switch: meter points followed to supply</h2>');
    expect(html).toMatch(/<b>2<\/b>accounts on supply<\/div><div class="card bad"><b>2<\/b>ended short of it<\/div><div class="card"><b>2<\/b>waiting/);
    expect(cells(html, 'supply-by-status')).toEqual([
      ['ON_SUPPLY', '5'],
      ['REGISTRATION_OBJECTED', '1'],
      ['PRE_REGISTRATION', '1'],
      ['REGISTRATION_REQUESTED', '2'],
    ]);
    expect(cells(html, 'supply-waiting')).toEqual([
      ['0 days', '1'],
      ['3 days', '1'],
    ]);
    const refused = cells(html, 'supply-refused');
    expect(refused[0]).toEqual(['ACC-1', '1012345678901', 'REGISTRATION_OBJECTED', 'objected', '2030-01-02T00:00:00.000Z', '']);
    expect(refused[1].slice(2, 4)).toEqual(['PRE_REGISTRATION', 'flow_refused']);
    expect(refused[1][5]).toBe(escapeHtml(HOSTILE));
    expect(html).toContain('Refused (3)');
    expect(html).toContain('1 more refused.');
    expect(html).not.toContain(HOSTILE);
  });

  it('says when nothing is refused or still followed; absent on a run that is not a switch', () => {
    const settled = renderReportHtml({ ...hostileReportData(), supply: { ...supply, waitingByDays: {}, refused: { total: 0, points: [] } } });
    expect(settled).toContain('<p id="supply-waiting" class="meta">No point is still followed.</p>');
    expect(settled).toContain('<p id="supply-refused" class="meta">None.</p>');
    expect(settled).not.toContain('more refused');
    expect(renderReportHtml({ ...hostileReportData(), supply: null })).not.toContain('Switch:');
  });

  it('one summary line, as run status prints it', () => {
    expect(supplyLine(supply, 'run-1')).toBe(
      'Switch: accounts 2 on supply, 2 ended short of it, 2 waiting; points ON_SUPPLY 5, REGISTRATION_OBJECTED 1, PRE_REGISTRATION 1, REGISTRATION_REQUESTED 2; waiting 1 for 0 d, 1 for 3 d; refused 3 (run supply run-1)',
    );
  });
});
