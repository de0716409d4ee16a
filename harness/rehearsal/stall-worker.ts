import type { ManagedProcess } from '../stack/child-process';
import { killGroup } from '../stack/child-process';

/**
 * Temporal's workflow task timeout when the starter sets none. Ours set none: the run is started by
 * cli (and chaos/run.ts) and each account by activities/run.ts `startAccounts`, all without
 * `workflowTaskTimeout`, so every workflow task of this project has 10 s.
 */
export const WORKFLOW_TASK_TIMEOUT_MS = 10_000;

export interface Stall {
  name: string;
  pid: number;
  stoppedAt: Date;
  resumedAt: Date;
  /** How long the worker was frozen (wall clock, ms). */
  frozenMs: number;
}

/** Workers frozen right now: continued if this process ends mid-stall, so none is left stopped for good. */
const frozen = new Set<number>();
let exitHookInstalled = false;
function resumeFrozenOnExit() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pid of frozen) killGroup(pid, 'SIGCONT');
  });
}

/**
 * Freezes a worker process (SIGSTOP to its process group: the Node thread, the SDK's core threads and
 * its sockets all stand still) for `ms`, then continues it (SIGCONT): the real-world GC pause or VM
 * freeze. The workflow tasks it held, and those the server handed to its open polls meanwhile, miss
 * the workflow task timeout (WORKFLOW_TASK_TIMEOUT_MS) and are retried on another worker, which
 * replays their history; the thawed worker's late answers are refused by the server. `ms` must
 * exceed that timeout, or nothing times out. A worker that exits during the stall is not an error
 * (the SIGCONT then reaches nobody); a stack stopped meanwhile still stops gracefully
 * (stack/child-process.ts continues a process it signals).
 */
export async function stallWorker(proc: Pick<ManagedProcess, 'name' | 'pid'>, ms: number): Promise<Stall> {
  if (!Number.isFinite(ms) || ms <= WORKFLOW_TASK_TIMEOUT_MS) {
    throw new RangeError(`stallWorker ms=${ms}: must be more than the workflow task timeout (${WORKFLOW_TASK_TIMEOUT_MS} ms), or no task times out`);
  }
  resumeFrozenOnExit();
  const stoppedAt = new Date();
  killGroup(proc.pid, 'SIGSTOP');
  frozen.add(proc.pid);
  try {
    await new Promise((r) => setTimeout(r, ms));
  } finally {
    killGroup(proc.pid, 'SIGCONT');
    frozen.delete(proc.pid);
  }
  const resumedAt = new Date();
  return { name: proc.name, pid: proc.pid, stoppedAt, resumedAt, frozenMs: resumedAt.getTime() - stoppedAt.getTime() };
}
