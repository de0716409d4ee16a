/**
 * Delivering one planned "kill -9 while a schedule call is in flight" for sure. A kill is only
 * aimed at a worker the sandbox shows holding a schedule call, and only counts as mid-schedule once
 * the sandbox saw that call lose its client. A kill that missed (the call answered just before the
 * signal, no cut seen in time) is an ordinary kill, and the aimed one is tried again at the next
 * holder; with no holder yet the harness waits while accounts are still to be scheduled. Only when
 * nothing is left to schedule (no call can ever be in flight again) or the tries run out is the
 * fault undelivered: then the harness says so, and that is the harness's failure, not the product's.
 */

export interface AimedKillDeps<W> {
  /** Workers up now (ready and not exited): the candidates. */
  up(): W[];
  /** Waits (bounded) until enough workers are up that killing one leaves the run a worker. */
  waitForWorkers(): Promise<void>;
  /** The candidate holding a schedule call in flight at the sandbox now, if any. */
  holder(candidates: W[]): Promise<{ worker: W; ports: number[] } | undefined>;
  /** The sandbox's count of schedule calls that lost their client before the answer. */
  cutSchedules(): Promise<number>;
  kill(worker: W): Promise<void>;
  /** Whether accounts are still waiting to be scheduled (a call may yet be in flight). */
  stillScheduling(): Promise<boolean>;
  sleep(ms: number): Promise<void>;
  now(): number;
}

export interface AimedKillOptions {
  /** Kills at most (the first proven one ends it). */
  maxKills: number;
  /** How long to look for a holder before asking whether any schedule is left, then looking again. */
  aimMs: number;
  /** Gives up looking for a holder after this long in all. */
  giveUpMs: number;
  /** How long the sandbox may take to notice the cut connection. */
  proveMs: number;
  /** Pause between looks at the sandbox. */
  pollMs: number;
}

export const AIMED_KILL_DEFAULTS: AimedKillOptions = { maxKills: 4, aimMs: 30_000, giveUpMs: 300_000, proveMs: 10_000, pollMs: 20 };

export interface AimedKillResult<W> {
  /** Workers killed (each one, proven or not, is a real kill and gets a replacement). */
  killed: Array<{ worker: W; ports: number[]; cut: number }>;
  proven: boolean;
  /** Why the kill was not delivered mid-schedule. */
  problem?: string;
}

export async function deliverAimedKill<W>(deps: AimedKillDeps<W>, opts: AimedKillOptions = AIMED_KILL_DEFAULTS): Promise<AimedKillResult<W>> {
  const killed: AimedKillResult<W>['killed'] = [];
  const started = deps.now();
  while (killed.length < opts.maxKills) {
    await deps.waitForWorkers();
    let target: { worker: W; ports: number[] } | undefined;
    let before: number;
    let lookedSince = deps.now();
    for (;;) {
      // Read before the holder is found: once it is, it is killed at once (its call may end any moment).
      before = await deps.cutSchedules();
      target = await deps.holder(deps.up());
      if (target) break;
      if (deps.now() - started >= opts.giveUpMs) {
        return { killed, proven: false, problem: `no worker held a schedule call in ${Math.round(opts.giveUpMs / 1000)} s` };
      }
      if (deps.now() - lookedSince >= opts.aimMs) {
        if (!(await deps.stillScheduling())) return { killed, proven: false, problem: 'no account left to schedule: no call can be cut' };
        lookedSince = deps.now();
      }
      await deps.sleep(opts.pollMs);
    }
    await deps.kill(target.worker);
    let cut = 0;
    // The sandbox notices the closed connection when its loop gets to it: on a busy machine, seconds.
    for (const until = deps.now() + opts.proveMs; cut === 0 && deps.now() < until;) {
      await deps.sleep(100);
      cut = (await deps.cutSchedules()) - before;
    }
    killed.push({ ...target, cut });
    if (cut > 0) return { killed, proven: true };
  }
  return { killed, proven: false, problem: `${opts.maxKills} kills of a schedule call's holder, none seen to cut the call` };
}
