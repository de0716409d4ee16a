import os from 'node:os';
import { cpuSnapshot, type CpuSnapshot } from '../measure/cpu-groups';
import { processTable, treeRssMb } from '../measure/proc-tree';
import type { Sample } from './tenths';

/** USER_HZ of /proc's tick counts. */
const MS_PER_TICK = 10;

/**
 * Reads the stack every few seconds: worker memory and CPU by process group. CPU is kept as a
 * running total of each interval's growth per process, so a killed worker's time stays counted
 * up to its last reading and a replacement starts from zero.
 */
export class StackSampler {
  readonly samples: Sample[] = [];
  private last: CpuSnapshot | undefined;
  private readonly totals: Record<string, number> = {};
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pids: () => { steadyWorker: number; workers: number[] },
    private readonly everyMs: number,
  ) {}

  sample(): Sample {
    const snap = cpuSnapshot();
    for (const [pid, p] of snap.procs) {
      const before = this.last?.procs.get(pid);
      // A process seen for the first time counts from its start; the rehearsal's own reaped
      // children (killed workers) were counted while they lived.
      const grown = p.self - (before?.self ?? 0) + (p.group === 'bench' ? 0 : p.reaped - (before?.reaped ?? 0));
      if (grown > 0) this.totals[p.group] = (this.totals[p.group] ?? 0) + grown * MS_PER_TICK;
    }
    this.last = snap;
    const table = processTable();
    const { steadyWorker, workers } = this.pids();
    const s: Sample = {
      atMs: Date.now(),
      steadyWorkerRssMb: treeRssMb(steadyWorker, table),
      workersRssMb: workers.reduce((sum, pid) => sum + treeRssMb(pid, table), 0),
      cpuMs: { ...this.totals },
      load1: os.loadavg()[0],
    };
    this.samples.push(s);
    return s;
  }

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.everyMs);
    this.timer.unref();
    return this;
  }

  stop(): Sample[] {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    return this.samples;
  }
}
