'use strict';
// Loaded into a worker process with `node --require` by the bench's `--heap-probe <dir>` (never by the
// product): where the worker's memory is, without changing the worker. Plain CommonJS because it runs
// before tsx. Writes into HEAP_PROBE_DIR/<pid>:
// - `memory.jsonl`: every HEAP_PROBE_EVERY_MS (1000), the process's RSS and, for the main thread and
//   each worker thread (Temporal's workflow thread), V8's heap used / committed, external and array
//   buffers (the main thread's committed by space too); what is left of RSS is native: the Rust core,
//   malloc, code, tsx's loader thread.
// - on SIGWINCH (ignored by default, so a process without the probe is unharmed): a V8 heap snapshot
//   of the main thread and of each worker thread, `<n>-main.heapsnapshot`, `<n>-thread<i>.heapsnapshot`,
//   and `<n>-done` once all are written. The bench sends it; `heap-compare.ts` reads two of them.
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');
const threads = require('node:worker_threads');
const { pipeline } = require('node:stream/promises');

const dir = process.env.HEAP_PROBE_DIR && path.join(process.env.HEAP_PROBE_DIR, String(process.pid));
if (dir && threads.isMainThread) {
  fs.mkdirSync(dir, { recursive: true });
  /** Live worker threads, in start order (the SDK creates its workflow thread with `new Worker`). */
  const live = [];
  const Base = threads.Worker;
  threads.Worker = class ProbedWorker extends Base {
    constructor(...args) {
      super(...args);
      live.push(this);
      this.once('exit', () => live.splice(live.indexOf(this), 1));
    }
  };

  const mb = (n) => Math.round((n / 1048576) * 10) / 10;
  const rssKb = () => Number(/^VmRSS:\s+(\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  const heap = (s) => ({
    usedMb: mb(s.used_heap_size),
    committedMb: mb(s.total_heap_size),
    mallocedMb: mb(s.malloced_memory),
    externalMb: mb(s.external_memory),
  });
  /** The main thread's committed MB by space (new_space: the young generation, sized by V8 from the heap limit). */
  const spaces = () =>
    Object.fromEntries(
      v8
        .getHeapSpaceStatistics()
        .filter((s) => s.space_size > 0)
        .map((s) => [s.space_name, mb(s.space_size)]),
    );
  async function sample() {
    const m = process.memoryUsage();
    const workerThreads = [];
    for (const w of [...live]) workerThreads.push(heap(await w.getHeapStatistics().catch(() => ({}))));
    const line = {
      t: new Date().toISOString(),
      rssMb: mb(rssKb() * 1024),
      main: { ...heap(v8.getHeapStatistics()), externalMb: mb(m.external), arrayBuffersMb: mb(m.arrayBuffers), spaces: spaces() },
      threads: workerThreads,
    };
    fs.appendFileSync(path.join(dir, 'memory.jsonl'), `${JSON.stringify(line)}\n`);
  }
  const every = Number(process.env.HEAP_PROBE_EVERY_MS ?? 1000);
  setInterval(() => void sample().catch(() => {}), every).unref();

  let n = 0;
  let busy = false;
  process.on('SIGWINCH', () => {
    if (busy) return;
    busy = true;
    const k = ++n;
    void (async () => {
      v8.writeHeapSnapshot(path.join(dir, `${k}-main.heapsnapshot`));
      for (const [i, w] of [...live].entries()) await pipeline(await w.getHeapSnapshot(), fs.createWriteStream(path.join(dir, `${k}-thread${i}.heapsnapshot`)));
      fs.writeFileSync(path.join(dir, `${k}-done`), '');
    })()
      .catch((e) => process.stderr.write(`heap probe: ${e.stack ?? e}\n`))
      .finally(() => (busy = false));
  });
}
