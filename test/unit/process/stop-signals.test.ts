import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAME_PRESS_MS } from '../../../process/stop-signals';

const ROOT = path.resolve(__dirname, '../../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('holdStopSignals', () => {
  it('asks once for a stop, ignores the same key press arriving twice, reports later ones, and never lets a signal end the process', async () => {
    const script = `
      const { holdStopSignals } = await import('./process/stop-signals.ts');
      const stops = holdStopSignals();
      stops.requested.then((s) => console.log('stop ' + s + ' ' + stops.first()));
      stops.onRepeat((s) => console.log('repeat ' + s));
      console.log('ready');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    try {
      for (let i = 0; i < 200 && !out.includes('ready'); i++) await sleep(50);
      // A terminal's Ctrl-C: the signal itself, and npm's forwarded copy a moment later.
      child.kill('SIGINT');
      await sleep(50);
      child.kill('SIGINT');
      await sleep(SAME_PRESS_MS + 300);
      expect(out.trim().split('\n')).toEqual(['ready', 'stop SIGINT SIGINT']);
      // A second Ctrl-C while stopping, then the terminal closing.
      child.kill('SIGINT');
      await sleep(200);
      child.kill('SIGHUP');
      child.kill('SIGTERM');
      await sleep(300);
      // Two signals sent back to back may be handled in either order: the kernel holds both pending.
      const lines = out.trim().split('\n');
      expect(lines.slice(0, 3)).toEqual(['ready', 'stop SIGINT SIGINT', 'repeat SIGINT']);
      expect(lines.slice(3).sort()).toEqual(['repeat SIGHUP', 'repeat SIGTERM']);
      expect(child.exitCode).toBeNull();
      expect(child.signalCode).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
