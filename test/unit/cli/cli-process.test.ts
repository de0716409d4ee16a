import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realisticAccount } from '../../../schemas/fixtures';

const ROOT = path.resolve(__dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-process-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the CLI as a user would (tsx, no build), in a data dir with no running stack. Asynchronous:
 * fifteen blocking spawns in a row would hold the test worker's event loop for a minute on a loaded
 * machine, past vitest's 60 s limit for the worker's own progress reports.
 */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'cli/main.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, DATA_DIR: dir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function jsonl(name: string, records: unknown[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

describe('kraken-migrate validate', () => {
  it('exits 0 and prints no error line when every record is valid', async () => {
    const r = await cli(['validate', jsonl('good.jsonl', [realisticAccount(), realisticAccount({ external_account_number: 'EXT-1002' })])]);
    expect(r.stderr).toContain('2 record(s), 0 invalid');
    expect(r.stdout).toBe('');
    expect(r.code).toBe(0);
  });

  it('exits 1 and prints one line per error naming the account, attr and code', async () => {
    const bad = realisticAccount({ external_account_number: 'EXT-BAD', customers: [{ family_name: 'Hughes', mobile: 'abcde' }] });
    const r = await cli(['validate', jsonl('mixed.jsonl', [realisticAccount(), bad])]);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^EXT-BAD customers\.0\.mobile invalid_phone_number: /)]);
  });

  it('--json gives the counts and the errors', async () => {
    const bad = realisticAccount({ external_account_number: 'EXT-BAD', customers: [{ family_name: 'Hughes', mobile: 'abcde' }] });
    const r = await cli(['validate', jsonl('json.jsonl', [bad]), '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ records: 1, failed: 1 });
    expect(out.errors).toEqual([expect.objectContaining({ externalAccountNumber: 'EXT-BAD', code: 'invalid_phone_number', attr: 'customers.0.mobile' })]);
  });

  it('bounded output: a 100,000-character account number is capped, personal values are never printed', async () => {
    const huge = 'X'.repeat(100_000);
    const phone = '07ABC-NOT-A-PHONE-3344';
    const name = 'Zebedee Quillfeather-Ostrowski';
    const bad = realisticAccount({ external_account_number: huge, billing_name: name, customers: [{ family_name: name, mobile: phone }] });
    for (const args of [[], ['--json']]) {
      const r = await cli(['validate', jsonl(`huge${args.length}.jsonl`, [bad]), ...args]);
      expect(r.code).toBe(1);
      const out = r.stdout + r.stderr;
      expect(out.length).toBeLessThan(5_000);
      expect(out).not.toContain('X'.repeat(65));
      expect(out).toContain('(100000 characters)');
      expect(out).not.toContain(phone);
      expect(out).not.toContain(name);
      expect(out).toContain('invalid_phone_number');
    }
  });

  it('says so and exits 1 when the file holds no records', async () => {
    for (const [file, text] of [
      ['empty.jsonl', ''],
      ['empty.json', '[]'],
    ]) {
      fs.writeFileSync(path.join(dir, file), text);
      const r = await cli(['validate', path.join(dir, file)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('no records');
    }
  });

  it('exits 2 for a missing file', async () => {
    const r = await cli(['validate', path.join(dir, 'nope.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('file_not_found');
  });
});

describe('kraken-migrate run start with payloads', () => {
  it('an empty payload file (blank lines only) is a usage error, exit 2, before anything is started', async () => {
    const file = path.join(dir, 'empty-payloads.jsonl');
    fs.writeFileSync(file, '\n  \n');
    const r = await cli(['run', 'start', '--payloads', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('empty_payloads_file');
  });

  it('one source a run: --payloads with --source or --payloads-table is a usage error', async () => {
    const file = jsonl('one-payload.jsonl', [realisticAccount()]);
    for (const extra of [
      ['--source', file],
      ['--payloads-table', 'team.payloads'],
    ]) {
      const r = await cli(['run', 'start', '--payloads', file, ...extra]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error \[invalid_option\]: --(source|payloads-table): cannot be used with --payloads: one source a run/);
    }
  });
});

describe('usage and configuration errors', () => {
  it('a bad DATABASE_URL exits 2 with one line naming the variable and the expected form', async () => {
    const r = await cli(['config', 'print'], { DATABASE_URL: 'mysql://x' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^config error: DATABASE_URL=.*postgres:\/\/ or postgresql:\/\//)]);
    expect(r.stderr).not.toContain('mysql://x'); // a secret's value is never echoed
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('one line per bad variable', async () => {
    const r = await cli(['config', 'print'], { TEMPORAL_PORT: 'abc', SANDBOX_FAULT_5XX_RATE: '7' });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.some((l) => l.startsWith('config error: TEMPORAL_PORT='))).toBe(true);
    expect(lines.some((l) => l.startsWith('config error: SANDBOX_FAULT_5XX_RATE='))).toBe(true);
  });

  it('config print masks secrets', async () => {
    const r = await cli(['config', 'print', '--json'], { DATABASE_URL: 'postgres://u:hunter2@db.example:5432/x', PLATFORM_API_KEY: 'dik_live_secret_value' });
    expect(r.code).toBe(0);
    const cfg = JSON.parse(r.stdout);
    expect(cfg.DATABASE_URL).toBe('postgres://u:***@db.example:5432/x');
    expect(cfg.PLATFORM_API_KEY).toBe('***');
    expect(r.stdout).not.toContain('hunter2');
  });

  it("a bad option exits 2 with one line naming the option and its rule (each command's zod schema), before anything is reached", async () => {
    const file = jsonl('option-check.jsonl', [realisticAccount()]);
    const cases: Array<[string[], string]> = [
      [['validate', file, '--region', 'GBR'], '--region: expected a two-letter country code'],
      [['run', 'list', '--limit', '0'], '--limit: must be a positive integer, got "0"'],
      [['run', 'rerun-failed', 'r-1', '--concurrency', '2.5'], '--concurrency: must be a positive integer, got "2.5"'],
      [['run', 'rerun-failed', 'r-1', '--stage', 'import'], '--stage: only "post-import" is supported'],
      [['run', 'rerun-failed', 'r-1', '--code', 'x', '--list', '--concurrency', 'many'], '--concurrency: must be a positive integer, got "many"'],
      [['run', 'reconcile', 'r-1', '--list', '--concurrency', '0'], '--concurrency: must be a positive integer, got "0"'],
      [['run', 'reconcile', 'r-1', '--concurrency', 'x'], '--concurrency: must be a positive integer, got "x"'],
      [['run', 'delta', 'r-1', '--concurrency', ''], '--concurrency: must be a positive integer, got ""'],
      [['report', 'r-1', '--out', ''], '--out: a folder'],
      [['db', 'purge', '--older-than-days', '-3'], '--older-than-days: must be a positive integer, got "-3"'],
      [['db', 'purge', '--run', 'r-1', '--older-than-days', '3'], '--older-than-days: goes without --run: they select differently, give one'],
    ];
    for (const [args, line] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim(), args.join(' ')).toBe(`error [invalid_option]: ${line}`);
    }
  });

  it('bad arguments exit 2', async () => {
    expect((await cli(['run', 'start', '--limit', 'zero'])).code).toBe(2);
    expect((await cli(['no-such-command'])).code).toBe(2);
    expect((await cli(['supplier', 'set-status', 'X', 'SOMETIMES'])).code).toBe(2);
  });

  it('--help exits 0 and shows examples', async () => {
    const r = await cli(['run', 'start', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Examples:');
  });
});

describe('kraken-migrate in production mode and the image commands', () => {
  const prod = { KRAKEN_MIGRATE_MODE: 'production', CODEC_AUTH_MODE: 'shared-token', CODEC_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}` };

  it('refuses to start with a non-HTTPS platform URL, naming each variable (exit 2)', async () => {
    const r = await cli(['config', 'print'], {
      ...prod,
      PLATFORM_BASE_URL: 'http://tenant.example/v1/',
      PLATFORM_V2_BASE_URL: 'https://tenant.example/v2/',
      PLATFORM_GRAPHQL_URL: 'https://tenant.example/v1/graphql/',
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^config error: PLATFORM_BASE_URL="http:\/\/tenant.example\/v1\/": must be an https:\/\/ URL in production mode/),
    ]);
  });

  it('db migrate without DATABASE_URL exits 2 with a coded line', async () => {
    const r = await cli(['db', 'migrate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \[database_url_missing\]/);
  });
});

describe('a reader that stops early (`kraken-migrate … | head`)', () => {
  it('ends the command quietly, with no EPIPE stack', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'cli/main.ts', '--help'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, DATA_DIR: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 60_000,
      });
      // The pipe is closed before the command writes: its first write meets EPIPE.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(r.stderr).not.toContain('EPIPE');
    expect(r.code).toBe(0);
  });
});
