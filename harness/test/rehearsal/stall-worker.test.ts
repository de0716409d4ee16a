import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killGroup, startProcess, type ManagedProcess } from '../../stack/child-process';
import { stallWorker, WORKFLOW_TASK_TIMEOUT_MS } from '../../rehearsal/stall-worker';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stall-worker-'));
const started: ManagedProcess[] = [];
afterAll(async () => {
  for (const p of started) await p.stop('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A stand-in worker: ticks into its log every 50 ms and, on SIGTERM, says so and exits 0 (a graceful stop). */
async function ticker(name: string): Promise<{ proc: ManagedProcess; log: () => string }> {
  const logFile = path.join(dir, `${name}.log`);
  const script = `
    process.on('SIGTERM', () => { console.log('graceful stop'); process.exit(0); });
    setInterval(() => console.log('tick ' + Date.now()), 50);
    console.log('ready');`;
  const proc = startProcess({ name, command: process.execPath, args: ['-e', script], logFile });
  started.push(proc);
  const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
  for (let i = 0; i < 100 && !log().includes('ready'); i++) await sleep(50);
  return { proc, log };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The kernel's state letter for a process (T: stopped). */
const state = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0];
const ticks = (log: string) =>
  log
    .split('\n')
    .filter((l) => l.startsWith('tick '))
    .map((l) => Number(l.slice(5)));

describe('stallWorker', () => {
  it('refuses a stall no longer than the workflow task timeout: nothing would time out', async () => {
    await expect(stallWorker({ name: 'w', pid: process.pid }, WORKFLOW_TASK_TIMEOUT_MS)).rejects.toThrow(
      /ms=10000: must be more than the workflow task timeout \(10000 ms\)/,
    );
  });

  it.runIf(process.platform === 'linux')(
    'freezes the worker for longer than the workflow task timeout and then lets it go on',
    async () => {
      const { proc, log } = await ticker('frozen');
      await sleep(300); // a few ticks before the freeze
      const stall = stallWorker(proc, WORKFLOW_TASK_TIMEOUT_MS + 500);
      await sleep(300);
      expect(state(proc.pid)).toBe('T');
      const s = await stall;
      expect(s.frozenMs).toBeGreaterThanOrEqual(WORKFLOW_TASK_TIMEOUT_MS + 500);
      await sleep(500);
      expect(state(proc.pid)).not.toBe('T');
      // The ticks show the freeze: one gap longer than the workflow task timeout, and ticks after it.
      const t = ticks(log());
      const gaps = t.slice(1).map((x, i) => x - t[i]);
      expect(Math.max(...gaps)).toBeGreaterThan(WORKFLOW_TASK_TIMEOUT_MS);
      expect(t.at(-1)!).toBeGreaterThan(s.resumedAt.getTime());
    },
    30_000,
  );
});

describe('stopping a process that is stopped (SIGSTOP)', () => {
  it.runIf(process.platform === 'linux')(
    'stops it gracefully at once: SIGTERM is handled, not left pending until the grace period kills it',
    async () => {
      const { proc, log } = await ticker('stopped');
      killGroup(proc.pid, 'SIGSTOP');
      await sleep(200);
      expect(state(proc.pid)).toBe('T');
      const t0 = Date.now();
      await proc.stop('SIGTERM', 5_000);
      expect(Date.now() - t0).toBeLessThan(4_000);
      expect(log()).toContain('graceful stop');
      expect(proc.child.exitCode).toBe(0);
    },
    30_000,
  );
});
