import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The Temporal CLI release we build: later ones carry `replace` directives that break `go install`. */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export type TemporalCli = { kind: 'binary'; path: string; source: string } | { kind: 'sdk-download' };

const say = (m: string) => process.stderr.write(`[temporal-cli] ${m}\n`);

/**
 * Finds or builds the Temporal CLI (dev server + Web UI), in this order: TEMPORAL_CLI_PATH,
 * `temporal` on PATH, .tools/bin/temporal, a build from the Go module proxy, and last the SDK's
 * own download (only works on machines with internet access).
 */
export function provisionTemporalCli(opts: { root?: string; env?: NodeJS.ProcessEnv; quiet?: boolean } = {}): TemporalCli {
  const env = opts.env ?? process.env;
  const root = opts.root ?? path.resolve(__dirname, '..');
  const log = opts.quiet ? () => {} : say;
  if (env.TEMPORAL_CLI_PATH) {
    if (!isExecutable(env.TEMPORAL_CLI_PATH)) throw new Error(`TEMPORAL_CLI_PATH=${env.TEMPORAL_CLI_PATH} is not an executable file`);
    return { kind: 'binary', path: env.TEMPORAL_CLI_PATH, source: 'TEMPORAL_CLI_PATH' };
  }
  const onPath = which('temporal', env);
  if (onPath) return { kind: 'binary', path: onPath, source: 'PATH' };
  const local = path.join(root, '.tools', 'bin', 'temporal');
  if (isExecutable(local)) return { kind: 'binary', path: local, source: '.tools/bin' };
  const go = which('go', env);
  if (go) {
    log(`building ${TEMPORAL_CLI_MODULE} into .tools/bin with ${go} (takes a few minutes on 2 cores; cached afterwards)`);
    const started = Date.now();
    // Newer Go refuses some //go:linkname uses in the CLI's dependencies at link time; the flag
    // exists since Go 1.23 and v1.5.1 needs Go >= 1.25 anyway.
    const result = spawnSync(go, ['install', '-ldflags=-checklinkname=0', TEMPORAL_CLI_MODULE], {
      env: { ...env, GOBIN: path.join(root, '.tools', 'bin') },
      stdio: opts.quiet ? 'ignore' : ['ignore', process.stderr, process.stderr],
    });
    if (result.status === 0 && isExecutable(local)) {
      log(`built ${local} in ${Math.round((Date.now() - started) / 1000)} s`);
      return { kind: 'binary', path: local, source: 'go install' };
    }
    log('go install failed; falling back to the SDK download');
  } else {
    log('no Go toolchain found; falling back to the SDK download (needs internet)');
  }
  return { kind: 'sdk-download' };
}

export function temporalVersion(cli: TemporalCli): string {
  if (cli.kind !== 'binary') return 'sdk-download';
  return execFileSync(cli.path, ['--version'], { encoding: 'utf8' }).trim();
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
  const cli = provisionTemporalCli();
  if (cli.kind === 'binary') console.log(`${cli.path} (${cli.source}): ${temporalVersion(cli)}`);
  else console.log('no local Temporal CLI: tests will let @temporalio/testing download one');
}
