/**
 * Node flags a worker process is started with: by the embedded stack, and by docker-compose.yml's
 * `NODE_OPTIONS` for the image's worker (test/unit/stack/compose-config.test.ts keeps them equal).
 *
 * `--max-semi-space-size=16`: V8 sizes the young generation from the machine's memory, 64 MB a
 * semi-space on a 24 GB host, so each of the worker's two heaps (the main thread's, Temporal's
 * workflow thread's) kept up to 128 MB of new space committed, more than either holds alive. At 16
 * (Node's own default until v22) the worker's peak RSS at 100 accounts in flight fell 706 → 479 MB
 * with no more worker CPU an account (docs/throughput.md, "Where the cost goes").
 */
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

/** The flags this process was started without, by name: another value is the operator's choice. */
export function missingWorkerNodeFlags(execArgv: readonly string[], nodeOptions = ''): string[] {
  const name = (flag: string) => flag.split('=')[0];
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].filter(Boolean).map(name));
  return WORKER_NODE_FLAGS.filter((f) => !given.has(name(f)));
}
