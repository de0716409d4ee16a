import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planFileSchema, planProblems } from '../../../domain/plan-file';
import { loadPlanFile } from '../../../cli/plan-file';
import { CliError } from '../../../cli/errors';

const EXAMPLE = path.resolve(__dirname, '../../../docs/examples/cutover/plan.yaml');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const wave = (more: Record<string, unknown> = {}) => ({
  name: 'w1',
  supplier: 'S',
  payloads_table: 'billing.w1',
  windows: [{ from: '22:00', to: '05:00', first: '2026-10-20', last: '2026-10-21' }],
  ...more,
});
const problems = (plan: unknown) => {
  const r = planFileSchema.safeParse(plan);
  return r.success ? [] : planProblems(r.error);
};

describe('the plan file', () => {
  it('the documented example is valid, with the defaults filled in', () => {
    const plan = loadPlanFile(EXAMPLE);
    expect(plan.name).toBe('cutover-autumn-2026');
    expect(plan.waves.map((w) => [w.name, w.after, w.daily_cap])).toEqual([
      ['pilot', undefined, 2000],
      ['residential', ['pilot'], 13000],
      ['sme', ['residential'], 5000],
    ]);
    // Paths are the file's folder's; stop-the-line defaults where the file says nothing.
    expect(plan.waves[0].payloads).toBe(path.join(path.dirname(EXAMPLE), 'pilot.jsonl'));
    expect(plan.waves[2].documents).toBe('s3://cutover-letters/sme');
    expect(plan.waves[2].gates.stop_line).toEqual({ max_failure_rate: 0.5, over_last: 100, max_same_code: 20 });
    expect(plan.waves[2].dry_run_first).toBe(false);
  });

  it('timezone defaults to Europe/London and must be an IANA zone', () => {
    expect(planFileSchema.parse({ name: 'p', waves: [wave()] }).timezone).toBe('Europe/London');
    expect(problems({ name: 'p', timezone: 'Mars/Olympus', waves: [wave()] })).toEqual(['timezone: an IANA timezone, e.g. Europe/London']);
  });

  it('each rule names its field', () => {
    expect(problems({ name: 'p', waves: [] })).toEqual(['waves: at least one wave']);
    expect(problems({ name: 'a plan', waves: [wave()] })).toEqual(["name: letters, digits, '.', '_' and '-', starting with a letter or digit"]);
    expect(problems({ name: 'p', waves: [wave({ windows: [] })] })).toEqual(['waves[0].windows: at least one window']);
    expect(problems({ name: 'p', waves: [wave({ daily_cap: 0 })] })).toEqual(['waves[0].daily_cap: accounts started per local day: a positive integer']);
    expect(problems({ name: 'p', waves: [wave({ concurrency: 0 })] })[0]).toMatch(/^waves\[0\]\.concurrency: /);
    expect(problems({ name: 'p', waves: [wave({ gates: { stop_line: { max_failure_rate: 1.5 } } })] })).toEqual([
      'waves[0].gates.stop_line.max_failure_rate: max_failure_rate: a share between 0 and 1',
    ]);
    expect(problems({ name: 'p', waves: [wave({ gates: { exit: { max_platform_only: -1, max_ledger_only: 1.5 } } })] }).length).toBe(2);
    expect(problems({ name: 'p', waves: [wave({ gates: { exit: { max_platform_only: 0, max_ledger_only: 0 } } })] })).toEqual([]);
    // The switch's exit numbers: a share and a positive number of days, only on a wave that sends registration flows.
    expect(
      problems({ name: 'p', waves: [wave({ send_registration_flows: true, gates: { exit: { min_on_supply_rate: 0.95, max_days_to_supply: 21 } } })] }),
    ).toEqual([]);
    expect(
      problems({ name: 'p', waves: [wave({ send_registration_flows: true, gates: { exit: { min_on_supply_rate: 1.2, max_days_to_supply: 0 } } })] }),
    ).toEqual([
      'waves[0].gates.exit.min_on_supply_rate: min_on_supply_rate: a share between 0 and 1',
      'waves[0].gates.exit.max_days_to_supply: days a meter point may wait for a final state: a positive number',
    ]);
    expect(problems({ name: 'p', waves: [wave({ gates: { exit: { min_on_supply_rate: 0.95, max_days_to_supply: 21 } } })] })).toEqual([
      'waves[0].gates.exit.min_on_supply_rate: needs send_registration_flows: true (meter points are followed only on a switch)',
      'waves[0].gates.exit.max_days_to_supply: needs send_registration_flows: true (meter points are followed only on a switch)',
    ]);
    expect(problems({ name: 'p', waves: [wave({ gates: { exit: { min_reconciled_rate: -1 } } })] })).toEqual([
      'waves[0].gates.exit.min_reconciled_rate: min_reconciled_rate: a share between 0 and 1',
    ]);
    expect(problems({ name: 'p', waves: [wave({ colour: 'red' })] })[0]).toMatch(/^waves\[0\]: .*colour/);
  });

  it('a wave has one cohort source; documents go with payloads', () => {
    expect(problems({ name: 'p', waves: [wave({ payloads: 'a.jsonl' })] })).toEqual([
      'waves[0].payloads_table: one cohort source a wave: payloads and payloads_table cannot be used together',
    ]);
    expect(problems({ name: 'p', waves: [wave({ payloads_table: undefined })] })).toEqual([
      'waves[0].payloads: a wave needs its cohort: payloads, payloads_table, or source and accounts',
    ]);
    expect(problems({ name: 'p', waves: [wave({ payloads_table: undefined, accounts: 'a.txt' })] })).toEqual([]);
    expect(problems({ name: 'p', waves: [wave({ payloads_table: undefined, accounts: 'a.txt', documents: 'docs' })] })).toEqual([
      'waves[0].documents: documents goes with payloads or payloads_table',
    ]);
    expect(problems({ name: 'p', waves: [wave({ accounts: 'a.txt', limit: 5 })] })).toEqual(['waves[0].limit: limit and accounts cannot be used together']);
  });

  it('a dry-run pass rate needs a dry run first', () => {
    expect(problems({ name: 'p', waves: [wave({ gates: { entry: { min_dry_run_pass_rate: 0.9 } } })] })).toEqual([
      'waves[0].gates.entry.min_dry_run_pass_rate: needs dry_run_first: true (the pass rate is the trial load’s)',
    ]);
    expect(problems({ name: 'p', waves: [wave({ dry_run_first: true, gates: { entry: { min_dry_run_pass_rate: 0.9 } } })] })).toEqual([]);
  });

  it('wave names are unique; after names waves of the plan, in any order, and no cycle', () => {
    expect(problems({ name: 'p', waves: [wave(), wave()] })).toEqual(['waves[1].name: wave names are unique: w1 is used twice']);
    expect(problems({ name: 'p', waves: [wave({ after: ['w9'] }), wave({ name: 'w2' })] })).toEqual(['waves[0].after[0]: w9 is not a wave of this plan']);
    expect(problems({ name: 'p', waves: [wave({ after: ['w1'] })] })).toEqual(['waves[0].after[0]: a wave cannot wait for itself (w1)']);
    // A later wave may be named; a wave with no after waits for the one before it, so w1 → w2 → w1 is a cycle.
    expect(problems({ name: 'p', waves: [wave({ after: ['w2'] }), wave({ name: 'w2' })] })).toEqual([
      'waves[0].after: the waves wait for each other in a cycle: w1 → w2 → w1',
    ]);
    expect(problems({ name: 'p', waves: [wave({ after: ['w2'] }), wave({ name: 'w2', after: [] })] })).toEqual([]);
    expect(problems({ name: 'p', waves: [wave(), wave({ name: 'w2', after: ['w1'] })] })).toEqual([]);
  });

  it('windows: absolute ones end after they start; nightly ones have real dates in order and differ from and to', () => {
    const w = (windows: unknown[]) => problems({ name: 'p', waves: [wave({ windows })] });
    expect(w([{ start: '2026-10-20T22:00', end: '2026-10-20T21:00' }])).toEqual(['waves[0].windows[0].end: must be after start']);
    expect(w([{ start: '2026-10-20T22:00', end: '2026-10-20T22:00' }])).toEqual(['waves[0].windows[0].end: must be after start']);
    expect(w([{ start: 'tonight', end: '2026-10-20T22:00' }])).toEqual(['waves[0].windows[0].start: a local date-time, e.g. 2026-10-24T22:00']);
    expect(w([{ start: '2026-10-20T22:00', end: 'soon' }])).toEqual(['waves[0].windows[0].end: a local date-time, e.g. 2026-10-25T05:00']);
    expect(w([{ from: '22:00', to: '05:00', first: '2026-10-21', last: '2026-10-20' }])).toEqual(['waves[0].windows[0].last: must not be before first']);
    expect(w([{ from: '22:00', to: '05:00', first: '2026-02-30', last: '2026-03-01' }])).toEqual(['waves[0].windows[0].first: not a calendar date']);
    expect(w([{ from: '22:00', to: '05:00', first: '2026-02-01', last: '2026-02-31' }])).toEqual(['waves[0].windows[0].last: not a calendar date']);
    expect(w([{ from: '22:00', to: '22:00', first: '2026-10-20', last: '2026-10-20' }])).toEqual([
      'waves[0].windows[0].to: must differ from from (an empty window)',
    ]);
    expect(w([{ from: '22:00', to: '05:00', first: '2026-10-20', last: '2026-10-20' }])).toEqual([]);
    expect(w([{ from: '24:00', to: '05:00', first: '2026-10-20', last: '2026-10-20' }])[0]).toMatch(/^waves\[0\]\.windows\[0\]/);
  });

  it('a bad file is refused with exit 2: not YAML, a broken rule, a missing file', () => {
    const write = (name: string, text: string) => {
      const f = path.join(dir, name);
      fs.writeFileSync(f, text);
      return f;
    };
    const refused = (f: string) => {
      try {
        loadPlanFile(f);
      } catch (e) {
        expect(e).toBeInstanceOf(CliError);
        expect((e as CliError).exitCode).toBe(2);
        return (e as CliError).message;
      }
      throw new Error('accepted');
    };
    expect(refused(write('bad.yaml', 'name: [unclosed\n'))).toMatch(/is not valid YAML/);
    expect(refused(write('rule.yaml', 'name: p\nwaves:\n  - name: w1\n    supplier: S\n    payloads_table: a.b\n    windows: []\n'))).toContain(
      'waves[0].windows: at least one window',
    );
    expect(
      refused(
        write(
          'missing.yaml',
          'name: p\nwaves:\n  - name: w1\n    supplier: S\n    accounts: nowhere.txt\n    windows: [{start: "2026-10-20T22:00", end: "2026-10-21T05:00"}]\n',
        ),
      ),
    ).toContain(`waves[0].accounts: no such file ${path.join(dir, 'nowhere.txt')}`);
    expect(refused(path.join(dir, 'absent.yaml'))).toContain('no such file');
  });
});
