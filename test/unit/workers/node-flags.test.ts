import { describe, expect, it } from 'vitest';
import { missingWorkerNodeFlags, WORKER_NODE_FLAGS } from '../../../workers/node-flags';

describe("the worker's node flags", () => {
  it('caps the young generation', () => {
    expect(WORKER_NODE_FLAGS).toContain('--max-semi-space-size=16');
  });

  it('are missing unless given on the command line or in NODE_OPTIONS; another value counts as given', () => {
    expect(missingWorkerNodeFlags([], undefined)).toEqual([...WORKER_NODE_FLAGS]);
    expect(missingWorkerNodeFlags(['--import', 'tsx'], '--enable-source-maps')).toEqual([...WORKER_NODE_FLAGS]);
    expect(missingWorkerNodeFlags([...WORKER_NODE_FLAGS, '--import', 'tsx'])).toEqual([]);
    expect(missingWorkerNodeFlags([], ` --enable-source-maps  ${WORKER_NODE_FLAGS.join(' ')} `)).toEqual([]);
    expect(missingWorkerNodeFlags(['--max-semi-space-size=8'])).toEqual([]);
    expect(missingWorkerNodeFlags(['--max-old-space-size=16'])).toEqual([...WORKER_NODE_FLAGS]);
  });
});
