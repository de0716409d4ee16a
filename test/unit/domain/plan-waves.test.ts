import { describe, expect, it } from 'vitest';
import { afterProblems, findCycle, waveDependencies, waveReady } from '../../../domain/plan-waves';

const w = (name: string, after?: string[]) => ({ name, ...(after ? { after } : {}) });

describe('the order of a plan’s waves', () => {
  it('a wave without after waits for the one before it; after [] for none; after names for those', () => {
    expect(waveDependencies([w('a'), w('b'), w('c')])).toEqual([[], [0], [1]]);
    expect(waveDependencies([w('a'), w('b', []), w('c', ['a', 'b'])])).toEqual([[], [], [0, 1]]);
    expect(waveDependencies([w('a', ['c']), w('b'), w('c', [])])).toEqual([[2], [0], []]);
    // Unknown names are the file's problem (afterProblems), not a dependency.
    expect(waveDependencies([w('a', ['zz'])])).toEqual([[]]);
  });

  it('a wave may start once every wave it waits for is done', () => {
    const done = new Set([0]);
    expect(waveReady([], () => false)).toBe(true);
    expect(waveReady([0], (i) => done.has(i))).toBe(true);
    expect(waveReady([0, 1], (i) => done.has(i))).toBe(false);
    expect(waveReady([1], (i) => done.has(i))).toBe(false);
  });

  it('cycles are found, whatever wave they start from; a graph without one has none', () => {
    expect(findCycle([[], [0], [1]])).toBeUndefined();
    expect(findCycle([[1], [0]])).toEqual([0, 1]);
    expect(findCycle([[0]])).toEqual([0]);
    expect(findCycle([[], [2], [3], [1]])).toEqual([1, 2, 3]);
    // A wave waiting on a cycle is not in it; nor is a dependency done with (0 here).
    expect(findCycle([[1], [2], [1]])).toEqual([1, 2]);
    expect(findCycle([[], [0, 2], [1]])).toEqual([1, 2]);
    expect(findCycle([[], [0], [3], [2]])).toEqual([2, 3]);
    // A shared dependency reached twice (a diamond) is no cycle.
    expect(findCycle([[], [0], [0], [1, 2]])).toBeUndefined();
    expect(findCycle([[1, 2], [3], [3], []])).toBeUndefined();
  });

  it('problems name the field: an unknown wave, itself, or the cycle with its waves', () => {
    expect(afterProblems([w('a'), w('b', ['x', 'a', 'b'])])).toEqual([
      { path: ['waves', 1, 'after', 0], message: 'x is not a wave of this plan' },
      { path: ['waves', 1, 'after', 2], message: 'a wave cannot wait for itself (b)' },
    ]);
    expect(afterProblems([w('a', ['c']), w('b', []), w('c', ['a'])])).toEqual([
      { path: ['waves', 0, 'after'], message: 'the waves wait for each other in a cycle: a → c → a' },
    ]);
    expect(afterProblems([w('a', ['c']), w('b', []), w('c', [])])).toEqual([]);
  });
});
