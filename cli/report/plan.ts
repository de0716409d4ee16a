// `kraken-migrate plan report ID` (docs/plan.md): planned against actual per wave and per local day,
// as report.html (inline SVG, no network) and two CSV files, written like the run report (0600 files
// in a 0700 folder). Counts, wave names and sign-offs only: no account of anyone is in it.
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Pool } from '../../clients/db';
import { planStatusQuery, type PlanStatus, type WaveStatus } from '../../domain/plan-messages';
import { planAgainstActual, plannedPerDay, type DayRow } from '../../domain/plan-report';
import { formatRate, onSupplyRate, supplyGate } from '../../domain/plan-gates';
import { planWorkflowId } from '../../domain/workflow-ids';
import { planSignOffs, type SignOff } from '../../ledger/plan-sign-offs';
import { startedPerDay } from '../../ledger/plan-report';
import { trialLoads, type TrialLoad } from '../actions/compare';
import { loadCliContext, withServices } from '../context';
import { usageError } from '../errors';
import { optionsSchema, parseOptions } from '../option-schema';
import { PLAN_REPORT_OPTIONS } from '../options/report';
import { printJson, println } from '../output';
import { toCsv } from './csv';
import { CSS, escapeHtml } from './html';
import { freshFile, reportFolder } from './write';

export interface PlanReportWave {
  status: WaveStatus;
  days: DayRow[];
  trials: TrialLoad[];
}

export interface PlanReportData {
  plan: PlanStatus;
  waves: PlanReportWave[];
  signOffs: SignOff[];
  generatedAt: string;
}

/** Each wave's days: planned from its windows, cap and size; actual from the ledger (its real run only: trial loads create nothing). */
export async function loadPlanReport(pool: Pool, plan: PlanStatus): Promise<PlanReportData> {
  const waves: PlanReportWave[] = [];
  for (const w of plan.waves) {
    const realRun = w.runs[w.runs.length - 1];
    const intervals = w.windows.map((x) => ({ start: Date.parse(x.start), end: Date.parse(x.end) }));
    const planned = plannedPerDay({ intervals, zone: plan.timezone, dailyCap: w.daily_cap, planned: w.accounts.planned });
    const actual = await startedPerDay(pool, realRun, plan.timezone);
    waves.push({ status: w, days: planAgainstActual(planned, actual), trials: w.dry_run ? await trialLoads(pool, plan.id, w.name) : [] });
  }
  return { plan, waves, signOffs: await planSignOffs(pool, plan.id), generatedAt: new Date().toISOString() };
}

export const WAVE_CSV_HEADER = [
  'wave',
  'state',
  'planned',
  'started',
  'completed',
  'failed',
  'not_attempted',
  'trial_loads',
  'dry_run_pass_rate',
  'min_dry_run_pass_rate',
  'reconciled_rate',
  'min_reconciled_rate',
  'entry_signed_by',
  'exit_signed_by',
  'meter_points',
  'on_supply',
  'on_supply_rate',
  'min_on_supply_rate',
  'points_still_followed',
  'points_past_max_days',
  'max_days_to_supply',
] as const;
export const DAY_CSV_HEADER = ['wave', 'day', 'planned', 'started', 'completed', 'failed'] as const;

export function waveCsv(d: PlanReportData): string {
  return toCsv(
    WAVE_CSV_HEADER,
    d.waves.map(({ status: w, trials }) => [
      w.name,
      w.state,
      w.accounts.planned,
      w.accounts.started,
      w.accounts.completed,
      w.accounts.failed,
      w.accounts.not_attempted,
      trials.length,
      w.dry_run?.pass_rate ?? '',
      w.dry_run?.min_pass_rate ?? '',
      w.gates.exit.reconciled_rate ?? '',
      w.gates.exit.min_reconciled_rate ?? '',
      w.gates.entry.approved_by ?? '',
      w.gates.exit.approved_by ?? '',
      ...supplyCells(w.gates.exit.supply),
    ]),
  );
}

