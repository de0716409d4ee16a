import fs from 'node:fs';

/**
 * Process-tree memory from /proc (Linux only). A service may run node under a wrapper, and the Temporal
 * CLI is a child of the stack, so figures are summed over a process and all its descendants.
 */

/** Parent pid from the text of /proc/<pid>/stat (the command name may contain spaces and parens). */
export function parentPidFromStat(stat: string): number | undefined {
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = stat.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

/** A field of /proc/<pid>/status in kB (VmRSS, VmHWM); undefined when absent. */
export function statusKb(status: string, field: 'VmRSS' | 'VmHWM'): number | undefined {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  return m ? Number(m[1]) : undefined;
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Every live pid with its parent, from one scan of /proc. */
export function processTable(): Map<number, number> {
  const table = new Map<number, number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    const ppid = stat ? parentPidFromStat(stat) : undefined;
    if (ppid !== undefined) table.set(Number(name), ppid);
  }
  return table;
}

/** `root` and all its descendants, given a pid → parent table. */
export function descendants(root: number, table: ReadonlyMap<number, number>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    if (out.includes(pid)) continue;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

export function cmdline(pid: number): string {
  return (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim();
}

/** Resident memory of a process tree in MB (current VmRSS summed); 0 once it is gone. */
export function treeRssMb(root: number, table = processTable()): number {
  let kb = 0;
  for (const pid of descendants(root, table)) kb += statusKb(read(`/proc/${pid}/status`) ?? '', 'VmRSS') ?? 0;
  return kb / 1024;
}

/** The first descendant of `root` (not root itself) whose command line matches. */
export function findDescendant(root: number, match: (cmd: string) => boolean, table = processTable()): number | undefined {
  return descendants(root, table).find((pid) => pid !== root && match(cmdline(pid)));
}

/**
 * Polls the summed RSS of some process trees and keeps the peak of each. Sampling (not VmHWM)
 * because a tree's peak is the peak of the sum, which per-process high-water marks overstate.
 */
export class RssSampler {
  private readonly peaks = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly roots: () => Record<string, number[]>,
    private readonly everyMs = 500,
  ) {}

  sample(): Record<string, number> {
    const table = processTable();
    const now: Record<string, number> = {};
    for (const [name, pids] of Object.entries(this.roots())) {
      now[name] = pids.reduce((s, pid) => s + treeRssMb(pid, table), 0);
      this.peaks.set(name, Math.max(this.peaks.get(name) ?? 0, now[name]));
    }
    return now;
  }

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.everyMs);
    this.timer.unref();
    return this;
  }

  stop(): Record<string, number> {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    return Object.fromEntries(this.peaks);
  }
}
