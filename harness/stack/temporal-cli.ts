import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The Temporal CLI release we build: later ones carry `replace` directives that break `go install`. */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
/** v1.5.1's go.mod asks for this Go release or newer. */
export const GO_MINIMUM = [1, 25] as const;

export interface TemporalCli {
  path: string;
  source: 'TEMPORAL_CLI_PATH' | 'PATH' | '.tools/bin' | 'go install';
}

/** A prerequisite is missing: reported as one line, and nothing is downloaded in its place. */
export class TemporalCliMissingError extends Error {
  readonly code = 'temporal_cli_missing';
  constructor(why: string) {
    super(
      `${why}: kraken-migrate needs the Temporal CLI v1.5.1 (dev server 1.29.1). Install Go >= ${GO_MINIMUM.join('.')} ` +
        `so it can be built into .tools/bin (go install ${TEMPORAL_CLI_MODULE}), or set TEMPORAL_CLI_PATH to a temporal binary`,
    );
    this.name = 'TemporalCliMissingError';
  }
}

const say = (m: string) => process.stderr.write(`[temporal-cli] ${m}\n`);

/**
 * Finds or builds the Temporal CLI (dev server + Web UI), in this order: TEMPORAL_CLI_PATH,
 * `temporal` on PATH, .tools/bin/temporal, a build from the Go module proxy. Anything else throws
 * `TemporalCliMissingError` at once: no server binary is ever downloaded.
 */
export function provisionTemporalCli(opts: { root?: string; env?: NodeJS.ProcessEnv; quiet?: boolean } = {}): TemporalCli {
  const env = opts.env ?? process.env;
  const root = opts.root ?? path.resolve(__dirname, '../..');
  const log = opts.quiet ? () => {} : say;
  if (env.TEMPORAL_CLI_PATH) {
    if (!isExecutable(env.TEMPORAL_CLI_PATH)) throw new TemporalCliMissingError(`TEMPORAL_CLI_PATH=${env.TEMPORAL_CLI_PATH} is not an executable file`);
    return { path: env.TEMPORAL_CLI_PATH, source: 'TEMPORAL_CLI_PATH' };
  }
  const onPath = which('temporal', env);
  if (onPath) return { path: onPath, source: 'PATH' };
  const local = path.join(root, '.tools', 'bin', 'temporal');
  if (isExecutable(local)) return { path: local, source: '.tools/bin' };

  const go = which('go', env);
  if (!go) throw new TemporalCliMissingError('no Temporal CLI and no Go toolchain found');
  const goVersion = readGoVersion(go, env);
  if (!goVersion || compareVersion(goVersion, GO_MINIMUM) < 0) {
    throw new TemporalCliMissingError(`no Temporal CLI found, and ${go} is Go ${goVersion?.join('.') ?? '(version unknown)'}`);
  }
  log(`building ${TEMPORAL_CLI_MODULE} into .tools/bin with ${go} (takes a few minutes on 2 cores; cached afterwards)`);
  const started = Date.now();
  // Newer Go refuses some //go:linkname uses in the CLI's dependencies at link time.
  const result = spawnSync(go, ['install', '-ldflags=-checklinkname=0', TEMPORAL_CLI_MODULE], {
    env: { ...env, GOBIN: path.join(root, '.tools', 'bin') },
    stdio: opts.quiet ? 'ignore' : ['ignore', process.stderr, process.stderr],
  });
  if (result.status !== 0 || !isExecutable(local)) {
    throw new TemporalCliMissingError(`no Temporal CLI found, and go install failed (exit ${result.status ?? result.signal}; see the Go output above)`);
  }
  log(`built ${local} in ${Math.round((Date.now() - started) / 1000)} s`);
  return { path: local, source: 'go install' };
}

export function temporalVersion(cli: TemporalCli): string {
  return execFileSync(cli.path, ['--version'], { encoding: 'utf8' }).trim();
}

function readGoVersion(go: string, env: NodeJS.ProcessEnv): number[] | undefined {
  try {
    const out = execFileSync(go, ['env', 'GOVERSION'], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const m = /^go(\d+)\.(\d+)/.exec(out);
    return m ? [Number(m[1]), Number(m[2])] : undefined;
  } catch {
    return undefined;
  }
}

function compareVersion(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
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
    process.exit(2);
  }
}
