import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRunOptionsSchema } from '../../../cli/actions/run';
import { STOP_LINE_DEFAULTS } from '../../../domain/stop-line';
import { dataDir, done, kraken, optionsOf, UNREACHABLE_CONFIG } from './drive-program';

afterAll(done);

const payloads = path.join(dataDir, 'payloads.jsonl');
fs.writeFileSync(payloads, '{}\n');

describe('run start: its options through one schema', () => {
  it.each([
    [['--limit', '0'], '--limit: must be a positive integer, got "0"'],
    [['--concurrency', '2.5'], '--concurrency: must be a positive integer, got "2.5"'],
    [['--max-same-code', '-1'], '--max-same-code: must be a positive integer, got "-1"'],
    [['--over-last', 'many'], '--over-last: must be a positive integer, got "many"'],
    [['--weight', '0'], '--weight: must be a number from 0.001 to 1000, got "0"'],
    [['--weight', '1001'], '--weight: must be a number from 0.001 to 1000, got "1001"'],
    [['--max-failure-rate', '150%'], '--max-failure-rate: must be a share between 0 and 1 or a percentage, got "150%"'],
    [['--max-failure-rate', '%'], '--max-failure-rate: must be a share between 0 and 1 or a percentage, got "%"'],
    [['--max-failure-rate', '1.5'], '--max-failure-rate: must be a share between 0 and 1 or a percentage, got "1.5"'],
    [['--window-start', 'tomorrow'], '--window-start: must be an ISO 8601 date-time, got "tomorrow"'],
    [['--window-end', '2026-13-40'], '--window-end: must be an ISO 8601 date-time, got "2026-13-40"'],
    [['--run-id', 'my run'], `--run-id: letters, digits, '.', '_' and '-' only (at most 100), got "my run"`],
    [['--supplier', ''], '--supplier: an import supplier code'],
    [['--payloads', payloads, '--payloads-table', 'billing.w1'], '--payloads-table: cannot be used with --payloads: one source a run'],
    [['--payloads', payloads, '--source', payloads], '--source: cannot be used with --payloads: one source a run'],
    [['--payloads-table', 'billing.w1', '--source', payloads], '--source: cannot be used with --payloads-table: one source a run'],
    [['--documents', dataDir], '--documents: goes with --payloads or --payloads-table'],
    [['--limit', '5', '--accounts', payloads], '--accounts: cannot be used with --limit'],
    [['--limit', '0', '--weight', 'x'], '--limit: must be a positive integer, got "0"; --weight: must be a number from 0.001 to 1000, got "x"'],
  ])('refuses %j: exit 2, naming the option and the rule, before any configuration is read', async (args, line) => {
    // The configuration refuses too: a refusal that came after reading it would say so instead.
    const r = await kraken(['run', 'start', ...args], UNREACHABLE_CONFIG);
    expect(r.stderr.trim()).toBe(`error [invalid_option]: ${line}`);
    expect(r.code).toBe(2);
  });

  it('accepts a full set: each value as the run gets it, then the command goes on (here to its configuration)', async () => {
    const args = [
      'run',
      'start',
      '--payloads-table',
      'billing.w1',
      '--documents',
      's3://team-bucket/letters',
      '--concurrency',
      '20',
      '--weight',
      '2.5',
      '--max-failure-rate',
      '50%',
      '--max-same-code',
      '7',
      '--window-start',
      '2026-10-10T22:00:00Z',
      '--run-id',
      'trial-1',
      '--dry-run',
      '--no-stop-line',
    ];
    expect(startRunOptionsSchema.parse(await optionsOf(args))).toEqual({
      source: 'postgres',
      payloadsTable: 'billing.w1',
      documents: 's3://team-bucket/letters',
      concurrency: 20,
      weight: 2.5,
      maxFailureRate: 0.5,
      maxSameCode: 7,
      overLast: STOP_LINE_DEFAULTS.overLast,
      windowStart: '2026-10-10T22:00:00Z',
      runId: 'trial-1',
      dryRun: true,
      stopLine: false,
    });
    const r = await kraken(args, UNREACHABLE_CONFIG);
    expect(r.stderr.trim()).toMatch(/^config error: DATABASE_URL=/);
    expect(r.code).toBe(2);
  });

  it('the defaults: postgres, 50 in flight, the line stopped at the documented thresholds', async () => {
    expect(startRunOptionsSchema.parse(await optionsOf(['run', 'start']))).toEqual({
      source: 'postgres',
      concurrency: 50,
      stopLine: true,
      maxSameCode: STOP_LINE_DEFAULTS.maxSameCode,
      maxFailureRate: STOP_LINE_DEFAULTS.maxFailureRate,
      overLast: STOP_LINE_DEFAULTS.overLast,
    });
  });
});
