import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export interface ManagedProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

/**
 * Spawns a long-running service in its own process group, with its output appended to a log
 * file, so `stop()` can end it and anything it forked without touching unrelated processes.
 */
export function startProcess(opts: {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  logFile: string;
}): ManagedProcess {
  const out = fs.openSync(opts.logFile, 'a');
  const child = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', out, out],
    detached: true,
  });
  fs.closeSync(out);
  if (child.pid === undefined) throw new Error(`${opts.name}: could not be started (${opts.command})`);
  const pid = child.pid;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name: opts.name,
    pid,
    child,
    async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killGroup(pid, signal);
      const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), graceMs).unref());
      if ((await Promise.race([exited, timer])) === 'timeout') {
        killGroup(pid, 'SIGKILL');
        await exited;
      }
    },
  };
}

function killGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** Resolves when a TCP port accepts connections; rejects with the log tail when the process dies. */
export async function waitForPort(
  port: number,
  opts: { host?: string; timeoutMs: number; proc?: ManagedProcess; logFile?: string },
): Promise<void> {
  const host = opts.host ?? '127.0.0.1';
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    if (opts.proc && (opts.proc.child.exitCode !== null || opts.proc.child.signalCode !== null)) {
      throw new Error(`${opts.proc.name} exited before it was ready${logTail(opts.logFile)}`);
    }
    if (await canConnect(host, port)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${host}:${port}${logTail(opts.logFile)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Fails with a one-line, coded error when a port the stack needs is already in use. */
export async function assertPortFree(port: number, what: string, host = '127.0.0.1'): Promise<void> {
  if (port === 0) return;
  if (await canConnect(host, port)) {
    throw Object.assign(new Error(`port ${port} (${what}) is already in use on ${host}: stop what holds it or set another port`), {
      code: 'port_in_use',
    });
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function logTail(logFile?: string): string {
  if (!logFile || !fs.existsSync(logFile)) return '';
  const text = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-15).join('\n');
  return text ? `\n--- ${logFile} (last lines) ---\n${text}` : '';
}
