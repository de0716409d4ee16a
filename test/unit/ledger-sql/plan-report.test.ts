import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareRuns } from '../../../domain/run-compare';
import { newlyFailingSamples, outcomePairs, runOutcomeCounts, runsStartingWith, startedPerDay } from '../../../ledger/plan-report';
import { recordSignOff } from '../../../ledger/plan-sign-offs';
import { trialLoads } from '../../../cli/actions/compare';
import { loadPlanReport, writePlanReport } from '../../../cli/report/plan';
import type { PlanStatus, WaveStatus } from '../../../domain/plan-messages';
import { startTestDb } from '../events/helpers';

/** The ledger reads of `run compare` and `plan report` on a real Postgres, and the report files they make. */

let db: Awaited<ReturnType<typeof startTestDb>>;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-report-'));

async function run(runId: string, accounts: Array<[string, string | null, string | null, string?]>, dryRun = false) {
  await db.pool.query(`insert into migrate.runs (run_id, supplier_code, source, selection, concurrency, dry_run) values ($1, 'SUP', '{}', '{}', 1, $2)`, [
    runId,
    dryRun,
  ]);
  for (const [ext, outcome, code, startedAt] of accounts)
    await db.pool.query(
      `insert into migrate.account_attempts (run_id, external_account_number, supplier_code, workflow_id, stage, outcome, error_code, started_at)
       values ($1, $2, 'SUP', 'wf-' || $2, 'done', $3, $4, coalesce($5::timestamptz, now()))`,
      [runId, ext, outcome, code, startedAt ?? null],
    );
}

