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
