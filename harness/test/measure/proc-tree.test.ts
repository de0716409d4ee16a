import { describe, expect, it } from 'vitest';
import { descendants, parentPidFromStat, statusKb, treeRssMb } from '../../measure/proc-tree';

describe('/proc parsing', () => {
  it('reads the parent pid even when the command name has spaces and parentheses', () => {
    expect(parentPidFromStat('4242 (node) S 4100 4242 4100 0 -1 4194560')).toBe(4100);
    expect(parentPidFromStat('77 (my (odd) cmd) R 1 77 77 0 -1')).toBe(1);
    expect(parentPidFromStat('garbage')).toBeUndefined();
  });

  it('reads VmRSS and VmHWM in kB from a status file', () => {
    const status = 'Name:\tnode\nVmHWM:\t  524288 kB\nVmRSS:\t  262144 kB\nThreads:\t11\n';
    expect(statusKb(status, 'VmRSS')).toBe(262144);
    expect(statusKb(status, 'VmHWM')).toBe(524288);
    expect(statusKb('Name:\tkthreadd\n', 'VmRSS')).toBeUndefined();
  });

  it('finds a whole process tree (tsx → node → grandchild) and nothing outside it', () => {
    const table = new Map([
      [10, 1], // tsx cli
      [11, 10], // the real node
      [12, 11], // something node forked
      [20, 1], // unrelated
      [21, 20],
    ]);
    expect(descendants(10, table).sort()).toEqual([10, 11, 12]);
    expect(descendants(11, table).sort()).toEqual([11, 12]);
  });

  it('measures this test process: a live tree has memory, a gone pid has none', () => {
    expect(treeRssMb(process.pid)).toBeGreaterThan(10);
    expect(treeRssMb(2 ** 22 + 1)).toBe(0);
  });
});