beforeAll(async () => {
  db = await startTestDb('plan-report');
  // Two trial loads of wave w of plan p: A-1 fixed, A-2 newly failing, A-3 still failing, A-4 passing, A-5 only in trial 2.
  await run(
    'p.w.trial-1',
    [
      ['A-1', 'failed', 'phone_invalid'],
      ['A-2', 'completed', null],
      ['A-3', 'failed', 'tariff_missing'],
      ['A-4', 'completed', null],
    ],
    true,
  );
  await run(
    'p.w.trial-2',
    [
      ['A-1', 'completed', null],
      ['A-2', 'failed', 'agreement_product_not_found'],
      ['A-3', 'failed', 'tariff_missing'],
      ['A-4', 'completed', null],
      ['A-5', 'failed', 'agreement_product_not_found'],
    ],
    true,
  );
  // The real run: two started on the night of 19 October (London), one after midnight, one never attempted.
  await run('p.w', [
    ['A-1', 'completed', null, '2026-10-19T22:30:00+01:00'],
    ['A-2', 'failed', 'x', '2026-10-19T23:59:00+01:00'],
    ['A-3', 'completed', null, '2026-10-20T00:10:00+01:00'],
    ['A-4', 'not_attempted', 'run_cancelled', '2026-10-20T01:00:00+01:00'],
  ]);
  // A run whose id only looks like the prefix with LIKE's wildcards.
  await run('pxw.trial-9', [['B-1', 'completed', null]], true);
  await recordSignOff(db.pool, { planId: 'p', wave: 'w', gate: 'entry', signedBy: 'Sam <Lead>', note: '=HYPERLINK("x")' });
}, 120_000);
afterAll(async () => {
  await db?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('run compare on the ledger', () => {
  it('two trial loads: fixed, newly failing and still failing by code, the defect counts, samples', async () => {
    const r = compareRuns(await outcomePairs(db.pool, 'p.w.trial-1', 'p.w.trial-2'));
    expect(r.counts).toEqual({ fixed: 1, newly_failing: 2, still_failing: 1, still_passing: 1, not_compared: 0 });
    expect(r.byCode).toEqual([
      { class: 'newly_failing', code: 'agreement_product_not_found', n: 2 },
      { class: 'still_failing', code: 'tariff_missing', n: 1 },
      { class: 'fixed', code: 'phone_invalid', n: 1 },
    ]);
    expect(r.defects).toEqual({ a: 2, b: 3 });
    expect(await newlyFailingSamples(db.pool, 'p.w.trial-1', 'p.w.trial-2')).toEqual([
      { code: 'agreement_product_not_found', account: 'A-2' },
      { code: 'agreement_product_not_found', account: 'A-5' },
    ]);
    expect(await newlyFailingSamples(db.pool, 'p.w.trial-1', 'p.w.trial-2', 1)).toEqual([{ code: 'agreement_product_not_found', account: 'A-2' }]);
  });
  it("a wave's trial loads by their id prefix (LIKE wildcards taken literally), each with its defect count and pass rate", async () => {
    expect((await runsStartingWith(db.pool, 'p.w.trial-')).map((x) => x.runId)).toEqual(['p.w.trial-1', 'p.w.trial-2']);
    expect(await runOutcomeCounts(db.pool, 'p.w')).toEqual({ completed: 2, failed: 1, not_attempted: 1, in_progress: 0 });
    const t = await trialLoads(db.pool, 'p', 'w');
    expect(t.map((x) => [x.runId, x.dryRun, x.failed, x.passRate])).toEqual([
      ['p.w.trial-1', true, 2, 0.5],
      ['p.w.trial-2', true, 3, 0.4],
    ]);
  });
  it('accounts started per local day of the plan zone, never-attempted ones left out', async () => {
    expect(await startedPerDay(db.pool, 'p.w', 'Europe/London')).toEqual([
      { day: '2026-10-19', started: 2, completed: 1, failed: 1 },
      { day: '2026-10-20', started: 1, completed: 1, failed: 0 },
    ]);
    expect((await startedPerDay(db.pool, 'p.w', 'UTC')).map((d) => [d.day, d.started])).toEqual([['2026-10-19', 3]]);
  });
});

describe('plan report files', () => {
  const wave = (more: Partial<WaveStatus> = {}): WaveStatus => ({
    name: 'w',
    state: 'completed',
    runs: ['p.w.trial-1', 'p.w.trial-2', 'p.w'],
    accounts: { planned: 4, started: 3, completed: 2, failed: 1, not_attempted: 1, in_flight: 0 },
    windows: [{ start: '2026-10-19T21:00:00.000Z', end: '2026-10-21T04:00:00.000Z' }],
    next_window: null,
    daily_cap: 2,
    started_today: 0,
    stop_line: { tripped: false, reason: null },
    dry_run: {
      state: 'passed',
      runs: ['p.w.trial-1', 'p.w.trial-2'],
      accounts: { planned: 4, started: 5, completed: 2, failed: 3, not_attempted: 0, in_flight: 0 },
      pass_rate: 0.4,
      min_pass_rate: 0.4,
    },
    gates: {
      entry: {
        state: 'approved',
        required_by: null,
        approved_by: 'Sam <Lead>',
        approved_at: '2026-10-19T20:00:00.000Z',
        note: null,
        dry_run_pass_rate: 0.4,
        min_dry_run_pass_rate: 0.4,
      },
      exit: { state: 'not_required', required_by: null, approved_by: null, approved_at: null, note: null, reconciled_rate: 0.5, min_reconciled_rate: null },
    },
    ...more,
  });
  const plan: PlanStatus = { id: 'p', name: 'autumn', timezone: 'Europe/London', state: 'completed', current_wave: null, waves: [wave()] };

  it('planned against actual per day, trial loads and sign-offs; 0600 files in a 0700 folder; markup and formulas neutralised', async () => {
    const data = await loadPlanReport(db.pool, plan);
    expect(data.waves[0].days).toEqual([
      { day: '2026-10-19', planned: 2, started: 2, completed: 1, failed: 1 },
      { day: '2026-10-20', planned: 2, started: 1, completed: 1, failed: 0 },
      { day: '2026-10-21', planned: 0, started: 0, completed: 0, failed: 0 },
    ]);
    expect(data.waves[0].trials.map((t) => t.runId)).toEqual(['p.w.trial-1', 'p.w.trial-2']);
    const out = path.join(dir, 'plan-p');
    const files = writePlanReport(data, out);
    expect(fs.statSync(out).mode & 0o777).toBe(0o700);
    for (const f of [files.html, files.waves, files.days]) expect(fs.statSync(f).mode & 0o777).toBe(0o600);
    const html = fs.readFileSync(files.html, 'utf8');
    expect(html).toContain('Sam &lt;Lead&gt;');
    expect(html).not.toContain('Sam <Lead>');
    expect(html).toMatch(/<g data-day="2026-10-19"><title>2026-10-19: planned 2, started 2, completed 1, failed 1<\/title>/);
    expect(html).toContain('<tr data-run="p.w.trial-2">');
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    expect(fs.readFileSync(files.days, 'utf8')).toBe(
      'wave,day,planned,started,completed,failed\r\nw,2026-10-19,2,2,1,1\r\nw,2026-10-20,2,1,1,0\r\nw,2026-10-21,0,0,0,0\r\n',
    );
    const waves = fs.readFileSync(files.waves, 'utf8').split('\r\n');
    expect(waves[1]).toBe('w,completed,4,3,2,1,1,2,0.4,0.4,0.5,,Sam <Lead>,,,,,,,,');
    // The sign-off note, escaped.
    expect(html).toContain('=HYPERLINK(&quot;x&quot;)');
    expect(html).toContain('<td>–</td></tr>');
    // Written again: the files are replaced, not appended to.
    writePlanReport(data, out);
    expect(fs.readFileSync(files.days, 'utf8').split('\r\n').length).toBe(5);
  });

  it("a switch wave's row carries the meter points its exit gate last read, against its rules", async () => {
    const supply = {
      read_at: '2026-10-25T08:00:00.000Z',
      points: 10,
      on_supply: 9,
      waiting: 1,
      over_max_days: 0,
      on_supply_rate: 0.9,
      min_on_supply_rate: 0.95,
      max_days_to_supply: 14,
    };
    const w = wave();
    const switched = { ...w, state: 'waiting_supply' as const, gates: { ...w.gates, exit: { ...w.gates.exit, supply } } };
    const files = writePlanReport(await loadPlanReport(db.pool, { ...plan, waves: [switched] }), path.join(dir, 'plan-switch'));
    const rows = fs.readFileSync(files.waves, 'utf8').split('\r\n');
    expect(rows[0].split(',').slice(-7)).toEqual([
      'meter_points',
      'on_supply',
      'on_supply_rate',
      'min_on_supply_rate',
      'points_still_followed',
      'points_past_max_days',
      'max_days_to_supply',
    ]);
    expect(rows[1].split(',').slice(-7)).toEqual(['10', '9', '0.9', '0.95', '1', '0', '14']);
    expect(fs.readFileSync(files.html, 'utf8')).toContain('<td>9 of 10 on supply (90.0%, min 95.0%), 1 still followed, 0 past 14 days: pending</td></tr>');
  });
});
