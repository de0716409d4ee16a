import path from 'node:path';
import { devServerSearchAttributeArgs } from '../workflows/search-attributes';
import { startProcess, waitForPort, type ManagedProcess } from './child-process';

export interface TemporalDevServer {
  address: string;
  uiUrl: string;
  proc: ManagedProcess;
}

/**
 * The real Temporal dev server (SQLite persistence, Web UI). The defaults are slow under load:
 * WAL journal, relaxed fsync and more shard IO concurrency are what the environment notes measured.
 */
export async function startTemporalDevServer(opts: {
  cliPath: string;
  port: number;
  uiPort: number;
  dbFile: string;
  logDir: string;
  codecEndpoint?: string;
  namespace?: string;
}): Promise<TemporalDevServer> {
  const logFile = path.join(opts.logDir, 'temporal.log');
  const args = [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(opts.port),
    '--ui-port', String(opts.uiPort),
    '--db-filename', opts.dbFile,
    '--log-level', 'warn',
    '--sqlite-pragma', 'journal_mode=WAL',
    '--sqlite-pragma', 'synchronous=NORMAL',
    '--sqlite-pragma', 'busy_timeout=5000',
    '--dynamic-config-value', 'history.shardIOConcurrency=4',
    '--dynamic-config-value', 'frontend.rps=5000',
    '--dynamic-config-value', 'frontend.namespaceRPS=5000',
    ...devServerSearchAttributeArgs(),
    ...(opts.namespace && opts.namespace !== 'default' ? ['--namespace', opts.namespace] : []),
    ...(opts.codecEndpoint ? ['--ui-codec-endpoint', opts.codecEndpoint] : []),
  ];
  const proc = startProcess({ name: 'temporal dev server', command: opts.cliPath, args, logFile });
  // Cold start on 2 cores (SQLite schema creation, namespace registration) can take a while.
  await waitForPort(opts.port, { timeoutMs: 120_000, proc, logFile });
  return { address: `127.0.0.1:${opts.port}`, uiUrl: `http://127.0.0.1:${opts.uiPort}`, proc };
}
