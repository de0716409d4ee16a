import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { SAME_PRESS_MS } from '../../../process/stop-signals';
import { canConnect, freePort } from '../../../harness/stack/child-process';

// `npm run dev` and `npm run demo -- --keep` as a terminal runs them: in a process group of their own
// (the terminal's foreground group), stopped the ways a terminal or a supervisor stops them. Stopped
// means every port the stack used is free and no process started from the command is left, whoever
// its parent is and whatever group it runs in. Whether something is left was a race (the signal
// reaching npm, the shell and node in some order), so the cycle runs several times.

const ROOT = path.resolve(__dirname, '../../..');
const PORT_VARS = ['TEMPORAL_PORT', 'TEMPORAL_UI_PORT', 'PG_PORT', 'S3_PORT', 'SANDBOX_PORT', 'EVENTS_PORT', 'CODEC_PORT'] as const;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

interface Started {
  npm: ChildProcess;
  mark: string;
  ports: number[];
  output: () => string;
}

/**
 * startOnce, again on fresh ports when a port drawn free was bound by the time its server listened
 * (EADDRINUSE): CI's other stacks draw from the same range. A port this command's earlier cycles
 * hold is never drawn (freePort draws only ports it can bind), so a leftover still fails its checks.
 */
async function startInGroup(args: string[], readyLine: string): Promise<Started> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(args, readyLine);
    } catch (e) {
      if (attempt >= 3 || !String(e).includes('EADDRINUSE')) throw e;
    }
  }
}

/** Starts `npm run <script>` as a terminal would: its own process group, ready once it says so. */
async function startOnce(args: string[], readyLine: string): Promise<Started> {
  const mark = crypto.randomUUID();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stop-signals-'));
  dirs.push(dataDir);
  const ports: number[] = [];
  const env: Record<string, string> = { ...(process.env as Record<string, string>), KM_STOP_TEST_MARK: mark, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  for (const v of PORT_VARS) {
    const p = await freePort();
    ports.push(p);
    env[v] = String(p);
  }
  for (const k of ['DATABASE_URL', 'S3_ENDPOINT', 'SQS_ENDPOINT', 'EVENTS_QUEUE_URL', 'TEMPORAL_ADDRESS']) delete env[k];
  const npm = spawn('npm', ['run', '--silent', ...args.slice(0, 1), '--', ...args.slice(1)], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout.on('data', (d) => (out += d));
  npm.stderr.on('data', (d) => (out += d));
  const deadline = Date.now() + 240_000;
  while (!out.includes(readyLine)) {
    if (npm.exitCode !== null) throw new Error(`npm run ${args.join(' ')} exited ${npm.exitCode} before it was up:\n${out}`);
    if (Date.now() > deadline) throw new Error(`npm run ${args.join(' ')} not up after 240 s:\n${out}`);
    await sleep(250);
  }
  return { npm, mark, ports, output: () => out };
}

/** Every process whose environment carries the mark: all that the command started, at any depth. */
function marked(mark: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`KM_STOP_TEST_MARK=${mark}`)) {
        found.push(`${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim()}`);
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

async function busyPorts(ports: number[]): Promise<number[]> {
  const busy: number[] = [];
  for (const p of ports) if (await canConnect('127.0.0.1', p)) busy.push(p);
  return busy;
}

/** Waits (bounded) until nothing of the command is left; returns what was left at the deadline. */
async function leftAfterStop(s: Started, timeoutMs: number): Promise<{ processes: string[]; ports: number[]; seconds: number }> {
  const started = Date.now();
  for (;;) {
    const processes = marked(s.mark);
    const ports = await busyPorts(s.ports);
    if ((processes.length === 0 && ports.length === 0) || Date.now() - started > timeoutMs) {
      // Never leave a failed cycle's servers running for the next test.
      for (const p of processes) {
        try {
          process.kill(Number(p.split(' ')[0]), 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      return { processes, ports, seconds: Math.round((Date.now() - started) / 1000) };
    }
    await sleep(500);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * A terminal's key press or hang-up: the signal to the whole foreground process group. A group that
 * is gone already (everything stopped) is what a terminal meets too: the key press goes nowhere.
 */
const toGroup = (s: Started, sig: NodeJS.Signals): void => {
  try {
    process.kill(-s.npm.pid!, sig);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
};

type Way = { name: string; send: (s: Started) => Promise<void> };
const WAYS: Way[] = [
  { name: 'Ctrl-C', send: async (s) => toGroup(s, 'SIGINT') },
  { name: 'Ctrl-C again', send: async (s) => toGroup(s, 'SIGINT') },
  {
    name: 'Ctrl-C, and Ctrl-C again while stopping',
    send: async (s) => {
      toGroup(s, 'SIGINT');
      // Past the same key press (npm's forwarded copy), while the stack is still stopping.
      await sleep(SAME_PRESS_MS + 100);
      toGroup(s, 'SIGINT');
    },
  },
  // A supervisor's `kill <pid>`: npm alone gets it and must hand it on.
  { name: 'SIGTERM to npm', send: async (s) => void s.npm.kill('SIGTERM') },
  { name: 'the terminal closed (SIGHUP)', send: async (s) => toGroup(s, 'SIGHUP') },
];

describe('a long-running command stops everything it started, however it is stopped', () => {
  // The ways at once, each its own stack on its own ports and data directory: five start-ups one
  // after another were four minutes of this suite, and a loaded machine only widens the races.
  it.concurrent.for(WAYS)('npm run dev: $name', { timeout: 400_000 }, async ({ send }, { expect }) => {
    const s = await startInGroup(['dev'], 'Ctrl-C stops everything.');
    expect((await busyPorts(s.ports)).length).toBeGreaterThan(0);
    expect(marked(s.mark).length).toBeGreaterThan(3);
    await send(s);
    const left = await leftAfterStop(s, 90_000);
    expect(left, s.output()).toEqual({ processes: [], ports: [], seconds: expect.any(Number) });
  });

  it.concurrent(
    'npm run demo -- --keep: Ctrl-C once the demo is done',
    async ({ expect }) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stop-signals-demo-'));
      dirs.push(dataDir);
      const s = await startInGroup(['demo', '--keep', '--accounts', '6', '--data-dir', dataDir], 'Ctrl-C stops everything.');
      expect(s.output()).toMatch(/accounted for +6 of 6/);
      toGroup(s, 'SIGINT');
      const left = await leftAfterStop(s, 90_000);
      expect(left, s.output()).toEqual({ processes: [], ports: [], seconds: expect.any(Number) });
    },
    600_000,
  );
});