/** The switch's numbers the exit gate last read, blank for a wave without its rules. */
function supplyCells(x: WaveStatus['gates']['exit']['supply']): Array<number | string> {
  if (!x) return ['', '', '', '', '', '', ''];
  return [x.points, x.on_supply, onSupplyRate(x) ?? '', x.min_on_supply_rate ?? '', x.waiting, x.over_max_days, x.max_days_to_supply ?? ''];
}

export function dayCsv(d: PlanReportData): string {
  return toCsv(
    DAY_CSV_HEADER,
    d.waves.flatMap(({ status, days }) => days.map((x) => [status.name, x.day, x.planned, x.started, x.completed, x.failed])),
  );
}

const fmt = (n: number | null) => (n === null ? '–' : n.toLocaleString('en-GB'));

/** Per day, two bars: planned (outline) and started (filled; its failed part red). */
export function dayChart(wave: string, days: DayRow[]): string {
  const title = `Wave ${wave}: accounts planned and started per day`;
  if (days.length === 0) return `<figure class="chart"><figcaption>${escapeHtml(title)}</figcaption><p class="empty">No window.</p></figure>`;
  const chartH = 140;
  const slot = Math.max(14, Math.min(60, Math.floor(720 / days.length)));
  const barW = Math.max(5, Math.floor(slot / 2) - 2);
  const left = 50;
  const max = Math.max(1, ...days.map((d) => Math.max(d.planned ?? 0, d.started)));
  const h = (n: number) => Math.round((n / max) * chartH);
  const bars = days
    .map((d, i) => {
      const x = left + i * slot;
      const p = d.planned ?? 0;
      return (
        `<g data-day="${escapeHtml(d.day)}"><title>${escapeHtml(d.day)}: planned ${fmt(d.planned)}, started ${d.started}, completed ${d.completed}, failed ${d.failed}</title>` +
        `<rect class="planned" data-count="${d.planned ?? ''}" x="${x}" y="${10 + chartH - h(p)}" width="${barW}" height="${h(p)}" fill="none" stroke="#6b7280" stroke-dasharray="3 2"></rect>` +
        `<rect class="started" data-count="${d.started}" x="${x + barW + 2}" y="${10 + chartH - h(d.started)}" width="${barW}" height="${h(d.started)}" fill="#3b82f6"></rect>` +
        `<rect class="failed" data-count="${d.failed}" x="${x + barW + 2}" y="${10 + chartH - h(d.failed)}" width="${barW}" height="${h(d.failed)}" fill="#dc2626"></rect>` +
        (days.length <= 16 || i % Math.ceil(days.length / 16) === 0
          ? `<text x="${x}" y="${chartH + 26}" class="val">${escapeHtml(d.day.slice(5))}</text>`
          : '') +
        `</g>`
      );
    })
    .join('');
  const width = Math.max(300, left + days.length * slot + 20);
  const axis =
    `<line x1="${left - 2}" y1="${10 + chartH}" x2="${width}" y2="${10 + chartH}" stroke="#999"></line>` +
    `<text x="${left - 6}" y="18" text-anchor="end" class="val">${max}</text><text x="${left - 6}" y="${10 + chartH}" text-anchor="end" class="val">0</text>`;
  return `<figure class="chart"><figcaption>${escapeHtml(title)} <span class="meta">(dashed: planned; blue: started; red: of them failed)</span></figcaption><svg data-chart="days-${escapeHtml(wave)}" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${chartH + 36}" role="img" aria-label="${escapeHtml(title)}">${axis}${bars}</svg></figure>`;
}

