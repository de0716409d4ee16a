import { ApplicationFailure } from '@temporalio/common';
import type { PayloadRead, PayloadSource, PayloadSourceSpec } from '../source/adapter';
import { InputFileError } from '../schemas/input-file';

/**
 * A worker's payload sources, one per spec, closed when nobody needs them. A payload file's source
 * holds the file's index in a private folder on disk (account number → line offsets,
 * source/line-index.ts) and a `.jsonl.gz` one a decompressed copy beside it; kept for the worker's
 * life, every file any run ever read stays there. So a source closes when it has not been
 * used for `idleMs` (a run that finished, or one parked on a paused supplier for hours), or as soon as
 * every run that used it here has ended. Closing never cuts a read short: a source in use is left
 * open, and the next read of a closed one opens it again (its index is built again, once).
 */
export interface PayloadSourcePool {
  /** The source of `spec`, on behalf of run `runId` (so the run's end can close it). */
  get(spec: PayloadSourceSpec, runId?: string): PayloadSource;
  /** Run `runId` has ended: the sources no other run has used here, and that nobody is reading, close now. */
  runEnded(runId: string): Promise<void>;
  /** Closes the sources unused for `idleMs` (the pool does this by itself every `idleMs / 2`). */
  closeIdle(): Promise<void>;
  /** Closes every source (worker shutdown) and stops the idle sweep. */
  closeAll(): Promise<void>;
  /** How many sources are open now (their indexes in memory). */
  openCount(): number;
}

export interface PayloadSourcePoolOptions {
  /** A source unused this long closes (default DEFAULT_PAYLOAD_SOURCE_IDLE_MS). */
  idleMs?: number;
  /** The clock (tests). */
  now?: () => number;
  /** Whether the pool sweeps idle sources on a timer of its own (default true; tests call closeIdle). */
  sweep?: boolean;
}

/** Five minutes: far longer than the gap between two reads of a running run, far shorter than a paused supplier's wait. */
export const DEFAULT_PAYLOAD_SOURCE_IDLE_MS = 5 * 60_000;

interface Entry {
  source: PayloadSource;
  /** Reads in flight: a source is never closed under one. */
  inUse: number;
  lastUsed: number;
  /** Runs that read it here since it was opened. */
  runs: Set<string>;
}

export function createPayloadSourcePool(open: (spec: PayloadSourceSpec) => PayloadSource, opts: PayloadSourcePoolOptions = {}): PayloadSourcePool {
  const idleMs = opts.idleMs ?? DEFAULT_PAYLOAD_SOURCE_IDLE_MS;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const timer = opts.sweep === false ? undefined : setInterval(() => void closeIdle(), Math.max(1000, idleMs / 2)).unref();

  /** The entry of `key`, opened if it is closed; counted in use until `release`. */
  function acquire(key: string, spec: PayloadSourceSpec, runId: string | undefined): Entry {
    let e = entries.get(key);
    if (!e) {
      e = { source: open(spec), inUse: 0, lastUsed: now(), runs: new Set() };
      entries.set(key, e);
    }
    if (runId !== undefined) e.runs.add(runId);
    e.inUse += 1;
    return e;
  }

  async function use<T>(key: string, spec: PayloadSourceSpec, runId: string | undefined, read: (s: PayloadSource) => Promise<T>): Promise<T> {
    const e = acquire(key, spec, runId);
    try {
      return await read(e.source);
    } catch (err) {
      // A payload file that cannot be read as one (a FIFO, a gzip bomb, not gzip, too many lines…) is
      // the same file on every attempt: failed at once with its code, never retried for hours.
      if (err instanceof InputFileError) throw ApplicationFailure.nonRetryable(err.message, err.code);
      throw err;
    } finally {
      e.inUse -= 1;
      e.lastUsed = now();
    }
  }

  /** Removes the entry and closes its source; a read that comes after opens a fresh one. */
  async function close(key: string, e: Entry): Promise<void> {
    if (entries.get(key) === e) entries.delete(key);
    await e.source.close().catch(() => undefined);
  }

  async function closeIdle(): Promise<void> {
    const t = now();
    await Promise.all([...entries].filter(([, e]) => e.inUse === 0 && t - e.lastUsed >= idleMs).map(([k, e]) => close(k, e)));
  }

  return {
    get(spec, runId) {
      const key = JSON.stringify(spec);
      return {
        listAccountNumbers: (o: { after?: string; limit: number }) => use(key, spec, runId, (s) => s.listAccountNumbers(o)),
        getPayload: (ext: string): Promise<PayloadRead | undefined> => use(key, spec, runId, (s) => s.getPayload(ext)),
        // The pool decides when a shared source closes: one caller's close() must not cut the others' reads.
        close: async () => undefined,
      };
    },
    async runEnded(runId) {
      const done: Array<[string, Entry]> = [];
      for (const [k, e] of entries) {
        if (!e.runs.delete(runId)) continue;
        // Another run still reads it, or someone is reading it now: the idle sweep closes it later.
        if (e.runs.size === 0 && e.inUse === 0) done.push([k, e]);
      }
      await Promise.all(done.map(([k, e]) => close(k, e)));
    },
    closeIdle,
    async closeAll() {
      if (timer) clearInterval(timer);
      await Promise.all([...entries].map(([k, e]) => close(k, e)));
    },
    openCount: () => entries.size,
  };
}
