/**
 * Node flags a worker process is started with: by the embedded stack, and by docker-compose.yml's
 * `NODE_OPTIONS` for the image's worker (test/unit/stack/compose-config.test.ts keeps them equal).
 * V8 sizes each heap from the host's memory: on a 24 GB host, 64 MB semi-spaces (128 MB of young
 * generation) and an old generation let grow to 4 GB, with a first major GC only past ~128 MB and a
 * growth factor up to 4 after it. The worker has two heaps (the main thread's, Temporal's workflow
 * thread's), each holding 50 – 150 MB alive at 100 accounts in flight, 165 kB an account.
 *
 * - `--max-semi-space-size=8` (a young generation of 16 MB a heap): worker peak RSS at 100 in flight
 *   706 → 479 MB (300 accounts) at 16, Node's own default until v22; at 8, four A/B pairs of 600
 *   accounts against 16 gave 418 – 436 against 456 – 490 MB (the main thread's heap 166 → 151 MB,
 *   the workflow thread's 95 → 66) and the same share of the CPU to the worker (0.37).
 * - `--max-old-space-size=1024`: V8 collects sooner and grows less (its growth factor shrinks with
 *   the limit); 598 → 459 and 648 → 476 MB in two A/B pairs of 600 accounts, worker CPU 38.2 →
 *   38.4 and 40.2 → 42.5 ms an account. The limit is 7× what a heap holds at 100 in flight; documents
 *   are buffers outside it (docs/throughput.md, "Where the cost goes").
 */
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--max-old-space-size=1024'];

/** The flags this process was started without, by name: another value is the operator's choice. */
export function missingWorkerNodeFlags(execArgv: readonly string[], nodeOptions = ''): string[] {
  const name = (flag: string) => flag.split('=')[0];
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].filter(Boolean).map(name));
  return WORKER_NODE_FLAGS.filter((f) => !given.has(name(f)));
}
