import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dataDir, done, kraken, UNREACHABLE_CONFIG } from './drive-program';

afterAll(done);

const plan = path.join(dataDir, 'plan.yaml');
fs.writeFileSync(
  plan,
  `name: autumn
timezone: Europe/London
waves:
  - name: pilot
    supplier: LEGACY-PILOT
    payloads_table: billing.pilot
    windows:
      - { from: "22:00", to: "05:00", first: "2026-10-20", last: "2026-10-21" }
`,
);

/** Each refusal: one line naming the option and its rule, before the configuration (which refuses too) is read. */
const refusals: Array<[string[], string]> = [
  [['plan', 'start', plan, '--poll-seconds', '0'], '--poll-seconds: must be a positive integer, got "0"'],
  [['plan', 'start', plan, '--plan-id', 'autumn/1'], `--plan-id: letters, digits, '.', '_' and '-' only (at most 100), got "autumn/1"`],
  [['plan', 'report', 'autumn-1', '--out', ''], '--out: a folder'],
  [['plan', 'approve', 'autumn-1', '--wave', 'pilot', '--gate', 'middle', '--by', 'lead'], '--gate: entry or exit, got "middle"'],
  [['plan', 'approve', 'autumn-1', '--wave', '', '--gate', 'entry', '--by', ''], "--wave: a wave's name; --by: who signs off"],
  [['plan', 'resume', 'autumn-1', '--wave', ''], "--wave: a wave's name"],
  [['plan', 'skip', 'autumn-1', '--wave', ''], "--wave: a wave's name"],
  [['plan', 'trial', 'autumn-1', '--wave', ''], "--wave: a wave's name"],
  [['run', 'compare', '--plan', 'autumn-1'], '--plan: needs --wave: the wave whose trial loads to compare'],
  [['run', 'compare', 'a', 'b', '--wave', 'pilot'], '--wave: goes with --plan'],
  [['run', 'compare', '--plan', '', '--wave', 'pilot'], '--plan: a plan id'],
];

describe('plan commands and run compare: their options through one schema each', () => {
  it.each(refusals)('refuses %j: exit 2, naming the option and the rule', async (args, line) => {
    const r = await kraken(args, UNREACHABLE_CONFIG);
    expect(r.stderr.trim()).toBe(`error [invalid_option]: ${line}`);
    expect(r.code).toBe(2);
  });

  it('plan validate accepts --json and prints the plan', async () => {
    const r = await kraken(['plan', 'validate', plan, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'autumn', waves: [{ name: 'pilot' }] });
  });

  it('plan validate names each wave its windows and daily cap cannot hold, with the count left over (exit 2)', async () => {
    const accounts = path.join(dataDir, 'twenty.txt');
    fs.writeFileSync(accounts, Array.from({ length: 20 }, (_, i) => `A-${i + 1}`).join('\n') + '\n');
    const capped = path.join(dataDir, 'capped.yaml');
    const wave = (name: string, cap: number) => `  - name: ${name}
    supplier: LEGACY-PILOT
    accounts: ${accounts}
    daily_cap: ${cap}
    windows: [{ start: "2099-10-20T09:00", end: "2099-10-20T17:00" }]
`;
    fs.writeFileSync(capped, `name: autumn\ntimezone: Europe/London\nwaves:\n${wave('small', 15)}${wave('large', 20)}`);
    const r = await kraken(['plan', 'validate', capped]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Plan autumn (Europe/London): 2 waves, 1 that do not fit.');
    expect(r.stdout).toContain('DOES NOT FIT: 20 accounts, its windows and daily cap admit 15: 5 left over');
    expect(r.stdout).toContain('fits: 20 accounts within its windows and daily cap');
    expect(r.stderr.trim()).toBe('error [plan_does_not_fit]: wave small: 20 accounts, 15 admitted, 5 left over');
    // At a stated rate: eight hours at 0.0005 accounts a second admit 14 of the large wave's 20.
    const slow = await kraken(['plan', 'validate', capped, '--rate', '0.0005', '--json']);
    expect(slow.code).toBe(2);
    expect(JSON.parse(slow.stdout).waves.map((w: { fit: { admitted: number } }) => w.fit.admitted)).toEqual([14, 14]);
    const fast = await kraken(['plan', 'validate', capped, '--rate', '0']);
    expect(fast.stderr.trim()).toBe('error [invalid_option]: --rate: must be a number of accounts a second above 0, got "0"');
  });

  // Options that pass reach the command's configuration (refused here, exit 2 with its own line): nothing is started.
  it.each([
    [['plan', 'start', plan, '--plan-id', 'autumn-1', '--poll-seconds', '5', '--json']],
    [['plan', 'status', 'autumn-1', '--json']],
    [['plan', 'report', 'autumn-1', '--out', dataDir, '--json']],
    [['plan', 'approve', 'autumn-1', '--wave', 'pilot', '--gate', 'exit', '--by', 'cutover lead', '--note', 'numbers met']],
    [['plan', 'resume', 'autumn-1', '--wave', 'pilot', '--json']],
    [['plan', 'skip', 'autumn-1', '--wave', 'pilot']],
    [['plan', 'trial', 'autumn-1', '--wave', 'pilot']],
    [['plan', 'cancel', 'autumn-1']],
    [['plan', 'cancel', 'autumn-1', '--wave', 'pilot', '--json']],
    [['run', 'compare', '--plan', 'autumn-1', '--wave', 'pilot', '--json']],
    [['run', 'compare', 'trial-1', 'trial-2']],
  ])('accepts %j', async (args) => {
    const r = await kraken(args, UNREACHABLE_CONFIG);
    expect(r.stderr.trim()).toMatch(/^config error: DATABASE_URL=/);
    expect(r.code).toBe(2);
  });
});