/** One bar pair a wave: planned and started, on one scale. */
export function waveChart(waves: PlanReportWave[]): string {
  const rowH = 34;
  const labelW = 160;
  const barW = 420;
  const max = Math.max(1, ...waves.map((w) => Math.max(w.status.accounts.planned ?? 0, w.status.accounts.started)));
  const rows = waves
    .map(({ status: w }, i) => {
      const y = 4 + i * rowH;
      const p = Math.round(((w.accounts.planned ?? 0) / max) * barW);
      const s = Math.round((w.accounts.started / max) * barW);
      return (
        `<g data-wave="${escapeHtml(w.name)}"><title>${escapeHtml(w.name)}: planned ${fmt(w.accounts.planned)}, started ${w.accounts.started}</title>` +
        `<text x="${labelW - 8}" y="${y + 18}" text-anchor="end" class="lbl">${escapeHtml(w.name)}</text>` +
        `<rect class="planned" data-count="${w.accounts.planned ?? ''}" x="${labelW}" y="${y + 2}" width="${p}" height="12" fill="none" stroke="#6b7280" stroke-dasharray="3 2"></rect>` +
        `<rect class="started" data-count="${w.accounts.started}" x="${labelW}" y="${y + 16}" width="${s}" height="12" fill="#3b82f6"></rect>` +
        `<text x="${labelW + Math.max(p, s) + 6}" y="${y + 18}" class="val">${w.accounts.started} / ${fmt(w.accounts.planned)}</text></g>`
      );
    })
    .join('');
  return `<figure class="chart"><figcaption>Planned against started, per wave</figcaption><svg data-chart="waves" xmlns="http://www.w3.org/2000/svg" width="${labelW + barW + 110}" height="${waves.length * rowH + 8}" role="img" aria-label="Planned against started, per wave">${rows}</svg></figure>`;
}

/** `9 of 10 on supply (90.0%, min 95.0%), 1 still followed, 0 past 14 days: pending`; a dash without the switch's rules. */
function switchCell(x: WaveStatus['gates']['exit']['supply']): string {
  if (!x) return '–';
  const min = x.min_on_supply_rate === null ? '' : `, min ${formatRate(x.min_on_supply_rate)}`;
  const days = x.max_days_to_supply === null ? '' : `, ${x.over_max_days} past ${x.max_days_to_supply} days`;
  return `${x.on_supply} of ${x.points} on supply (${formatRate(onSupplyRate(x))}${min}), ${x.waiting} still followed${days}: ${supplyGate(x)}`;
}

