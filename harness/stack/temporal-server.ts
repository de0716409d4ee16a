import path from 'node:path';
import { devServerSearchAttributeArgs } from '../../domain/search-attributes';
import { startProcess, waitForPort, type ManagedProcess } from './child-process';

export interface TemporalDevServer {
  address: string;
  uiUrl: string;
  /** The server process (chaos runs kill -9 it). */
  /** The dev server's one process (chaos kills it with -9); the server engine has several and no `proc`. */
  proc?: ManagedProcess;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  port: number;
  uiPort: number;
  dbFile: string;
  logDir: string;
  codecEndpoint?: string;
  namespace?: string;
}

/**
 * Priority and fairness (GA in server 1.31): self-hosted servers need the new matcher and fairness
 * switched on, or task queues ignore the fairness keys of the account workflows' starts. The same
 * values in the dev server's flags, the server engine's dynamic config and docker-compose.yml.
 */
export const FAIRNESS_DYNAMIC_CONFIG = { 'matching.useNewMatcher': true, 'matching.enableFairness': true } as const;

/** Tuning flags the dev server needs for load (see ENVIRONMENT-NOTES): WAL, relaxed fsync, more shard IO. */
export function tuningArgs(opts: DevServerOptions): string[] {
  return [
    '--sqlite-pragma',
    'journal_mode=WAL',
    '--sqlite-pragma',
    'synchronous=NORMAL',
    '--sqlite-pragma',
    'busy_timeout=5000',
    '--dynamic-config-value',
    'history.shardIOConcurrency=4',
    '--dynamic-config-value',
    'frontend.rps=5000',
    '--dynamic-config-value',
    'frontend.namespaceRPS=5000',
    ...Object.entries(FAIRNESS_DYNAMIC_CONFIG).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${v}`]),
    ...(opts.codecEndpoint ? ['--ui-codec-endpoint', opts.codecEndpoint] : []),
  ];
}

/** The real Temporal dev server from the provisioned CLI (SQLite persistence, Web UI). */
export async function startTemporalDevServer(opts: DevServerOptions & { cliPath: string }): Promise<TemporalDevServer> {
  const logFile = path.join(opts.logDir, 'temporal.log');
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--ui-port',
    String(opts.uiPort),
    '--db-filename',
    opts.dbFile,
    '--log-level',
    'warn',
    ...tuningArgs(opts),
    ...devServerSearchAttributeArgs(),
    ...(opts.namespace && opts.namespace !== 'default' ? ['--namespace', opts.namespace] : []),
  ];
  const proc = startProcess({ name: 'temporal dev server', command: opts.cliPath, args, logFile });
  // Cold start on 2 cores (SQLite schema creation, namespace registration) can take a while.
  await waitForPort(opts.port, { timeoutMs: 120_000, proc, logFile });
  return { address: `127.0.0.1:${opts.port}`, uiUrl: `http://127.0.0.1:${opts.uiPort}`, proc, stop: () => proc.stop() };
}
