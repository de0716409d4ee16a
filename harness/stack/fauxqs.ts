import path from 'node:path';
import { startProcess, waitForPort, type ManagedProcess } from './child-process';

/** Starts the loopback S3 + SQS server (in memory) used when no S3_ENDPOINT / SQS_ENDPOINT is set. */
export async function startLocalAws(opts: { port: number; logDir: string }): Promise<{ endpoint: string; proc: ManagedProcess }> {
  const logFile = path.join(opts.logDir, 'aws-local.log');
  const proc = startProcess({
    name: 'local S3/SQS',
    command: process.execPath,
    args: [path.join(__dirname, 'fauxqs-server.mjs'), String(opts.port)],
    logFile,
  });
  await waitForPort(opts.port, { timeoutMs: 30_000, proc, logFile });
  return { endpoint: `http://127.0.0.1:${opts.port}`, proc };
}
