import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isExecutable } from '../browser/executable';
import { which } from './temporal-cli';

/**
 * The full Temporal server (the release the CLI v1.9.1 embeds), its SQL schema tool and the Web UI
 * server, built from the Go module proxy: none of the three `go.mod`s carries `replace`
 * directives, so `go install module@version` works (see ENVIRONMENT-NOTES).
 */
export const TEMPORAL_SERVER_VERSION = 'v1.32.0';
export const TEMPORAL_UI_SERVER_VERSION = 'v2.54.1';

interface GoTool {
  /** Name in .tools/bin (go install names a binary after its package directory: two are `server`). */
  binary: string;
  pkg: string;
  version: string;
}

export const SERVER_TOOLS = {
  server: { binary: 'temporal-server', pkg: 'go.temporal.io/server/cmd/server', version: TEMPORAL_SERVER_VERSION },
  sqlTool: { binary: 'temporal-sql-tool', pkg: 'go.temporal.io/server/cmd/tools/sql', version: TEMPORAL_SERVER_VERSION },
  uiServer: { binary: 'temporal-ui-server', pkg: 'github.com/temporalio/ui-server/v2/cmd/server', version: TEMPORAL_UI_SERVER_VERSION },
} as const satisfies Record<string, GoTool>;

export type ServerToolPaths = Record<keyof typeof SERVER_TOOLS, string>;

export class ServerBuildError extends Error {
  readonly code = 'temporal_server_build_failed';
  constructor(message: string) {
    super(message);
    this.name = 'ServerBuildError';
  }
}

const say = (m: string) => process.stderr.write(`[temporal-server] ${m}\n`);

/**
 * Finds each tool on PATH or in .tools/bin, and builds the missing ones with `go install` (one
 * build at a time; the Go build cache shared with the CLI build makes the server quick after it).
 */
export function provisionTemporalServer(opts: { root?: string; env?: NodeJS.ProcessEnv; quiet?: boolean } = {}): ServerToolPaths {
  const env = opts.env ?? process.env;
  const root = opts.root ?? path.resolve(__dirname, '../..');
  const log = opts.quiet ? () => {} : say;
  const binDir = path.join(root, '.tools', 'bin');
  const found = (t: GoTool) => which(t.binary, env) ?? (isExecutable(path.join(binDir, t.binary)) ? path.join(binDir, t.binary) : undefined);
  const out: Partial<ServerToolPaths> = {};
  for (const [key, tool] of Object.entries(SERVER_TOOLS) as Array<[keyof typeof SERVER_TOOLS, GoTool]>) {
    out[key] = found(tool) ?? goInstall(tool, { env, binDir, log, quiet: opts.quiet });
  }
  return out as ServerToolPaths;
}

function goInstall(tool: GoTool, o: { env: NodeJS.ProcessEnv; binDir: string; log: (m: string) => void; quiet?: boolean }): string {
  const go = which('go', o.env);
  if (!go)
    throw new ServerBuildError(`${tool.binary} is not built and no Go toolchain is on PATH: install Go >= 1.26.8 (it builds ${tool.pkg}@${tool.version})`);
  // Each tool goes through a staging GOBIN of its own, then is renamed: two of them are called `server`.
  const staging = path.join(o.binDir, '..', 'build', tool.binary);
  fs.mkdirSync(staging, { recursive: true });
  fs.mkdirSync(o.binDir, { recursive: true });
  o.log(`building ${tool.pkg}@${tool.version} into .tools/bin/${tool.binary} (minutes on 2 cores; cached afterwards)`);
  const started = Date.now();
  // -checklinkname=0: newer Go refuses some //go:linkname uses in the dependencies at link time.
  const result = spawnSync(go, ['install', '-ldflags=-checklinkname=0', `${tool.pkg}@${tool.version}`], {
    env: { ...o.env, GOBIN: staging },
    stdio: o.quiet ? 'ignore' : ['ignore', process.stderr, process.stderr],
  });
  const built = path.join(staging, path.basename(tool.pkg));
  if (result.status !== 0 || !isExecutable(built)) {
    throw new ServerBuildError(`go install ${tool.pkg}@${tool.version} failed (exit ${result.status ?? result.signal}); see the output above`);
  }
  const target = path.join(o.binDir, tool.binary);
  fs.renameSync(built, target);
  fs.rmSync(staging, { recursive: true, force: true });
  o.log(`built ${target} in ${Math.round((Date.now() - started) / 1000)} s`);
  return target;
}

if (require.main === module) {
  try {
    const paths = provisionTemporalServer();
    for (const [k, p] of Object.entries(paths)) console.log(`${k}: ${p}`);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
}
