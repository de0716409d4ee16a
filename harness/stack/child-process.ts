import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { usageError } from '../../cli/errors';

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
export function startProcess(opts: { name: string; command: string; args: string[]; env?: NodeJS.ProcessEnv; cwd?: string; logFile: string }): ManagedProcess {
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
  live.add(pid);
  killLiveGroupsOnExit();
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      live.delete(pid);
      resolve();
    }),
  );
  return {
    name: opts.name,
    pid,
    child,
    async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killGroup(pid, signal);
      // A stopped process (SIGSTOP: a rehearsal's stalled worker, rehearsal/stall-worker.ts) holds any
      // signal but SIGKILL pending until it continues: continue it, so it handles `signal` now and
      // stops gracefully instead of being killed when the grace period runs out.
      if (signal !== 'SIGKILL') killGroup(pid, 'SIGCONT');
      const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), graceMs).unref());
      if ((await Promise.race([exited, timer])) === 'timeout') {
        killGroup(pid, 'SIGKILL');
        await exited;
      }
    },
  };
}

/** Process groups started here and not yet seen to exit. */
const live = new Set<number>();
let exitHookInstalled = false;

/**
 * Whatever way this process ends (a stop that was cut short, an uncaught error, process.exit), the
 * groups it started go with it: they run detached, so nothing else would end them.
 */
function killLiveGroupsOnExit() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Prepended: an earlier 'exit' listener that calls process.exit() (vitest's) ends the process at once.
  process.prependOnceListener('exit', () => killAllStartedNow());
}

/**
 * For a process that a signal can end before its own stop runs (vitest's global setup: a SIGTERM, a
 * Ctrl-C or a closed terminal ends the runner without its teardown, and 'exit' is not emitted on a
 * signal's default action): on each signal the groups started here are killed, then the signal is
 * raised again to do what it would have done (the runner's own listener, or the default action).
 */
export function killStartedOnSignals(signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']): void {
  // A runner whose own listener exits first (vitest's) leaves the kill to the 'exit' hook, which goes first.
  for (const signal of signals)
    process.once(signal, () => {
      killAllStartedNow();
      process.kill(process.pid, signal);
    });
}

/** SIGKILL to every process group this process started that is still running (stop faster). */
export function killAllStartedNow(): void {
  for (const pid of live) killGroup(pid, 'SIGKILL');
}

/** `signal` to the process group of `pid` (startProcess makes one per process), or to `pid` alone when it leads none. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
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
export async function waitForPort(port: number, opts: { host?: string; timeoutMs: number; proc?: ManagedProcess; logFile?: string }): Promise<void> {
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
    throw usageError('port_in_use', `port ${port} (${what}) is already in use on ${host}: stop what holds it or set another port`);
  }
}

/**
 * The kernel's range for outgoing connections' local ports (Linux: /proc/sys/net/ipv4/ip_local_port_range,
 * 32768-60999 by default). A port picked inside it can be taken by any client socket between the pick and
 * the server's bind, which is how a dev server once died with "bind: address already in use".
 */
function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo > 0 && hi >= lo) return [lo, hi];
  } catch {
    // Not Linux: assume the IANA dynamic range.
  }
  return [49152, 65535];
}

/** The widest stretch of ports at or above 10000 that no outgoing connection will be given. */
export function listenPortRange(): [number, number] {
  const [lo, hi] = ephemeralRange();
  const below: [number, number] = [10_000, lo - 1];
  const above: [number, number] = [hi + 1, 65_535];
  return below[1] - below[0] >= above[1] - above[0] ? below : above;
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

const handedOut = new Set<number>();

/** A port this process will bind later (one the configuration names): freePort never hands it out. */
export function reservePort(port: number): void {
  handedOut.add(port);
}

/**
 * A loopback port that is free now, drawn at random from outside the ephemeral range (so no client socket
 * of this machine can take it before the server binds) and never handed out twice by this process.
 * Random draws keep two concurrent runs apart.
 */
export async function freePort(max = 65_535): Promise<number> {
  const [lo, top] = listenPortRange();
  const hi = Math.min(top, max);
  if (hi < lo) throw usageError('port_in_use', `no loopback port outside the ephemeral range lies at or below ${max}`);
  for (let i = 0; i < 500; i++) {
    const port = lo + crypto.randomInt(hi - lo + 1);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canBind(port)) return port;
  }
  throw usageError('port_in_use', `no free loopback port found in ${lo}-${hi}`);
}

function logTail(logFile?: string): string {
  if (!logFile || !fs.existsSync(logFile)) return '';
  const text = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-15).join('\n');
  return text ? `\n--- ${logFile} (last lines) ---\n${text}` : '';
}
