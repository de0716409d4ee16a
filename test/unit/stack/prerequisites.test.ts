import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { provisionTemporalCli, TemporalCliMissingError } from '../../../harness/stack/temporal-cli';

const ROOT = path.resolve(__dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prereq-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A checkout with no .tools/bin, and a PATH holding only the given fake commands. */
function bareMachine(commands: Record<string, string>): { root: string; env: NodeJS.ProcessEnv } {
  const root = fs.mkdtempSync(path.join(dir, 'root-'));
  const bin = fs.mkdtempSync(path.join(dir, 'bin-'));
  for (const [name, script] of Object.entries(commands)) fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return { root, env: { PATH: bin } };
}

describe('a missing Temporal CLI is named, never downloaded', () => {
  it('with no CLI and no Go: one line naming what is missing, the version needed and TEMPORAL_CLI_PATH', () => {
    const m = bareMachine({});
    let err: unknown;
    try {
      provisionTemporalCli({ ...m, quiet: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TemporalCliMissingError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^no Temporal CLI and no Go toolchain found/);
    expect(message).toContain('Temporal CLI v1.5.1');
    expect(message).toContain('Go >= 1.25');
    expect(message).toContain('TEMPORAL_CLI_PATH');
    expect(fs.readdirSync(m.root)).toEqual([]); // nothing fetched or built
  });

  it('with a Go too old to build v1.5.1: names the Go version found', () => {
    const m = bareMachine({ go: 'echo go1.22.4' });
    expect(() => provisionTemporalCli({ ...m, quiet: true })).toThrow(/Go 1\.22/);
  });

  it('takes TEMPORAL_CLI_PATH first, and refuses one that is not an executable', () => {
    const m = bareMachine({ temporal: 'echo temporal version 0' });
    const fake = path.join(m.env.PATH!, 'temporal');
    expect(provisionTemporalCli({ ...m, env: { ...m.env, TEMPORAL_CLI_PATH: fake }, quiet: true })).toEqual({ path: fake, source: 'TEMPORAL_CLI_PATH' });
    expect(provisionTemporalCli({ ...m, quiet: true })).toEqual({ path: fake, source: 'PATH' });
    expect(() => provisionTemporalCli({ ...m, env: { ...m.env, TEMPORAL_CLI_PATH: path.join(dir, 'nope') }, quiet: true })).toThrow(TemporalCliMissingError);
  });

  it.each([
    ['npm test (pretest)', ['harness/stack/temporal-cli.ts']],
    ['npm run demo', ['harness/cli/main.ts', 'demo', '--data-dir', path.join(dir, 'demo')]],
    ['npm run dev', ['harness/cli/main.ts', 'dev']],
  ])('%s stops at once with one line and exit 2', (_name, args) => {
    // The last demo's report, which a failed start must not delete.
    const lastReport = path.join(dir, 'demo', 'reports', 'run-1', 'report.html');
    fs.mkdirSync(path.dirname(lastReport), { recursive: true });
    fs.writeFileSync(lastReport, '<html></html>');
    const r = spawnSync(process.execPath, [require.resolve('tsx/cli'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: dir, DATA_DIR: path.join(dir, 'data'), TEMPORAL_CLI_PATH: path.join(dir, 'no-such-temporal') },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('npm warn'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error \[temporal_cli_missing\]: TEMPORAL_CLI_PATH=.* is not an executable file: kraken-migrate needs the Temporal CLI v1\.5\.1/);
    expect(r.status).toBe(2);
    // Nothing was started: no Postgres data directory appeared.
    expect(fs.existsSync(path.join(dir, 'data', 'postgres'))).toBe(false);
    expect(fs.existsSync(lastReport)).toBe(true);
  });
});
