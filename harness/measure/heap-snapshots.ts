import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Asks a worker's heap probe (`heap-probe.cjs`, loaded with `--require`) for heap snapshots of all its
 * threads and waits until they are written. Returns the snapshots' number (their file prefix) in
 * `<probeDir>/<pid>`.
 */
export async function takeHeapSnapshots(probeDir: string, pid: number, timeoutMs = 600_000): Promise<{ dir: string; n: number }> {
  const dir = path.join(probeDir, String(pid));
  const taken = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('-done')).length : 0;
  const n = taken + 1;
  process.kill(pid, 'SIGWINCH');
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(path.join(dir, `${n}-done`))) {
    if (Date.now() > deadline) throw new Error(`heap snapshot ${n} of worker ${pid} not written within ${timeoutMs / 1000} s (is the probe loaded?)`);
    await sleep(250);
  }
  return { dir, n };
}
