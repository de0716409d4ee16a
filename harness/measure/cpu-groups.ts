import fs from 'node:fs';
import { cmdline, descendants, processTable } from './proc-tree';

/**
 * CPU time by process group over one pass (Linux /proc). On a machine whose cores are all busy,
 * throughput is the cores divided by what an account costs across every process of the stack, so
 * this says where an account's time goes: the pipeline's own processes, Temporal, and what stands
 * in for the platform (the sandbox, S3/SQS), which a deployment does not run on its own cores.
 */

export type CpuGroup = 'worker' | 'events' | 'temporal' | 'sandbox' | 'postgres' | 'sandbox-postgres' | 's3sqs' | 'codec' | 'script' | 'bench' | 'other';

/**
 * The Postgres backends that serve the platform sandbox (its pool's application_name, read from
 * pg_stat_activity): their CPU is the stand-in tenant's database work, not the pipeline's, and is
 * counted as `sandbox-postgres`. Background processes and other backends stay `postgres`.
 */
export type SandboxBackends = ReadonlySet<number>;

/** Clock ticks per second of /proc's utime/stime (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** The group a process of the bench's tree belongs to, from its command line. */
export function cpuGroupOf(cmd: string): CpuGroup {
  if (/workers[/\\]main\.ts/.test(cmd)) return 'worker';
  // The events receiver is the pipeline's (it routes the platform's events to the workflows).
  if (/events[/\\]main\.ts/.test(cmd)) return 'events';
  if (/platform-services-main/.test(cmd)) return 'sandbox';
  if (/plain-script/.test(cmd)) return 'script';
  if (/fauxqs/.test(cmd)) return 's3sqs';
  if (/codec[/\\]main\.ts/.test(cmd)) return 'codec';
  if (/(^|[/\s])temporal(-server)?\s/.test(cmd) || /start-dev/.test(cmd)) return 'temporal';
  if (/(^|[/\s])postgres(:|\s|$)/.test(cmd)) return 'postgres';
  return 'other';
}

/** utime+stime and cutime+cstime (reaped children) of one /proc/<pid>/stat text, in ticks. */
export function ticksFromStat(stat: string): { self: number; reaped: number } | undefined {
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const f = stat.slice(close + 2).split(' ');
  const n = (i: number) => Number(f[i]) || 0;
  // Fields after the command: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
  return { self: n(11) + n(12), reaped: n(13) + n(14) };
}

export interface CpuSnapshot {
  /** pid → group, parent and ticks (its own, and its reaped children's). */
  procs: Map<number, { group: CpuGroup; ppid?: number; self: number; reaped: number }>;
}

/** Every process of the tree under `root` (the bench process: the stack's services are its children). */
export function cpuSnapshot(root = process.pid, sandboxBackends: SandboxBackends = new Set()): CpuSnapshot {
  const procs: CpuSnapshot['procs'] = new Map();
  const table = processTable();
  for (const pid of descendants(root, table)) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone since the scan
    }
    const t = ticksFromStat(stat);
    if (!t) continue;
    const group = pid === root ? 'bench' : cpuGroupOf(cmdline(pid));
    procs.set(pid, { group: group === 'postgres' && sandboxBackends.has(pid) ? 'sandbox-postgres' : group, ppid: table.get(pid), ...t });
  }
  return { procs };
}

/**
 * Milliseconds of CPU per account by group between two snapshots. A process that ended during
 * the pass is counted through its parent's reaped-children time, in the parent's group, except
 * the bench's own reaped children, which are `reapedAs` (the plain script's process). Reaped time
 * is a child's whole life: what a child that was already running at `before` had spent by then
 * belongs to earlier passes and is taken off (a Postgres backend of the pipeline's pool, closed
 * idle during the floor's pass, once put the pipeline's Postgres time in the floor's).
 */
export function cpuMsPerAccount(before: CpuSnapshot, after: CpuSnapshot, accounts: number, reapedAs: CpuGroup = 'other'): Partial<Record<CpuGroup, number>> {
  const ticks = new Map<CpuGroup, number>();
  const add = (g: CpuGroup, t: number) => t > 0 && ticks.set(g, (ticks.get(g) ?? 0) + t);
  const earlier = new Map<number, number>();
  for (const [pid, b] of before.procs) if (!after.procs.has(pid) && b.ppid !== undefined) earlier.set(b.ppid, (earlier.get(b.ppid) ?? 0) + b.self + b.reaped);
  for (const [pid, a] of after.procs) {
    const b = before.procs.get(pid);
    const self = a.self - (b?.self ?? 0);
    const reaped = a.reaped - (b?.reaped ?? 0) - (earlier.get(pid) ?? 0);
    add(a.group, self);
    add(a.group === 'bench' ? reapedAs : a.group, reaped);
  }
  const out: Partial<Record<CpuGroup, number>> = {};
  for (const [g, t] of [...ticks].sort((x, y) => y[1] - x[1])) out[g] = Math.round(((t / TICKS_PER_SECOND) * 1000 * 10) / Math.max(1, accounts)) / 10;
  return out;
}

/**
 * Runs `pass` and adds what it cost per account, by process group. `sandboxBackends` is asked before
 * and after (a backend the sandbox opened during the pass is known by its end); a backend that was the
 * sandbox's at either end keeps that group in both snapshots.
 */
export async function withCpu<T extends { completed: number }>(
  pass: () => Promise<T>,
  reapedAs?: CpuGroup,
  sandboxBackends: () => Promise<SandboxBackends> = async () => new Set(),
): Promise<T & { cpuMsPerAccount: Partial<Record<CpuGroup, number>> }> {
  const early = await sandboxBackends();
  const before = cpuSnapshot(process.pid, early);
  const r = await pass();
  const late = await sandboxBackends();
  const all = new Set([...early, ...late]);
  for (const [pid, p] of before.procs) if (p.group === 'postgres' && all.has(pid)) p.group = 'sandbox-postgres';
  return { ...r, cpuMsPerAccount: cpuMsPerAccount(before, cpuSnapshot(process.pid, all), r.completed, reapedAs) };
}