export function renderPlanReportHtml(d: PlanReportData): string {
  const p = d.plan;
  const gate = (g: WaveStatus['gates']['entry']) =>
    g.state === 'not_required' ? 'none' : `${escapeHtml(g.state)}${g.approved_by ? ` by ${escapeHtml(g.approved_by)} at ${escapeHtml(g.approved_at)}` : ''}`;
  const waveRows = d.waves
    .map(({ status: w, trials }) => {
      const a = w.accounts;
      return (
        `<tr data-wave="${escapeHtml(w.name)}"><td>${escapeHtml(w.name)}</td><td>${escapeHtml(w.state)}</td><td>${fmt(a.planned)}</td><td>${a.started}</td><td>${a.completed}</td><td>${a.failed}</td><td>${a.not_attempted}</td>` +
        `<td>${trials.length ? `${trials.length}; last pass rate ${escapeHtml(formatRate(w.dry_run?.pass_rate ?? null))}${w.dry_run?.min_pass_rate != null ? ` (min ${escapeHtml(formatRate(w.dry_run.min_pass_rate))})` : ''}` : '–'}</td>` +
        `<td>${escapeHtml(formatRate(w.gates.exit.reconciled_rate))}</td><td>${gate(w.gates.entry)}</td><td>${gate(w.gates.exit)}</td>` +
        `<td>${escapeHtml(switchCell(w.gates.exit.supply))}</td></tr>`
      );
    })
    .join('\n');
  const trialRows = d.waves
    .flatMap(({ status: w, trials }) =>
      trials.map(
        (t) =>
          `<tr data-run="${escapeHtml(t.runId)}"><td>${escapeHtml(w.name)}</td><td>${escapeHtml(t.runId)}</td><td>${escapeHtml(t.startedAt)}</td><td>${t.completed}</td><td>${t.failed}</td><td>${t.not_attempted}</td><td>${escapeHtml(formatRate(t.passRate))}</td></tr>`,
      ),
    )
    .join('\n');
  const signOffs = d.signOffs
    .map(
      (s) =>
        `<tr><td>${escapeHtml(s.wave)}</td><td>${escapeHtml(s.gate)}</td><td>${escapeHtml(s.signedBy)}</td><td>${escapeHtml(s.signedAt)}</td><td>${escapeHtml(s.note ?? '')}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Cutover plan ${escapeHtml(p.id)}</title><style>${CSS}</style></head>
<body>
<h1>Cutover plan ${escapeHtml(p.id)}</h1>
<p class="meta">${escapeHtml(p.name)} · ${escapeHtml(p.timezone)} · ${escapeHtml(p.state)} · report generated ${escapeHtml(d.generatedAt)} · days are local days of ${escapeHtml(p.timezone)}</p>
<h2>Waves</h2>
<table id="waves"><thead><tr><th>Wave</th><th>State</th><th>Planned</th><th>Started</th><th>Completed</th><th>Failed</th><th>Not attempted</th><th>Trial loads</th><th>Reconciled</th><th>Entry gate</th><th>Exit gate</th><th>Switch</th></tr></thead>
<tbody>
${waveRows}
</tbody></table>
<div class="charts">${waveChart(d.waves)}</div>
<h2>Per day</h2>
<div class="charts">
${d.waves.map((w) => dayChart(w.status.name, w.days)).join('\n')}
</div>
${trialRows ? `<h2>Trial loads (dry runs)</h2>\n<table id="trials"><thead><tr><th>Wave</th><th>Run</th><th>Started</th><th>Completed</th><th>Failed (defects)</th><th>Not attempted</th><th>Pass rate</th></tr></thead><tbody>\n${trialRows}\n</tbody></table>` : ''}
<h2>Sign-offs</h2>
${signOffs ? `<table id="sign-offs"><thead><tr><th>Wave</th><th>Gate</th><th>By</th><th>At</th><th>Note</th></tr></thead><tbody>\n${signOffs}\n</tbody></table>` : '<p class="empty">None yet.</p>'}
</body></html>
`;
}

export function writePlanReport(d: PlanReportData, dir: string): { dir: string; html: string; waves: string; days: string } {
  reportFolder(dir);
  const files = { html: path.join(dir, 'plan-report.html'), waves: path.join(dir, 'plan-waves.csv'), days: path.join(dir, 'plan-days.csv') };
  const write = (file: string, text: string) => {
    freshFile(file);
    fs.writeFileSync(file, text, { flag: 'wx', mode: 0o600 });
  };
  write(files.html, renderPlanReportHtml(d));
  write(files.waves, waveCsv(d));
  write(files.days, dayCsv(d));
  return { dir, ...files };
}

/** `kraken-migrate plan report <planId>`: the plan's status from its workflow, the days and trial loads from the ledger. */
const planReportOptionsSchema = optionsSchema(PLAN_REPORT_OPTIONS);

export async function planReportAction(planId: string, options: unknown): Promise<void> {
  const opts = parseOptions(planReportOptionsSchema, options);
  const ctx = loadCliContext();
  const dir = path.resolve(opts.out ?? path.join(ctx.dataDir, 'reports', `plan-${planId}`));
  await withServices(ctx, async (s) => {
    const plan = await (
      await s.temporal()
    ).workflow
      .getHandle(planWorkflowId(planId))
      .query(planStatusQuery)
      .catch((e: unknown) => {
        if (e instanceof WorkflowNotFoundError)
          throw usageError('plan_not_found', `no plan ${planId} (workflow ${planWorkflowId(planId)}) in this Temporal namespace`);
        throw e;
      });
    const data = await loadPlanReport(await s.db(), plan);
    const files = writePlanReport(data, dir);
    if (opts.json)
      return printJson({
        planId,
        dir: files.dir,
        html: files.html,
        wavesCsv: files.waves,
        daysCsv: files.days,
        waves: data.waves.map((w) => ({ name: w.status.name, accounts: w.status.accounts, days: w.days })),
      });
    println(`Report for plan ${planId}:`);
    for (const f of [files.html, files.waves, files.days]) println(`  ${f}`);
  });
}
