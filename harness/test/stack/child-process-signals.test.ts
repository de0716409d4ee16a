import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'child-signals-'));
const leftovers: number[] = [];
afterAll(() => {
  for (const pid of leftovers) if (alive(pid)) process.kill(-pid, 'SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const module = path.resolve(__dirname, '../../stack/child-process.ts');

/**
 * A parent that starts a detached `sleep` the way the stacks start their services, prints its pid,
 * then is sent `signal` with nothing of its own to stop it (as vitest is by a closed terminal).
 */
async function parentSignalled(
  signal: NodeJS.Signals,
  guarded: boolean,
  runner = false,
): Promise<{ sleeper: number; parentCode: number | null; parentSignal: string | null }> {
  // runner: listeners registered first that exit at once, as vitest's do (its cli-api's addCleanupListeners).
  const script = `
    ${runner ? `for (const s of ['SIGINT', 'SIGTERM', 'exit']) process.once(s, () => process.exit(${signal === 'SIGINT' ? 130 : 143}));` : ''}
    const { startProcess, killStartedOnSignals } = require(${JSON.stringify(module)});
    const p = startProcess({ name: 'sleeper', command: 'sleep', args: ['300'], logFile: ${JSON.stringify(path.join(dir, `${signal}-${guarded}-${runner}.log`))} });
    ${guarded ? 'killStartedOnSignals();' : ''}
    console.log(p.pid);
    setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const sleeper = await new Promise<number>((resolve, reject) => {
    parent.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    parent.once('exit', (code) => reject(new Error(`parent exited first (${code})`)));
  });
  leftovers.push(sleeper);
  expect(alive(sleeper)).toBe(true);
  const exited = new Promise<[number | null, string | null]>((r) => parent.once('exit', (code, sig) => r([code, sig])));
  parent.kill(signal);
  const [parentCode, parentSignal] = await exited;
  for (let i = 0; i < 40 && alive(sleeper); i++) await sleep(50);
  return { sleeper, parentCode, parentSignal };
}

describe('killStartedOnSignals', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('on %s the detached groups a process started go with it, and the signal still ends it', async (signal) => {
    const r = await parentSignalled(signal, true);
    expect(alive(r.sleeper)).toBe(false);
    // Raised again after the groups are killed: the parent ends by the signal, as it would have.
    expect(r.parentSignal).toBe(signal);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('on %s under a runner whose own listeners exit at once (vitest) the groups still go first', async (signal) => {
    const r = await parentSignalled(signal, true, true);
    expect(alive(r.sleeper)).toBe(false);
    expect(r.parentCode).toBe(signal === 'SIGINT' ? 130 : 143);
  });

  it('without it a detached group outlives a signalled parent (why the e2e setup installs it)', async () => {
    const r = await parentSignalled('SIGTERM', false);
    expect(r.parentSignal).toBe('SIGTERM');
    expect(alive(r.sleeper)).toBe(true);
  });
});
