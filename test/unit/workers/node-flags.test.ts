import { describe, expect, it } from 'vitest';
import { missingWorkerNodeFlags, WORKER_NODE_FLAGS } from '../../../workers/node-flags';

describe("the worker's node flags", () => {
  it('size both V8 heaps for the worker: the young generation and the old', () => {
    expect(WORKER_NODE_FLAGS).toEqual(['--max-semi-space-size=8', '--max-old-space-size=1024']);
  });

  it('are missing unless given on the command line or in NODE_OPTIONS; another value counts as given', () => {
    expect(missingWorkerNodeFlags([], undefined)).toEqual([...WORKER_NODE_FLAGS]);
    expect(missingWorkerNodeFlags(['--import', 'tsx'], '--enable-source-maps')).toEqual([...WORKER_NODE_FLAGS]);
    expect(missingWorkerNodeFlags([...WORKER_NODE_FLAGS, '--import', 'tsx'])).toEqual([]);
    expect(missingWorkerNodeFlags(['--max-semi-space-size=16'])).toEqual(['--max-old-space-size=1024']);
    expect(missingWorkerNodeFlags([], ` --enable-source-maps  ${WORKER_NODE_FLAGS.join(' ')} `)).toEqual([]);
    expect(missingWorkerNodeFlags(['--max-semi-space-size=8', '--max-old-space-size=2048'])).toEqual([]);
    expect(missingWorkerNodeFlags(['--max-semi-space-size-x=16', '--max-old-space-size=1024'])).toEqual(['--max-semi-space-size=8']);
  });
});
